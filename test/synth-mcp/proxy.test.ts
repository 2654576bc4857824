// Proxy mode end to end: `modelworks synth serve` on a loopback port and `modelworks mcp --tools
// synth` with MODELWORKS_SYNTH_GENERATE_MODE=proxy, both real child processes, the SDK Client on top.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectSynth,
  grindBytes,
  readAll,
  SKIRMISH,
  startService,
  SUPPORT_QUEUE,
  type Json,
  type ServiceChild,
  type SynthPeer,
} from './helpers.js';

const TOKEN = 'proxy-test-token';

async function models(service: ServiceChild, token = TOKEN): Promise<Json[]> {
  const r = await fetch(`${service.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
  return ((await r.json()) as Json).models as Json[];
}

describe('synth tools in proxy mode against a real synth Service', () => {
  let service: ServiceChild;
  let peer: SynthPeer;
  beforeAll(async () => {
    service = await startService(['--port', '0'], { MODELWORKS_SYNTH_SERVICE_TOKEN: TOKEN });
    peer = await connectSynth({
      MODELWORKS_SYNTH_GENERATE_MODE: 'proxy',
      MODELWORKS_SYNTH_SERVICE_URL: service.url,
      MODELWORKS_SYNTH_SERVICE_TOKEN: TOKEN,
    });
  });
  afterAll(async () => {
    await peer?.close();
    await service?.stop();
  });

  it('generates through the Service and reads pages back to exactly the grind bytes', async () => {
    const g = await peer.ok('generate', {
      modelText: SUPPORT_QUEUE,
      count: 4000,
      seed: 11,
      previewLimit: 30,
    });
    expect(g).toMatchObject({
      count: 4000,
      rowCount: 30,
      totalCount: 4000,
      hasMore: true,
      format: 'csv',
      seed: '11',
      seedSource: 'request',
    });
    expect(g.modelId).toMatch(/^m-[0-9a-f]{16}$/);
    expect(g.generationId).toMatch(/^g-[0-9a-f]{16}$/);
    const { text, pages } = await readAll(peer, g);
    expect(pages).toBeGreaterThan(1);
    expect(text).toBe(await grindBytes(SUPPORT_QUEUE, ['--seed', '11', '--count', '4000']));

    const nd = await peer.ok('generate', { modelText: SKIRMISH, count: 500, format: 'ndjson' });
    expect(nd).toMatchObject({ seed: '99', seedSource: 'model' });
    expect((await readAll(peer, nd, 40)).text).toBe(
      await grindBytes(SKIRMISH, ['--count', '500', '--format', 'ndjson']),
    );
  });

  it('reuses one registration per model text across calls', async () => {
    const a = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5, seed: 1 });
    const b = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5, seed: 2 });
    expect(b.modelId).toBe(a.modelId);
    expect(b.generationId).not.toBe(a.generationId);
    // two model texts used so far in this session: two registrations on the Service, no more
    const registered = await models(service);
    expect(registered.map((m) => m.rootName).sort()).toEqual(['Round', 'Ticket']);
    expect(registered.find((m) => m.rootName === 'Ticket')!.modelId).toBe(a.modelId);
  });

  it('re-registers once when the Service has forgotten the model (restarted on the same port)', async () => {
    const before = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5, seed: 3 });
    expect(await service.stop()).toBe(0); // graceful shutdown exits 0
    service = await startService(['--port', String(service.port)], { MODELWORKS_SYNTH_SERVICE_TOKEN: TOKEN });
    expect(await models(service)).toEqual([]);
    const after = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5, seed: 3 });
    expect(after.modelId).not.toBe(before.modelId);
    expect(after.preview).toBe(before.preview);
    expect((await models(service)).map((m) => m.modelId)).toEqual([after.modelId]);
    // and the new registration is reused again
    const again = await peer.ok('generate', { modelText: SUPPORT_QUEUE, count: 5, seed: 4 });
    expect(again.modelId).toBe(after.modelId);
    // a g- id from the old Service is gone with it
    const old = await peer.call('read_generation', { generationId: before.generationId });
    expect(old.structuredContent).toMatchObject({ code: 'GENERATION_NOT_FOUND' });
  });

  it('self-heals when the registration was deleted on the Service, too', async () => {
    const a = await peer.ok('generate', { modelText: SKIRMISH, count: 2 });
    const del = await fetch(`${service.url}/v1/models/${a.modelId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(del.status).toBe(204);
    const b = await peer.ok('generate', { modelText: SKIRMISH, count: 2 });
    expect(b.modelId).not.toBe(a.modelId);
    expect(b.preview).toBe(a.preview);
  });

  it('passes the Service size cap refusal through as an error result', async () => {
    const r = await peer.call('generate', { modelText: SKIRMISH, count: 10, format: 'csv', seed: 'x' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 'BAD_REQUEST' });
    const bad = await peer.call('generate', { modelText: 'dataset.root = A\nA = Nope()\n', count: 5 });
    expect(bad.structuredContent).toMatchObject({ code: 'MODEL_INVALID' });
  });

  it('embedded e- ids are still read locally in proxy mode (routing is by prefix)', async () => {
    const r = await peer.call('read_generation', { generationId: 'e-0123456789abcdef' });
    expect(r.structuredContent).toMatchObject({ code: 'GENERATION_NOT_FOUND' });
    expect(r.content[0]!.text).not.toContain('Cannot reach');
  });

  it('Service down: a clear error naming the URL and how to start it or switch to embedded', async () => {
    await service.stop();
    const r = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 5 });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    const message = (r.structuredContent as Json).error as string;
    expect(message).toContain(`Cannot reach the synth Service at ${service.url}`);
    expect(message).toContain('modelworks synth serve');
    expect(message).toContain('MODELWORKS_SYNTH_GENERATE_MODE=embedded');
    const read = await peer.call('read_generation', { generationId: 'g-0123456789abcdef' });
    expect(((read.structuredContent as Json).error as string).startsWith('Cannot reach')).toBe(true);
    expect(read.structuredContent).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    // the rest of the tools work without the Service
    expect((await peer.ok('validate_model', { modelText: SKIRMISH })).valid).toBe(true);
  });
});

describe('proxy mode with a wrong or missing token', () => {
  let service: ServiceChild;
  beforeAll(async () => {
    service = await startService(['--port', '0', '--token', TOKEN]);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('the Service refuses requests without the token or with a wrong one', async () => {
    const none = await fetch(`${service.url}/v1/models`, {
      method: 'POST',
      body: SKIRMISH,
      headers: { 'content-type': 'text/plain' },
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Json).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${service.url}/v1/components`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await models(service)).toEqual([]);
  });

  it('a proxy MCP server with the wrong token gets a clear error result', async () => {
    for (const token of ['nope', undefined]) {
      const peer = await connectSynth({
        MODELWORKS_SYNTH_GENERATE_MODE: 'proxy',
        MODELWORKS_SYNTH_SERVICE_URL: service.url,
        ...(token ? { MODELWORKS_SYNTH_SERVICE_TOKEN: token } : {}),
      });
      try {
        const r = await peer.call('generate', { modelText: SKIRMISH, count: 5 });
        expect(r.isError).toBe(true);
        const message = (r.structuredContent as Json).error as string;
        expect(message).toContain('refused');
        expect(message).toContain('MODELWORKS_SYNTH_SERVICE_TOKEN');
      } finally {
        await peer.close();
      }
    }
    expect(await models(service)).toEqual([]);
  });

  it('size cap: the Service refuses an oversized generation as soon as it passes the cap', async () => {
    const small = await startService(['--port', '0', '--max-bytes', '30000']);
    try {
      const peer = await connectSynth({
        MODELWORKS_SYNTH_GENERATE_MODE: 'proxy',
        MODELWORKS_SYNTH_SERVICE_URL: small.url,
      });
      try {
        // a million rows: refused before the first row, on the output's lower bound
        const r = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 1_000_000 });
        expect(r.structuredContent).toMatchObject({ code: 'TOO_LARGE', maxBytes: 30000 });
        expect((r.structuredContent as Json).projectedBytes).toBeGreaterThan(30_000);
        // 1,000 rows (~49 kB, 7,000 bytes at the shortest): refused one row past the cap
        const held = await peer.call('generate', { modelText: SUPPORT_QUEUE, count: 1_000 });
        expect(held.structuredContent).toMatchObject({ code: 'TOO_LARGE', maxBytes: 30000 });
        expect((held.structuredContent as Json).bytes).toBeGreaterThan(30_000);
        expect((held.structuredContent as Json).bytes).toBeLessThan(30_200);
      } finally {
        await peer.close();
      }
    } finally {
      await small.stop();
    }
  });
});
