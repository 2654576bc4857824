// The calc MCP server end to end: the built CLI as a child process, the official SDK Client on the
// other side, one scenario over stdio and over Streamable HTTP. Tests in a transport's block share
// one server and run in order; each uses its own model ids except where it says so.
import { type ProtocolError, ResourceNotFoundError } from '@modelcontextprotocol/client';
import Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  connectStdio,
  jsonOf,
  startHttpServer,
  textOf,
  type HttpServerChild,
  type Peer,
} from './helpers/peers.js';
import { AUTHORING_TOOLS, DEMO, looseSpec, MODEL_TOOLS, orderSpec } from './helpers/specs.js';
import { within } from '../helpers/time.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The schema with every local `#/$defs/…` reference replaced by its target (no cycles here). */
function resolveRefs(schema: Json): Json {
  const defs = (schema.$defs ?? {}) as Json;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return walk(defs[ref.slice(8)]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  const { $defs: _d, ...rest } = schema;
  return walk(rest) as Json;
}

interface Setup {
  peer: Peer;
  /** Resolves when the server can push unsolicited notifications to this client. */
  pushReady: Promise<void>;
  /** A second, independent client of the same server (HTTP: a second session). */
  second?: () => Promise<Peer>;
  stop(): Promise<void>;
}

async function stdioSetup(): Promise<Setup> {
  const peer = await connectStdio();
  return { peer, pushReady: Promise.resolve(), stop: () => peer.close() };
}

async function httpSetup(): Promise<Setup> {
  const server: HttpServerChild = await startHttpServer();
  const peer = await connectHttp(server.url);
  const extra: Peer[] = [];
  return {
    peer,
    pushReady: peer.standaloneStream,
    second: async () => {
      const p = await connectHttp(server.url);
      extra.push(p);
      return p;
    },
    stop: async () => {
      for (const p of [peer, ...extra]) await p.close().catch(() => {});
      await server.stop();
    },
  };
}

describe.each([
  ['stdio', stdioSetup],
  ['http', httpSetup],
] as const)('calc MCP server over %s', (_label, setup) => {
  let s: Setup;
  let peer: Peer;
  beforeAll(async () => {
    s = await setup();
    peer = s.peer;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('runs the worked example: create demo, mutate price 10 / qty 3, get_state total 30', async () => {
    const created = await peer.call('create_model', { spec: DEMO });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({
      id: 'demo',
      version: '1',
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 0,
      effectCount: 0,
    });
    expect(textOf(created)).toBe(JSON.stringify(created.structuredContent, null, 2));

    const mutated = await peer.call('mutate', { id: 'demo', mutations: { '$.price': 10, '$.qty': 3 } });
    expect(mutated.isError).toBeFalsy();
    expect(mutated.structuredContent).toMatchObject({ success: true, derivedUpdated: ['$.total'] });
    expect(mutated.structuredContent).not.toHaveProperty('traces');
    expect(Object.keys(mutated.structuredContent!).sort()).toEqual([
      'derivedUpdated',
      'dispatchedEffects',
      'flaggedConstraints',
      'metaUpdated',
      'mutatedPaths',
      'revision',
      'success',
    ]);

    const state = await peer.call('get_state', { id: 'demo' });
    expect(state.isError).toBeFalsy();
    expect(state.structuredContent).toEqual({ price: 10, qty: 3, total: 30 });
    expect(textOf(state)).toBe('{\n  "price": 10,\n  "qty": 3,\n  "total": 30\n}');
  });

  it('lists every tool with a title, annotations and the declared schemas', async () => {
    const { tools } = await peer.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining([...MODEL_TOOLS, ...AUTHORING_TOOLS]));
    expect(byName.has('pair_browser')).toBe(false);

    const readOnly = new Set([
      'list_models',
      'get_model_info',
      'get_spec',
      'get_state',
      'get_field',
      'get_effective_schema',
      'explain',
      'get_history',
      'get_audit',
      'verify_audit',
      'get_view',
      'get_library',
      'download_blob',
      ...AUTHORING_TOOLS,
    ]);
    const destructive = new Set(['delete_model', 'evolve_spec', 'restore']);
    // array/scalar results declare none; get_state neither, since `depth: 0` yields a string
    const noOutputSchema = new Set([
      'list_models',
      'get_history',
      'explain',
      'get_field',
      'get_audit',
      'get_state',
    ]);
    for (const name of [...MODEL_TOOLS, ...AUTHORING_TOOLS]) {
      const tool = byName.get(name)!;
      expect(tool.title, name).toMatch(/\S/);
      expect(tool.description, name).toMatch(/\S/);
      expect(tool.annotations?.openWorldHint, name).toBe(false);
      if (readOnly.has(name)) expect(tool.annotations?.readOnlyHint, name).toBe(true);
      if (['create_model', 'mutate', 'patch_model', 'restore', 'evolve_spec', 'delete_model'].includes(name))
        expect(tool.annotations?.readOnlyHint, name).toBe(false);
      expect(tool.annotations?.destructiveHint === true, name).toBe(destructive.has(name));
      expect(tool.inputSchema.type, name).toBe('object');
      if (noOutputSchema.has(name)) expect(tool.outputSchema, name).toBeUndefined();
      else expect(tool.outputSchema?.type, name).toBe('object');
    }

    // create_model / evolve_spec embed the very schemas served as resources (one source), their
    // repeated fragments listed once under the input schema's $defs
    const specSchema = JSON.parse(
      ((await peer.client.readResource({ uri: 'valem://schema/model-spec' })).contents[0] as Json).text,
    );
    const evoSchema = JSON.parse(
      ((await peer.client.readResource({ uri: 'valem://schema/spec-evolution' })).contents[0] as Json).text,
    );
    const strip = ({ $schema: _s, $id: _i, ...rest }: Json) => rest;
    const createInput = byName.get('create_model')!.inputSchema as Json;
    const evolveInput = byName.get('evolve_spec')!.inputSchema as Json;
    expect(createInput.required).toEqual(['spec']);
    expect(Object.keys(createInput.$defs)).toEqual(expect.arrayContaining(['path', 'expr']));
    expect(JSON.stringify(createInput.properties.spec)).toContain('"$ref":"#/$defs/path"');
    expect(resolveRefs(createInput).properties.spec).toEqual(strip(specSchema));
    expect(resolveRefs(evolveInput).properties.evolution).toEqual(strip(evoSchema));
    // and they accept and refuse what the resources do
    const ajv = new Ajv2020Module.default({ strict: false });
    const viaTool = ajv.compile(createInput);
    const viaResource = ajv.compile(strip(specSchema));
    for (const spec of [
      DEMO,
      looseSpec('x'),
      { id: 'x' },
      { id: 'x', schema: {}, derivations: [{ path: 1 }] },
    ])
      expect(viaTool({ spec }), JSON.stringify(spec)).toBe(viaResource(spec));
    // tools that check, test, preview or render a spec point at that schema instead of repeating it
    // (~6 KB each); a loose schema also lets validate_spec receive the invalid specs it diagnoses
    for (const name of ['validate_spec', 'test_spec', 'dry_run', 'render_model']) {
      const spec = (byName.get(name)!.inputSchema as Json).properties.spec;
      expect(spec.type, name).toBe('object');
      expect(spec.properties, name).toBeUndefined();
      expect(spec.description, name).toContain('valem://schema/model-spec');
    }
    // what every agent pays before its first call (issue 21: at most 50 KB; 90 KB before this guard)
    const listed = await peer.client.listTools();
    expect(JSON.stringify(listed).length).toBeLessThanOrEqual(50 * 1024);
    // the topic menu is enumerated in get_domain_guidance's schema
    const topics = (byName.get('get_domain_guidance')!.inputSchema as Json).properties.topics.items.enum;
    expect(topics).toEqual(expect.arrayContaining(['percentage', 'proration', 'amortization_schedule']));
  });

  it('reads state at a time, by paths and to a depth; get_field, get_history, get_model_info, get_spec', async () => {
    await peer.ok('create_model', { spec: looseSpec('reads') });
    await peer.ok('mutate', {
      id: 'reads',
      mutations: { '$.price': 2, '$.qty': 3, '$.meta.tags': ['a', 'b'] },
    });
    // the server is another process (its clock cannot be injected): the next cycle must fall in a
    // later millisecond than this one, so `at` can tell them apart
    const first = Date.parse(((await peer.ok('get_history', { id: 'reads' })) as string[]).at(-1)!);
    await expect.poll(() => Date.now()).toBeGreaterThan(first);
    await peer.ok('mutate', { id: 'reads', mutations: { '$.qty': 5 } });

    const history = (await peer.ok('get_history', { id: 'reads' })) as string[];
    expect(history.length).toBeGreaterThanOrEqual(2);
    for (const t of history) expect(new Date(t).toISOString()).toBe(t);
    const before = history[history.length - 2]!;
    expect(await peer.ok('get_state', { id: 'reads', at: before })).toMatchObject({ qty: 3, total: 6 });
    expect(await peer.ok('get_state', { id: 'reads', at: history[history.length - 1] })).toMatchObject({
      qty: 5,
      total: 10,
    });
    const tooEarly = await peer.call('get_state', { id: 'reads', at: '2000-01-01T00:00:00Z' });
    expect(tooEarly.isError).toBe(true);
    const badAt = await peer.call('get_state', { id: 'reads', at: 'yesterday' });
    expect(badAt.isError).toBe(true);
    expect(textOf(badAt)).toContain('ISO-8601');

    expect(await peer.ok('get_state', { id: 'reads', paths: ['$.total', '$.meta', '$.absent'] })).toEqual({
      total: 10,
      meta: { tags: ['a', 'b'] },
    });
    expect(await peer.ok('get_state', { id: 'reads', depth: 1 })).toEqual({
      price: 2,
      qty: 5,
      meta: '<object: 1 fields>',
      total: 10,
    });
    expect(await peer.ok('get_state', { id: 'reads', paths: ['$.meta'], depth: 1 })).toEqual({
      meta: '<object: 1 fields>',
    });
    const collapsed = await peer.call('get_state', { id: 'reads', depth: 0 });
    expect(collapsed.structuredContent).toBeUndefined();
    expect(jsonOf(collapsed)).toBe('<object: 4 fields>');

    const scalar = await peer.call('get_field', { id: 'reads', path: '$.total' });
    expect(textOf(scalar)).toBe('10');
    expect(scalar.structuredContent).toBeUndefined();
    expect(await peer.ok('get_field', { id: 'reads', path: '$.meta.tags[1]' })).toBe('b');
    expect(await peer.ok('get_field', { id: 'reads', path: '$.nothing' })).toBeNull();
    expect(await peer.ok('get_field', { id: 'reads', path: '$.meta' })).toEqual({ tags: ['a', 'b'] });

    expect(await peer.ok('get_model_info', { id: 'reads' })).toEqual({
      id: 'reads',
      version: '1',
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 0,
      effectCount: 0,
      revision: 2, // two cycles committed
    });
    expect(await peer.ok('get_spec', { id: 'reads' })).toMatchObject({
      id: 'reads',
      derivations: [{ path: '$.total', expr: 'price * qty' }],
    });
    const models = await peer.call('list_models');
    expect(models.structuredContent).toBeUndefined();
    expect(jsonOf(models)).toEqual(expect.arrayContaining(['demo', 'reads']));
  });

  it('returns traces only with includeTraces; explain keeps the newest `limit` traces', async () => {
    await peer.ok('create_model', { spec: looseSpec('traced') });
    const plain = (await peer.ok('mutate', {
      id: 'traced',
      mutations: { '$.price': 1, '$.qty': 1 },
    })) as Json;
    expect(plain).not.toHaveProperty('traces');
    const traced = (await peer.ok('mutate', {
      id: 'traced',
      mutations: { '$.qty': 7 },
      includeTraces: true,
    })) as Json;
    expect(traced.traces).toEqual([
      expect.objectContaining({ targetPath: '$.total', expression: 'price * qty', result: 7 }),
    ]);

    const all = (await peer.ok('explain', { id: 'traced', path: '$.total' })) as Json[];
    expect(all.length).toBeGreaterThanOrEqual(2);
    const last = await peer.call('explain', { id: 'traced', path: '$.total', limit: 1 });
    expect(last.structuredContent).toBeUndefined();
    expect(jsonOf(last)).toEqual([expect.objectContaining({ targetPath: '$.total', result: 7 })]);
    expect(all[all.length - 1]).toEqual((jsonOf(last) as Json[])[0]);
  });

  it('get_audit filters by pathPrefix, from/to and limit; verify_audit checks the chain', async () => {
    await peer.ok('create_model', { spec: looseSpec('audited') });
    const start = new Date().toISOString();
    await peer.ok('mutate', { id: 'audited', mutations: { '$.price': 4 } });
    await peer.ok('mutate', { id: 'audited', mutations: { '$.qty': 2 } });
    await peer.ok('patch_model', { id: 'audited', patch: [{ op: 'replace', path: '/qty', value: 3 }] });

    const all = (await peer.ok('get_audit', { id: 'audited' })) as Json[];
    expect(all.map((r) => r.sequence)).toEqual([2, 1, 0]); // newest first
    expect(all[0]).toMatchObject({ modelId: 'audited', source: 'patch', mutations: { '$.qty': 3 } });
    // an agent's mutate over MCP is recorded as the agent's (issue 42)
    expect(all[2]).toMatchObject({ source: 'agent', mutations: { '$.price': 4 } });
    expect(all[1]).toMatchObject({
      source: 'agent',
      mutations: { '$.qty': 2 },
      derivedUpdated: ['$.total'],
    });

    const qty = (await peer.ok('get_audit', { id: 'audited', pathPrefix: '$.qty' })) as Json[];
    expect(qty.map((r) => r.sequence)).toEqual([2, 1]);
    expect(await peer.ok('get_audit', { id: 'audited', limit: 1 })).toEqual([all[0]]);
    expect(await peer.ok('get_audit', { id: 'audited', from: '2999-01-01T00:00:00Z' })).toEqual([]);
    expect(await peer.ok('get_audit', { id: 'audited', to: start })).toEqual([]);
    const windowed = (await peer.ok('get_audit', {
      id: 'audited',
      from: start,
      to: '2999-01-01T00:00:00Z',
      limit: 2,
    })) as Json[];
    expect(windowed.map((r) => r.sequence)).toEqual([2, 1]);
    expect((await peer.call('get_audit', { id: 'audited', from: 'not a time' })).isError).toBe(true);
    expect((await peer.call('get_audit', { id: 'audited', limit: 0 })).isError).toBe(true);

    expect(await peer.ok('verify_audit', { id: 'audited' })).toMatchObject({
      valid: true,
      recordsChecked: 3,
      firstBrokenSequence: null,
    });
  });

  it('serialises concurrent writes to one model: every cycle committed, the chain intact', async () => {
    await peer.ok('create_model', { spec: looseSpec('busy') });
    await peer.ok('create_model', { spec: looseSpec('busy2') });
    const writes = Array.from({ length: 8 }, (_, i) => [
      peer.ok('mutate', { id: 'busy', mutations: { '$.price': i, '$.qty': 2 } }),
      peer.ok('mutate', { id: 'busy2', mutations: { '$.price': i, '$.qty': 3 } }),
    ]).flat();
    const results = (await Promise.all(writes)) as Json[];
    for (const r of results) expect(r.success).toBe(true);
    for (const [id, qty] of [
      ['busy', 2],
      ['busy2', 3],
    ] as const) {
      const audit = (await peer.ok('get_audit', { id })) as Json[];
      expect(audit.map((r) => r.sequence)).toEqual(Array.from({ length: 8 }, (_, i) => 7 - i));
      expect(await peer.ok('verify_audit', { id })).toMatchObject({ valid: true, recordsChecked: 8 });
      const state = (await peer.ok('get_state', { id })) as Json;
      expect(state.qty).toBe(qty);
      expect(state.total).toBe(state.price * qty);
      // the last committed write is the one the state shows
      expect(state.price).toBe(audit[0]!.mutations['$.price']);
    }
  });

  it('snapshot and restore put the state back', async () => {
    await peer.ok('create_model', { spec: looseSpec('snap') });
    await peer.ok('mutate', { id: 'snap', mutations: { '$.price': 3, '$.qty': 3 } });
    const snap = (await peer.ok('snapshot', { id: 'snap' })) as Json;
    expect(snap).toMatchObject({ modelId: 'snap', modelVersion: '1', baseDoc: { price: 3, qty: 3 } });
    await peer.ok('mutate', { id: 'snap', mutations: { '$.qty': 100 } });
    expect(await peer.ok('get_field', { id: 'snap', path: '$.total' })).toBe(300);
    expect(await peer.ok('restore', { id: 'snap', snapshot: snap })).toMatchObject({
      restored: true,
      droppedInputs: [],
    });
    expect(await peer.ok('get_state', { id: 'snap' })).toEqual({ price: 3, qty: 3, total: 9 });
    const wrong = await peer.call('restore', { id: 'snap', snapshot: { modelId: 'someone-else' } });
    expect(wrong.isError).toBe(true);
  });

  it('evolve_spec returns the new version; a stale expectedVersion is a structured Version conflict', async () => {
    await peer.ok('create_model', { spec: looseSpec('evolving') });
    await peer.ok('mutate', { id: 'evolving', mutations: { '$.price': 5, '$.qty': 2 } });
    const evolved = await peer.ok('evolve_spec', {
      id: 'evolving',
      evolution: {
        expectedVersion: '1',
        newVersion: '2',
        upsertDerivations: [{ path: '$.double', expr: 'total * 2' }],
      },
    });
    expect(evolved).toMatchObject({ id: 'evolving', version: '2', revision: expect.any(Number) });
    expect(await peer.ok('get_state', { id: 'evolving' })).toEqual({
      price: 5,
      qty: 2,
      total: 10,
      double: 20,
    });

    const conflict = await peer.call('evolve_spec', {
      id: 'evolving',
      evolution: { expectedVersion: '1', newVersion: '3' },
    });
    expect(conflict.isError).toBe(true);
    expect(conflict.structuredContent).toEqual({
      error: 'Version conflict',
      expected: '1',
      actual: '2',
      message: expect.any(String),
    });
    expect(jsonOf(conflict)).toEqual(conflict.structuredContent);
    expect(textOf(conflict)).toBe(JSON.stringify(conflict.structuredContent, null, 2));
    expect((await peer.ok('get_model_info', { id: 'evolving' })) as Json).toMatchObject({ version: '2' });
  });

  it('delete_model removes the model', async () => {
    await peer.ok('create_model', { spec: looseSpec('doomed') });
    expect(await peer.ok('delete_model', { id: 'doomed' })).toEqual({ deleted: true });
    expect(await peer.ok('list_models')).not.toContain('doomed');
    const gone = await peer.call('get_model_info', { id: 'doomed' });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toContain('doomed');
    expect((await peer.call('delete_model', { id: 'doomed' })).isError).toBe(true);
  });

  it('patch_model, get_effective_schema, get_view, get_library on a full model; structured violations', async () => {
    await peer.ok('create_model', { spec: orderSpec('shop/order') });
    const patched = (await peer.ok('patch_model', {
      id: 'shop/order',
      patch: [{ op: 'add', path: '/items/-', value: { sku: 'A', price: 10, qty: 2 } }],
    })) as Json;
    expect(patched).toMatchObject({ success: true });
    expect(patched.derivedUpdated).toEqual(
      expect.arrayContaining(['$.items[0].lineTotal', '$.subtotal', '$.total']),
    );
    expect(patched).not.toHaveProperty('traces');
    const tracedPatch = (await peer.ok('patch_model', {
      id: 'shop/order',
      patch: [{ op: 'replace', path: '/items/0/qty', value: 3 }],
      includeTraces: true,
    })) as Json;
    expect(tracedPatch.traces.length).toBeGreaterThan(0);
    expect(await peer.ok('get_state', { id: 'shop/order', paths: ['$.items', '$.total'] })).toEqual({
      items: [{ sku: 'A', price: 10, qty: 3, lineTotal: 30 }],
      total: 30,
    });

    expect(await peer.ok('get_effective_schema', { id: 'shop/order', path: '$.items[0].qty' })).toEqual({
      type: 'integer',
      maximum: 50,
    });

    // Constraint violation (rollback): both text and structuredContent carry the shape
    const rolled = await peer.call('mutate', { id: 'shop/order', mutations: { '$.items[0].qty': 0 } });
    expect(rolled.isError).toBe(true);
    expect(rolled.structuredContent).toEqual({
      error: 'Constraint violation',
      violations: [
        {
          constraintId: 'qty-positive',
          message: 'Every line needs a quantity of at least 1',
          policy: 'rollback',
        },
      ],
    });
    expect(jsonOf(rolled)).toEqual(rolled.structuredContent);

    // Schema violation: the enum, and the live meta maximum
    const badEnum = await peer.call('mutate', {
      id: 'shop/order',
      mutations: { '$.customer.tier': 'platinum' },
    });
    expect(badEnum.isError).toBe(true);
    expect(badEnum.structuredContent).toEqual({
      error: 'Schema violation',
      violations: [
        {
          path: '$.customer.tier',
          keyword: 'enum',
          message: expect.any(String),
          expected: expect.any(Array),
          actual: 'platinum',
        },
      ],
    });
    expect(jsonOf(badEnum)).toEqual(badEnum.structuredContent);
    const overMax = await peer.call('patch_model', {
      id: 'shop/order',
      patch: [{ op: 'replace', path: '/items/0/qty', value: 51 }],
    });
    expect(overMax.structuredContent).toMatchObject({
      error: 'Schema violation',
      violations: [{ path: '$.items[0].qty', keyword: 'maximum' }],
    });
    // neither refused write changed anything
    expect(await peer.ok('get_field', { id: 'shop/order', path: '$.items[0].qty' })).toBe(3);

    // a flag constraint commits and reports
    const flagged = (await peer.ok('mutate', {
      id: 'shop/order',
      mutations: { '$.items[0].price': 3000 },
    })) as Json;
    expect(flagged.flaggedConstraints).toEqual([
      { constraintId: 'large-order', message: 'Orders above 5,000 need a review', policy: 'flag' },
    ]);

    expect(await peer.ok('get_view', { id: 'shop/order' })).toMatchObject({
      modelId: 'shop/order',
      viewId: 'main',
      components: [
        { id: 'tier', bind: '$.customer.tier', value: 'standard' },
        { id: 'total', bind: '$.total', value: 9000 },
      ],
    });
    expect((await peer.call('get_view', { id: 'shop/order', viewId: 'nope' })).isError).toBe(true);

    expect(await peer.ok('get_library', { id: 'shop/order' })).toMatchObject({
      exports: [{ name: 'money', kind: 'function', arity: 1 }],
    });
    expect((await peer.call('get_library', { id: 'demo' })).isError).toBe(true);
  });

  it('uploads and downloads blobs, with and without a referencing model', async () => {
    const data = Buffer.from('hello, blob').toString('base64');
    const ref = (await peer.ok('upload_blob', { data, mediaType: 'text/plain' })) as Json;
    expect(ref).toEqual({
      $blobId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      $mediaType: 'text/plain',
      $bytes: 11,
    });
    expect(await peer.ok('download_blob', { blobId: ref.$blobId })).toEqual({
      blobId: ref.$blobId,
      bytes: 11,
      data,
      mediaType: 'text/plain',
    });

    await peer.ok('create_model', { spec: looseSpec('blobby') });
    const unreferenced = await peer.call('download_blob', { blobId: ref.$blobId, modelId: 'blobby' });
    expect(unreferenced.isError).toBe(true);
    await peer.ok('mutate', { id: 'blobby', mutations: { '$.attachment': ref } });
    expect(await peer.ok('download_blob', { blobId: ref.$blobId, modelId: 'blobby' })).toMatchObject({
      data,
    });

    expect((await peer.call('download_blob', { blobId: 'sha256:0000' })).isError).toBe(true);
    expect((await peer.call('upload_blob', { data: 'not base64!' })).isError).toBe(true);
  });

  it('authoring tools verify without touching the registry', async () => {
    const before = await peer.ok('list_models');

    const guidance = (await peer.ok('get_domain_guidance', { topics: ['percentage', 'proration'] })) as Json;
    expect(guidance.topics).toEqual(['percentage', 'proration']);
    expect(guidance.guidance).toContain('percentage');
    const unknownTopic = await peer.call('get_domain_guidance', { topics: ['astrology'] });
    expect(unknownTopic.isError).toBe(true);
    expect(textOf(unknownTopic)).toContain('Invalid arguments');

    expect(await peer.ok('validate_spec', { spec: orderSpec('v/ok') })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
    });
    const invalid = (await peer.ok('validate_spec', {
      spec: { id: 'v/bad', schema: {}, derivations: [{ path: 'total', expr: 'price *' }] },
    })) as Json;
    expect(invalid.valid).toBe(false);
    expect(invalid.errors.length).toBeGreaterThan(0);
    for (const e of invalid.errors)
      expect(e).toEqual(expect.objectContaining({ message: expect.any(String) }));

    expect(
      await peer.ok('eval_expression', { expr: 'price * qty', input: { price: 10, qty: 3 } }),
    ).toMatchObject({
      ok: true,
      result: 30,
    });
    expect(await peer.ok('eval_expression', { expr: 'price *' })).toMatchObject({
      ok: false,
      error: 'compile',
      message: expect.stringContaining('S0207'),
    });
    const library = { define: '( $money := function($x) { $round($x, 2) }; ["money"] )' };
    expect(await peer.ok('eval_expression', { expr: '$money(1.234)', library })).toMatchObject({
      ok: true,
      result: 1.23,
    });
    expect(await peer.ok('eval_expression', { expr: '$money(1.234)' })).toMatchObject({ ok: false });
    expect(
      await peer.ok('eval_expression', {
        expr: '$money($const.rate * 2)',
        library,
        constants: { rate: 0.3333 },
      }),
    ).toMatchObject({ ok: true, result: 0.67 });

    expect(await peer.ok('test_spec', { spec: orderSpec('t/embedded') })).toMatchObject({
      total: 2,
      passed: 2,
      failed: 0,
    });
    const adHoc = (await peer.ok('test_spec', {
      spec: looseSpec('t/adhoc'),
      tests: [
        { description: 'right', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 6 } },
        { description: 'wrong', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 7 } },
      ],
    })) as Json;
    expect(adHoc).toMatchObject({ total: 2, passed: 1, failed: 1 });
    expect(adHoc.results[1]).toMatchObject({
      description: 'wrong',
      passed: false,
      failures: [{ path: '$.total', expected: 7, actual: 6 }],
    });

    expect(
      await peer.ok('dry_run', { spec: looseSpec('t/dry'), mutations: { '$.price': 2, '$.qty': 4 } }),
    ).toEqual({
      price: 2,
      qty: 4,
      total: 8,
    });

    expect(await peer.ok('list_models')).toEqual(before);
  });

  it('tool-level failures are isError results: taken id, unknown model, unknown tool, invalid arguments', async () => {
    const taken = await peer.call('create_model', { spec: DEMO });
    expect(taken.isError).toBe(true);
    expect(taken.structuredContent).toMatchObject({ error: 'Model exists', id: 'demo' });
    expect(jsonOf(taken)).toEqual(taken.structuredContent);

    const unknownModel = await peer.call('get_state', { id: 'ghost' });
    expect(unknownModel.isError).toBe(true);
    expect(textOf(unknownModel)).toBe('Model not found: ghost');
    expect((await peer.call('mutate', { id: 'ghost', mutations: { '$.a': 1 } })).isError).toBe(true);

    const unknownTool = await peer.call('x');
    expect(unknownTool.isError).toBe(true);
    expect(textOf(unknownTool)).toBe("Unknown tool: 'x'");

    for (const [name, args, needle] of [
      ['get_state', {}, 'id'],
      ['get_state', { id: 'demo', depth: -1 }, 'depth'],
      ['get_state', { id: 'demo', bogus: 1 }, 'additional'],
      ['mutate', { id: 'demo', mutations: 'price=1' }, 'mutations'],
      ['create_model', { spec: 'not an object' }, 'spec'],
    ] as const) {
      const r = await peer.call(name, args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(r)).toContain(`Invalid arguments for ${name}`);
      expect(textOf(r)).toContain(needle);
    }
    const badSpec = await peer.call('create_model', {
      spec: { id: 'broken', schema: {}, derivations: [{}] },
    });
    expect(badSpec.isError).toBe(true);
    // nothing was left behind by the failures
    expect(await peer.ok('get_state', { id: 'demo' })).toEqual({ price: 10, qty: 3, total: 30 });
    expect(await peer.ok('list_models')).not.toContain('broken');
  });

  it('withholds a result over 50,000 characters with a hint; paths and depth get under it', async () => {
    await peer.ok('create_model', { spec: { id: 'big', schema: {} } });
    const rows = Array.from({ length: 1500 }, (_, i) => ({ n: i, label: `row number ${i}` }));
    await peer.ok('mutate', { id: 'big', mutations: { '$.rows': rows, '$.title': 'big one' } });

    const full = await peer.call('get_state', { id: 'big' });
    expect(full.isError).toBe(true);
    expect(full.structuredContent).toBeUndefined();
    const note = jsonOf(full) as Json;
    expect(note).toEqual({
      error: 'Result too large',
      resultChars: expect.any(Number),
      limitChars: 50_000,
      hint: expect.stringContaining('paths'),
    });
    expect(note.resultChars).toBe(JSON.stringify({ rows, title: 'big one' }, null, 2).length);
    expect(textOf(full).length).toBeLessThan(1000);

    expect(await peer.ok('get_state', { id: 'big', paths: ['$.title'] })).toEqual({ title: 'big one' });
    expect(await peer.ok('get_state', { id: 'big', depth: 1 })).toEqual({
      rows: '<array: 1500 items>',
      title: 'big one',
    });
    expect(await peer.ok('get_field', { id: 'big', path: '$.rows[1499]' })).toEqual({
      n: 1499,
      label: 'row number 1499',
    });
    // other tools are guarded too, each with its own hint
    const audit = await peer.call('get_audit', { id: 'big' });
    expect(audit.isError).toBe(true);
    expect(jsonOf(audit)).toMatchObject({
      error: 'Result too large',
      hint: expect.stringContaining('pathPrefix'),
    });
    await peer.ok('delete_model', { id: 'big' });
    await peer.ok('create_model', {
      spec: { id: 'bigspec', schema: {}, constants: { text: 'x'.repeat(60_000) } },
    });
    const spec = await peer.call('get_spec', { id: 'bigspec' });
    expect(spec.isError).toBe(true);
    expect(jsonOf(spec)).toMatchObject({
      error: 'Result too large',
      hint: expect.stringContaining('get_model_info'),
    });
    expect(await peer.ok('get_model_info', { id: 'bigspec' })).toMatchObject({ id: 'bigspec' });
    const dry = await peer.call('dry_run', {
      spec: { id: 'dry', schema: {} },
      mutations: { '$.rows': rows },
    });
    expect(jsonOf(dry)).toMatchObject({
      error: 'Result too large',
      hint: expect.stringContaining('test_spec'),
    });
    await peer.ok('delete_model', { id: 'bigspec' });
  });

  it('serves resources: guides, schemas, examples, live state; unknown URIs are -32002', async () => {
    const { resources } = await peer.client.listResources();
    // the SDK client sends no extensions map, so it is offered the model card too (docs/cards.md);
    // the default server also lists synth's guides (synth://…), which test/synth-mcp covers
    expect(
      resources
        .map((r) => r.uri)
        .filter((u) => u.startsWith('valem://') || u.startsWith('ui://'))
        .sort(),
    ).toEqual([
      'ui://valem/model-card.html',
      'valem://guide/jsonata-gotchas',
      'valem://guide/model-spec-format',
      'valem://guide/spec-evolution',
      'valem://guide/view-system',
      'valem://schema/model-spec',
      'valem://schema/spec-evolution',
    ]);
    for (const r of resources)
      expect(r.mimeType).toBe(
        r.uri.startsWith('ui://')
          ? 'text/html;profile=mcp-app'
          : r.uri.includes('/guide/')
            ? 'text/markdown'
            : 'application/json',
      );

    const { resourceTemplates } = await peer.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'valem://examples/{name}',
      'valem://state/{modelId}',
    ]);

    const guide = await peer.client.readResource({ uri: 'valem://guide/jsonata-gotchas' });
    expect(guide.contents).toEqual([
      { uri: 'valem://guide/jsonata-gotchas', mimeType: 'text/markdown', text: expect.stringMatching(/^# /) },
    ]);
    for (const uri of ['valem://schema/model-spec', 'valem://schema/spec-evolution']) {
      const schema = JSON.parse(((await peer.client.readResource({ uri })).contents[0] as Json).text);
      expect(schema.type, uri).toBe('object');
      expect(schema.properties, uri).toBeTypeOf('object');
    }
    const example = await peer.client.readResource({ uri: 'valem://examples/car-loan-calculator' });
    const exampleSpec = JSON.parse((example.contents[0] as Json).text);
    expect(exampleSpec.id).toBe('car-loan-calculator');
    expect(await peer.ok('validate_spec', { spec: exampleSpec })).toMatchObject({ valid: true });

    const state = await peer.client.readResource({ uri: 'valem://state/demo' });
    expect(state.contents[0]).toMatchObject({ uri: 'valem://state/demo', mimeType: 'application/json' });
    expect(JSON.parse((state.contents[0] as Json).text)).toEqual(await peer.ok('get_state', { id: 'demo' }));
    await peer.ok('create_model', { spec: looseSpec('acme.eu/quote') });
    await peer.ok('mutate', { id: 'acme.eu/quote', mutations: { '$.price': 1, '$.qty': 2 } });
    for (const uri of ['valem://state/acme.eu%2Fquote', 'valem://state/acme.eu/quote']) {
      const namespaced = await peer.client.readResource({ uri });
      expect(JSON.parse((namespaced.contents[0] as Json).text), uri).toEqual({ price: 1, qty: 2, total: 2 });
    }

    for (const uri of [
      'valem://guide/nope',
      'valem://examples/nope',
      'valem://state/ghost',
      'valem://schema/nope',
      'https://example.com/',
    ]) {
      const err = await peer.client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e,
      );
      // the v2 client files the wire's -32002 (error-text.test.ts reads the bytes) under this class
      expect(err, uri).toBeInstanceOf(ResourceNotFoundError);
      expect((err as ProtocolError).data, uri).toEqual({ uri });
    }
  });

  it('pushes notifications/resources/updated for a subscribed model until unsubscribed', async () => {
    await s.pushReady;
    const updates: string[] = [];
    // the next notification for a URI, awaited as it arrives (bounded, so a missing one names itself)
    const waiting = new Map<string, () => void>();
    peer.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
      waiting.get(n.params.uri)?.();
      waiting.delete(n.params.uri);
    });
    const next = (uri: string) =>
      within(
        10_000,
        `resources/updated for ${uri} (got ${JSON.stringify(updates)})`,
        new Promise<void>((resolve) => waiting.set(uri, resolve)),
      );

    // a malformed escape is no model: accepted like any other non-state URI, not an internal error
    expect(await peer.client.subscribeResource({ uri: 'valem://state/%E0%A4%A' })).toEqual({});
    await peer.client.subscribeResource({ uri: 'valem://state/demo' });
    let arrived = next('valem://state/demo');
    await peer.ok('mutate', { id: 'demo', mutations: { '$.qty': 4 } });
    await arrived;
    expect(updates).toEqual(['valem://state/demo']);
    // a refused write commits nothing and pushes nothing; a patch and a restore do push
    expect((await peer.call('mutate', { id: 'demo', mutations: { '$.total': 1 } })).isError).toBe(true);
    arrived = next('valem://state/demo');
    await peer.ok('patch_model', { id: 'demo', patch: [{ op: 'replace', path: '/qty', value: 3 }] });
    await arrived;
    expect(updates).toEqual(['valem://state/demo', 'valem://state/demo']);

    // another client's write reaches this subscriber too (HTTP: a second session on the same server)
    if (s.second) {
      const other = await s.second();
      arrived = next('valem://state/demo');
      // a new value: a write of the value already there changes nothing and pushes nothing
      await other.ok('mutate', { id: 'demo', mutations: { '$.price': 11 } });
      await arrived;
      expect(updates).toHaveLength(3);
    }
    const count = updates.length;

    await peer.client.unsubscribeResource({ uri: 'valem://state/demo' });
    await peer.ok('mutate', { id: 'demo', mutations: { '$.qty': 5 } });
    // a later push on the same channel proves the earlier write had its chance to push
    await peer.ok('create_model', { spec: looseSpec('sentinel') });
    await peer.client.subscribeResource({ uri: 'valem://state/sentinel' });
    arrived = next('valem://state/sentinel');
    await peer.ok('mutate', { id: 'sentinel', mutations: { '$.qty': 1 } });
    await arrived;
    expect(updates.slice(count)).toEqual(['valem://state/sentinel']);
    await peer.client.unsubscribeResource({ uri: 'valem://state/sentinel' });
    await peer.ok('mutate', { id: 'demo', mutations: { '$.qty': 3 } });
    const end = (await peer.ok('get_state', { id: 'demo' })) as Json;
    expect(end).toMatchObject({ qty: 3, total: end.price * 3 });
  });
});
