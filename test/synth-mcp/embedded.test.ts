// The synth tools end to end in embedded mode: `modelworks mcp --tools synth` as a stdio child,
// the official SDK Client on the other side. Generated data, read back page by page, must equal
// what `modelworks synth grind` writes for the same model, seed and count.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SKIRMISH,
  SUPPORT_QUEUE,
  SYNTH_TOOLS,
  childEnv,
  cli,
  connectSynth,
  grindBytes,
  readAll,
  root,
  type Json,
  type SynthPeer,
} from './helpers.js';

describe('synth tools, embedded mode, over stdio', () => {
  let peer: SynthPeer;
  let dir: string;
  let auditLog: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'synth-mcp-'));
    auditLog = join(dir, 'audit.ndjson');
    peer = await connectSynth({
      MODELWORKS_SYNTH_AUDIT_LOG: auditLog,
      MODELWORKS_SYNTH_FLATFILE_PATH_ALLOWLIST: '/srv/data,/opt/tables',
    });
  });
  afterAll(async () => {
    await peer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('offers exactly the synth tools (the six and compare, fit) with --tools synth, and the two guides', async () => {
    const { tools } = await peer.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(SYNTH_TOOLS);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(20);
    const { resources } = await peer.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      'synth://guide/customization',
      'synth://guide/model-format',
    ]);
    const read = await peer.client.readResource({ uri: 'synth://guide/model-format' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect((read.contents[0] as { text: string }).text).toMatch(/\| Normal +\|/);
  });

  it('list_components returns what `synth components --json` prints; filters by name or category', async () => {
    const all = await peer.ok('list_components');
    const cliJson = JSON.parse(
      execFileSync(process.execPath, [cli, 'synth', 'components', '--json'], { cwd: root, encoding: 'utf8' }),
    ) as Json;
    expect(all).toEqual(cliJson);
    expect(all.totalCount).toBe(all.components.length);

    const normal = await peer.ok('list_components', { name: 'normal' });
    expect(normal.totalCount).toBe(1);
    expect(normal.components[0].name).toBe('Normal');
    expect(normal.components[0].parameters.map((p: Json) => p.name)).toEqual(['mean', 'sigma']);

    const filters = await peer.ok('list_components', { category: 'filter' });
    expect(filters.components.length).toBeGreaterThan(5);
    expect(filters.components.every((c: Json) => c.category === 'filter')).toBe(true);
    expect(filters.totalCount).toBe(filters.components.length);

    const both = await peer.call('list_components', { name: 'Normal', category: 'generator' });
    expect(both.isError).toBe(true);
    expect(both.structuredContent).toMatchObject({
      code: 'BAD_REQUEST',
      error: 'give name or category, not both',
    });
    const unknown = await peer.call('list_components', { name: 'NoSuchThing' });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ code: 'COMPONENT_NOT_FOUND' });
  });

  it('validate_model reports valid models, load errors and node failures', async () => {
    expect(await peer.ok('validate_model', { modelText: SUPPORT_QUEUE })).toEqual({
      valid: true,
      rootName: 'Ticket',
      nodeCount: 13,
      failures: [],
    });
    const typo = await peer.ok('validate_model', {
      modelText: 'dataset.root = A\nA = Normal(mean=1, sigmma=2)\n',
    });
    expect(typo).toMatchObject({ valid: false, rootName: null, nodeCount: null, failures: [] });
    expect(typo.loadError).toContain('did you mean "sigma"');
    const oneInput = await peer.ok('validate_model', {
      modelText: 'dataset.root = M\nM = Mix((A, 1))\nA = Uniform()\n',
    });
    expect(oneInput.valid).toBe(false);
    expect(oneInput.failures[0]).toMatchObject({ nodeName: 'M', nodeType: 'Mix' });
    // a DOCTYPE declaring an external entity is a load error in the result, not an error result
    const xxe = await peer.ok('validate_model', {
      modelText:
        '<!DOCTYPE dataset [<!ENTITY e SYSTEM "file:///etc/passwd">]><dataset><root node="R"/><nodes><Constant name="R" value="&e;"/></nodes></dataset>',
    });
    expect(xxe).toMatchObject({ valid: false, rootName: null, nodeCount: null, failures: [] });
    expect(xxe.loadError).toContain('External entities are not supported');
  });

  it('analyze_model gives complexity and throughput without file fields', async () => {
    const a = await peer.ok('analyze_model', { modelText: SUPPORT_QUEUE, samples: 500 });
    expect(Object.keys(a).sort()).toEqual([
      'complexity',
      'isolatedBenchmark',
      'rootName',
      'throughput',
      'timestamp',
    ]);
    expect(a.rootName).toBe('Ticket');
    expect(a.complexity.nodeCount).toBe(13);
    expect(a.throughput.sampleCount).toBe(500);
    const noTiming = await peer.ok('analyze_model', { modelText: SUPPORT_QUEUE, throughput: false });
    expect(noTiming.throughput).toBeNull();
    const bad = await peer.call('analyze_model', { modelText: '<dataset><root node="X"/>' });
    expect(bad.isError).toBe(true);
  });

  it('get_allowlists returns the configured policy in the wire shape', async () => {
    expect(await peer.ok('get_allowlists')).toEqual({
      flatFilePathAllowlist: ['/srv/data', '/opt/tables'],
      databaseUrlAllowlist: [],
      databaseAllowQuery: false,
      serviceUrlAllowlist: [],
      customComponentDirAllowlist: [],
    });
  });

  it('generate + read_generation reassemble exactly the bytes grind writes (csv, 5,000 rows)', async () => {
    const g = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5000, seed: 7, previewLimit: 25 });
    expect(g).toMatchObject({
      count: 5000,
      rowCount: 25,
      totalCount: 5000,
      hasMore: true,
      format: 'csv',
      seed: '7',
      seedSource: 'request',
    });
    expect(g.modelId).toMatch(/^local-[0-9a-f]{16}$/);
    expect(g.generationId).toMatch(/^e-[0-9a-f]{16}$/);
    expect(g.preview.split('\n')).toHaveLength(26);
    const { text, pages } = await readAll(peer, g);
    expect(pages).toBeGreaterThan(1);
    expect(text).toBe(await grindBytes(SUPPORT_QUEUE, ['--seed', '7', '--count', '5000']));
  });

  it('the same holds for ndjson and raw, with small pages, and with the model seed', async () => {
    const nd = await peer.ok('generate', {
      modelText: SKIRMISH,
      count: 700,
      format: 'ndjson',
      seed: '123456789012345678',
    });
    expect(nd.seed).toBe('123456789012345678');
    const ndText = (await readAll(peer, nd, 64)).text;
    expect(ndText).toBe(
      await grindBytes(SKIRMISH, ['--seed', '123456789012345678', '--count', '700', '--format', 'ndjson']),
    );

    const raw = await peer.ok('generate', { modelText: SKIRMISH, count: 300, format: 'raw' });
    expect(raw).toMatchObject({ seed: '99', seedSource: 'model' });
    expect((await readAll(peer, raw, 50)).text).toBe(
      await grindBytes(SKIRMISH, ['--count', '300', '--format', 'raw']),
    );

    const same = await peer.ok('generate', { modelText: SKIRMISH, count: 10, format: 'raw' });
    expect(same.modelId).toBe(raw.modelId); // the label is the model text's hash
    expect(same.generationId).not.toBe(raw.generationId);
  });

  it('a model without a seed gets a fresh one that reproduces the run when passed back', async () => {
    const text = 'dataset.root = U\nU = Uniform()\n';
    const first = await peer.ok('generate', { modelText: text, count: 5 });
    expect(first.seedSource).toBe('random');
    const again = await peer.ok('generate', { modelText: text, count: 5, seed: first.seed });
    expect(again.preview).toBe(first.preview);
  });

  it('refuses bad arguments and bad models as error results, and unknown ids', async () => {
    const json = await peer.call('generate', { modelText: SKIRMISH, count: 5, format: 'json' });
    expect(json.isError).toBe(true);
    expect(json.content[0]!.text).toContain('/format');
    const invalid = await peer.call('generate', { modelText: 'dataset.root = A\nA = Nope()\n', count: 5 });
    expect(invalid.structuredContent).toMatchObject({ code: 'MODEL_INVALID' });
    const tooMany = await peer.call('generate', { modelText: SKIRMISH, count: 2_000_001 });
    expect(tooMany.isError).toBe(true);
    const unknown = await peer.call('read_generation', { generationId: 'e-0000000000000000' });
    expect(unknown.structuredContent).toMatchObject({ code: 'GENERATION_NOT_FOUND' });
    const notAnId = await peer.call('read_generation', { generationId: 'x-1' });
    expect(notAnId.isError).toBe(true);
    const g = await peer.ok('generate', { modelText: SKIRMISH, count: 3 });
    const past = await peer.call('read_generation', { generationId: g.generationId, offset: 4 });
    expect(past.structuredContent).toMatchObject({ code: 'BAD_REQUEST' });
    const end = await peer.ok('read_generation', { generationId: g.generationId, offset: 3 });
    expect(end).toMatchObject({ rowCount: 0, hasMore: false, nextOffset: null, data: '' });
  });

  it('brackets every generate call with start/stop audit events in the NDJSON log', () => {
    const events = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    const starts = events.filter((e) => e.event === 'mcp.embedded_generate.start');
    const stops = events.filter((e) => e.event === 'mcp.embedded_generate.stop');
    expect(starts.length).toBeGreaterThanOrEqual(5);
    expect(stops.length).toBe(starts.length);
    for (const s of starts) {
      const stop = stops.find((e) => e.generationId === s.generationId);
      expect(stop, s.generationId).toBeDefined();
      expect(typeof s.timestamp).toBe('string');
    }
    expect(stops.some((e) => e.outcome === 'ok' && e.bytes > 0 && e.seed === '7')).toBe(true);
    expect(stops.some((e) => e.outcome === 'error' && e.error === 'MODEL_INVALID')).toBe(true);
  });
});

describe('embedded limits', () => {
  let peer: SynthPeer;
  beforeAll(async () => {
    peer = await connectSynth({ MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES: '20000' });
  });
  afterAll(async () => {
    await peer?.close();
  });

  it('refuses a run that passes MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES as soon as it does', async () => {
    const r = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 1_000_000, seed: 1 });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 'TOO_LARGE', count: 1_000_000, maxBytes: 20000 });
    // a million rows cannot fit however short: refused before the first row, on a lower bound
    expect(r.structuredContent!.projectedBytes).toBeGreaterThan(20_000);
    expect(r.content[0]!.text).toContain('MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES');
    // 1,000 rows might fit (7 columns: 7,000 bytes at the shortest) but take ~49 kB: the cap is
    // held row by row, refused one row past it, not after writing the output
    const held = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 1_000, seed: 1 });
    expect(held.structuredContent).toMatchObject({ code: 'TOO_LARGE', count: 1_000, maxBytes: 20000 });
    expect(held.structuredContent!.bytes).toBeGreaterThan(20_000);
    expect(held.structuredContent!.bytes).toBeLessThan(20_200);
    const small = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 100, seed: 1 });
    expect(small.totalCount).toBe(100);
  });

  it('keeps the last 20 generations: the 21st evicts the oldest', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 21; i++)
      ids.push(
        (await peer.ok('generate', { modelText: SKIRMISH, count: 3, seed: i + 1, previewLimit: 0 }))
          .generationId,
      );
    const first = await peer.call('read_generation', { generationId: ids[0] });
    expect(first.structuredContent).toMatchObject({ code: 'GENERATION_NOT_FOUND', generationId: ids[0] });
    for (const id of ids.slice(1)) {
      const page = await peer.ok('read_generation', { generationId: id });
      expect(page.rowCount).toBe(3);
    }
  });
});

describe('tool groups and settings', () => {
  it('the default server offers calc and synth tools and both sets of resources', async () => {
    const peer = await connectSynth({}, []);
    try {
      const names = (await peer.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining([...SYNTH_TOOLS, 'create_model', 'mutate', 'get_state']));
      const uris = (await peer.client.listResources()).resources.map((r) => r.uri);
      expect(uris).toEqual(
        expect.arrayContaining(['synth://guide/model-format', 'valem://guide/model-spec-format']),
      );
      expect(peer.client.getInstructions()).toContain('read_generation');
      expect(peer.client.getInstructions()).toContain('create_model');
    } finally {
      await peer.close();
    }
  });

  it('a malformed synth setting stops the server at start with the variable named (exit 2)', () => {
    for (const [name, value] of [
      ['MODELWORKS_SYNTH_GENERATE_MODE', 'sideways'],
      ['MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES', 'lots'],
      ['MODELWORKS_SYNTH_SERVICE_URL', 'not a url'],
      ['MODELWORKS_MCP_TRANSPORT', 'pigeon'],
    ] as const) {
      const r = spawnSync(process.execPath, [cli, 'mcp', '--tools', 'synth'], {
        cwd: root,
        env: childEnv({ [name]: value }),
        input: '',
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status, name).toBe(2);
      expect(r.stderr).toContain(name);
      expect(r.stdout).toBe('');
    }
  });
});
