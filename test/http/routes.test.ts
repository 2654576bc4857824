// Every REST endpoint in-process (app.inject): its success and each error status it can answer.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MUTATION_QUEUE_SIZE } from '../../src/service/model-lock.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.close();
});

const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    headers,
  });

async function create(id: string): Promise<void> {
  const res = await inject('POST', '/models', orderSpec(id));
  expect(res.statusCode).toBe(201);
}

describe('models', () => {
  it('creates a model: 201, Location, and lists it', async () => {
    const res = await inject('POST', '/models', orderSpec('m-create'));
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe('/models/m-create');
    expect(res.json()).toEqual({ id: 'm-create', status: 'created' });
    expect((await inject('GET', '/models')).json()).toContain('m-create');
  });

  it('refuses a taken id with 409 and the exists body', async () => {
    await create('m-dup');
    const res = await inject('POST', '/models', orderSpec('m-dup'));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: "Model with id 'm-dup' already exists", code: 'MODEL_EXISTS' });
  });

  it('refuses an invalid spec with 422 and the validation report', async () => {
    const res = await inject('POST', '/models', { id: 'bad', version: '1', derivations: [{ path: 'x' }] });
    expect(res.statusCode).toBe(422);
    const body = res.json<Json>();
    expect(body.message).toBe('Model spec validation failed');
    expect(body.errors[0]).toHaveProperty('location');
    expect(body.errors[0]).toHaveProperty('message');
  });

  it('answers 400 for an unreadable body, and for a body that is not an object', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/models',
      payload: '{"id": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400, detail: 'Malformed or unreadable request body' });
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect((await inject('POST', '/models', [1, 2])).statusCode).toBe(400);
  });

  it('serves info, spec, lineage and library; 404 for an unknown model', async () => {
    await create('m-read');
    expect((await inject('GET', '/models/m-read')).json()).toMatchObject({ id: 'm-read', version: '1.0.0' });
    expect((await inject('GET', '/models/m-read/spec')).json()).toMatchObject({ id: 'm-read' });
    expect((await inject('GET', '/models/m-read/lineage')).json()).toEqual([]);
    expect((await inject('GET', '/models/m-read/library')).json<Json>().exports).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'money' })]),
    );
    for (const suffix of ['', '/spec', '/lineage', '/library', '/graph', '/verification', '/history']) {
      const res = await inject('GET', `/models/nope${suffix}`);
      expect(res.statusCode, suffix).toBe(404);
      expect(res.json()).toMatchObject({
        status: 404,
        detail: 'Model not found: nope',
        code: 'MODEL_NOT_FOUND',
      });
    }
  });

  it('404s the library of a model without one', async () => {
    await inject('POST', '/models', { id: 'nolib', version: '1', schema: {} });
    const res = await inject('GET', '/models/nolib/library');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'LIBRARY_NOT_FOUND' });
  });

  it('deletes with 204, then 404', async () => {
    await create('m-del');
    expect((await inject('DELETE', '/models/m-del')).statusCode).toBe(204);
    expect((await inject('DELETE', '/models/m-del')).statusCode).toBe(404);
  });

  it('deletes when the client sends a JSON content type and no body (no 400)', async () => {
    await create('m-del-json');
    const json = { 'content-type': 'application/json' };
    expect((await inject('DELETE', '/models/m-del-json', undefined, json)).statusCode).toBe(204);
    expect((await inject('DELETE', '/models/m-del-json', undefined, json)).statusCode).toBe(404);
    // a POST with a JSON content type and no body is still refused in our words
    const post = await inject('POST', '/models', undefined, json);
    expect(post.statusCode).toBe(400);
    expect(post.json()).toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('mutations', () => {
  beforeAll(() => create('m-mut'));

  it('runs a cycle and answers the mutation result, with traces unless ?traces=false', async () => {
    const res = await inject('POST', '/models/m-mut/mutations', {
      '$.items[0].price': 10,
      '$.items[0].qty': 2,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, derivedUpdated: expect.arrayContaining(['$.total']) });
    expect(res.json<Json>().traces.length).toBeGreaterThan(0);
    const lean = await inject('POST', '/models/m-mut/mutations?traces=false', { '$.items[0].qty': 3 });
    expect(lean.json()).not.toHaveProperty('traces');
  });

  it('adds the changed components of the view named by X-View', async () => {
    const res = await inject(
      'POST',
      '/models/m-mut/mutations',
      { '$.customer.tier': 'gold' },
      { 'x-view': 'main' },
    );
    expect(res.statusCode).toBe(200);
    const delta = res.json<Json>().viewDelta;
    expect(Object.keys(delta).sort()).toEqual(['tier', 'total']);
    expect(delta.tier).toMatchObject({ bind: '$.customer.tier', value: 'gold' });
    const unknown = await inject(
      'POST',
      '/models/m-mut/mutations',
      { '$.customer.tier': 'standard' },
      { 'x-view': 'nope' },
    );
    expect(unknown.statusCode).toBe(404);
    expect((await inject('GET', '/models/m-mut/state/customer.tier')).json()).toBe('gold'); // nothing written
  });

  it('answers 422 Schema violation, 409 Constraint violation, 400 derived write, 422 index limit', async () => {
    const schema = await inject('POST', '/models/m-mut/mutations', { '$.items[0].price': -1 });
    expect(schema.statusCode).toBe(422);
    expect(schema.json()).toMatchObject({
      error: 'Schema violation',
      violations: [expect.objectContaining({ path: expect.any(String) })],
    });
    const rollback = await inject('POST', '/models/m-mut/mutations', { '$.items[0].qty': 0 });
    expect(rollback.statusCode).toBe(409);
    expect(rollback.json()).toMatchObject({
      error: 'Constraint violation',
      violations: [expect.objectContaining({ constraintId: 'qty-positive' })],
    });
    await inject('POST', '/models', {
      id: 'm-loose',
      version: '1',
      schema: {},
      derivations: [{ path: '$.total', expr: 'price * qty' }],
    });
    const derived = await inject('POST', '/models/m-loose/mutations', { '$.total': 1 });
    expect(derived.statusCode).toBe(400);
    expect(derived.json()).toMatchObject({ code: 'DERIVED_TARGET_WRITE' });
    const index = await inject('POST', '/models/m-mut/mutations', { '$.items[2000000].qty': 1 });
    expect(index.statusCode).toBe(422);
    expect(index.json()).toMatchObject({ code: 'INDEX_LIMIT' });
    expect((await inject('POST', '/models/nope/mutations', { '$.a': 1 })).statusCode).toBe(404);
  });

  it('applies a JSON Patch sent as application/json-patch+json; 422 for a bad patch', async () => {
    const patch = (ops: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/models/m-mut/mutations/patch',
        payload: JSON.stringify(ops),
        headers: { 'content-type': 'application/json-patch+json' },
      });
    const ok = await patch([{ op: 'add', path: '/items/-', value: { sku: 'b', price: 5, qty: 1 } }]);
    expect(ok.statusCode).toBe(200);
    expect((await inject('GET', '/models/m-mut/state/items')).json<Json[]>()).toHaveLength(2);
    const bad = await patch([{ op: 'remove', path: '/items/9' }]);
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'INVALID_PATCH' });
    expect((await patch({ op: 'add' })).statusCode).toBe(400);
  });

  it('answers 429 when the model queue is full', async () => {
    // a store whose commits wait at a gate: the first write holds the model's queue until it opens
    let open!: () => void;
    let gate: Promise<void> = Promise.resolve();
    class GatedStore extends MemoryStore {
      override async commitCycle(...args: Parameters<MemoryStore['commitCycle']>): Promise<boolean> {
        await gate;
        return super.commitCycle(...args);
      }
    }
    const calc = new CalcService(new GatedStore());
    const app = await buildApp({ calc });
    try {
      await calc.createModel({ id: 'q', version: '1', schema: {} });
      gate = new Promise((resolve) => (open = resolve));
      let answered = 0;
      const sent = Array.from({ length: 25 }, (_, i) =>
        app
          .inject({ method: 'POST', url: '/models/q/mutations', payload: { '$.x': i } })
          .finally(() => answered++),
      );
      // those beyond the queue's capacity are answered while the first still waits at the gate
      await vi.waitFor(() => expect(answered).toBe(25 - MUTATION_QUEUE_SIZE), { timeout: 10_000 });
      open();
      const results = await Promise.all(sent);
      const busy = results.filter((r) => r.statusCode === 429);
      expect(busy).toHaveLength(25 - MUTATION_QUEUE_SIZE);
      expect(busy[0]!.json()).toMatchObject({ status: 429, code: 'BUSY' });
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(MUTATION_QUEUE_SIZE);
    } finally {
      await app.close();
      await calc.close();
    }
  });
});

describe('reads', () => {
  beforeAll(async () => {
    await create('m-read2');
    await inject('POST', '/models/m-read2/mutations', { '$.items[0].price': 10, '$.items[0].qty': 2 });
  });

  it('serves state, projected state, a field, and 404 for a missing field', async () => {
    expect((await inject('GET', '/models/m-read2/state')).json()).toMatchObject({ total: 20 });
    expect((await inject('GET', '/models/m-read2/state?paths=total&depth=1')).json()).toEqual({ total: 20 });
    expect((await inject('GET', '/models/m-read2/state/%24.total')).json()).toBe(20);
    expect((await inject('GET', '/models/m-read2/state/items.0.lineTotal')).json()).toBe(20);
    const tier = await inject('GET', '/models/m-read2/state/customer.tier');
    expect(tier.headers['content-type']).toContain('application/json');
    expect(tier.json()).toBe('standard');
    const missing = await inject('GET', '/models/m-read2/state/nothing.here');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'PATH_NOT_FOUND' });
  });

  it('reads state at a time from history; 400 bad at; 404 before any history', async () => {
    const history = (await inject('GET', '/models/m-read2/history')).json<string[]>();
    expect(history.length).toBeGreaterThan(0);
    const at = await inject('GET', `/models/m-read2/state?at=${encodeURIComponent(history.at(-1)!)}`);
    expect(at.statusCode).toBe(200);
    expect(at.json()).toMatchObject({ total: 20 });
    expect((await inject('GET', '/models/m-read2/state?at=yesterday')).statusCode).toBe(400);
    const early = await inject('GET', '/models/m-read2/state?at=2001-01-01T00:00:00Z');
    expect(early.statusCode).toBe(404);
    expect(early.json()).toMatchObject({ code: 'HISTORY_NOT_FOUND' });
  });

  it('serves the effective schema ({} when unknown), explain, graph and verification', async () => {
    expect((await inject('GET', '/models/m-read2/schema/items%5B0%5D.qty')).json()).toMatchObject({
      maximum: 50,
    });
    expect((await inject('GET', '/models/m-read2/schema/unknown')).json()).toEqual({});
    const traces = (await inject('GET', '/models/m-read2/explain/%24.total?limit=1')).json<Json[]>();
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({ targetPath: '$.total' });
    expect((await inject('GET', '/models/m-read2/explain/%24constraint%3Aqty-positive')).statusCode).toBe(
      200,
    );
    const graph = (await inject('GET', '/models/m-read2/graph')).json<Json>();
    expect(graph.modelId).toBe('m-read2');
    expect(graph.nodes.map((n: Json) => n.kind)).toEqual(
      expect.arrayContaining(['DERIVED', 'CONSTRAINT', 'META']),
    );
    expect(graph.edges.length).toBeGreaterThan(0);
    const report = (await inject('GET', '/models/m-read2/verification')).json<Json>();
    expect(report).toMatchObject({ modelId: 'm-read2', state: 'green', checkedCount: 2, passedCount: 2 });
  });

  it('serves views; 404 for an unknown view', async () => {
    expect((await inject('GET', '/models/m-read2/view')).json()).toMatchObject({ viewId: 'main' });
    expect((await inject('GET', '/models/m-read2/view/main')).json<Json>().components.length).toBe(2);
    const res = await inject('GET', '/models/m-read2/view/other');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'VIEW_NOT_FOUND' });
  });
});

describe('audit, snapshot, restore, evolve', () => {
  beforeAll(async () => {
    await create('m-life');
    await inject('POST', '/models/m-life/mutations', { '$.items[0].price': 10 });
  });

  it('serves the audit trail, filtered, and verifies it; 400 {error} for a bad timestamp', async () => {
    const records = (await inject('GET', '/models/m-life/audit?path=%24.items&limit=5')).json<Json[]>();
    expect(records.length).toBe(1);
    expect(records[0]).toMatchObject({ modelId: 'm-life', sequence: 0 });
    const bad = await inject('GET', '/models/m-life/audit?from=soon');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Invalid ISO-8601 timestamp: soon' });
    expect((await inject('GET', '/models/m-life/audit/verify')).json()).toMatchObject({
      valid: true,
      recordsChecked: 1,
    });
    expect((await inject('GET', '/models/nope/audit/verify')).statusCode).toBe(404);
  });

  it('snapshots and restores (200 with the report); 422 for a snapshot that breaks the schema', async () => {
    const snap = (await inject('POST', '/models/m-life/snapshot')).json<Json>();
    expect(snap).toMatchObject({ modelId: 'm-life' });
    await inject('POST', '/models/m-life/mutations', { '$.items[0].price': 99 });
    const restored = await inject('POST', '/models/m-life/restore', snap);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ restored: true, droppedInputs: [], warnings: [] });
    expect((await inject('GET', '/models/m-life/state/%24.items[0].price')).json()).toBe(10);
    const broken = { ...snap, baseDoc: { items: [{ price: -5 }] } };
    expect((await inject('POST', '/models/m-life/restore', broken)).statusCode).toBe(422);
    expect((await inject('POST', '/models/nope/snapshot')).statusCode).toBe(404);
  });

  it('evolves the spec; 409 on a stale expectedVersion; 422 for an invalid evolution', async () => {
    const ok = await inject('POST', '/models/m-life/spec/evolve', {
      expectedVersion: '1.0.0',
      newVersion: '1.1.0',
      upsertDerivations: [{ path: '$.double', expr: 'total * 2' }],
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ id: 'm-life', version: '1.1.0', revision: expect.any(Number) });
    const stale = await inject('POST', '/models/m-life/spec/evolve', {
      expectedVersion: '1.0.0',
      newVersion: '2',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'VERSION_CONFLICT', expected: '1.0.0', actual: '1.1.0' });
    const invalid = await inject('POST', '/models/m-life/spec/evolve', {
      newVersion: '1.2.0',
      upsertDerivations: [{ path: '$.bad', expr: '(' }],
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({ code: 'EVOLUTION_INVALID' });
  });
});

describe('blobs', () => {
  const upload = (bytes: Buffer, mediaType?: string) => {
    const boundary = '----modelworks';
    const parts = [
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ];
    const tail = mediaType
      ? `\r\n--${boundary}\r\nContent-Disposition: form-data; name="mediaType"\r\n\r\n${mediaType}\r\n--${boundary}--\r\n`
      : `\r\n--${boundary}--\r\n`;
    return t.app.inject({
      method: 'POST',
      url: '/blobs',
      payload: Buffer.concat([Buffer.from(parts[0]!), bytes, Buffer.from(tail)]),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  };

  it('uploads (201), downloads, and guards the model form by reference', async () => {
    const res = await upload(Buffer.from('hello blob'), 'text/plain');
    expect(res.statusCode).toBe(201);
    const ref = res.json<Json>();
    expect(ref).toMatchObject({ $mediaType: 'text/plain', $bytes: 10 });
    expect(ref.$blobId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const down = await inject('GET', `/blobs/${ref.$blobId}`);
    expect(down.statusCode).toBe(200);
    expect(down.headers['content-type']).toContain('text/plain');
    expect(down.body).toBe('hello blob');
    await create('m-blob');
    expect((await inject('GET', `/models/m-blob/blobs/${ref.$blobId}`)).statusCode).toBe(404);
    await inject('POST', '/models/m-blob/mutations', { '$.attachment': ref });
    expect((await inject('GET', `/models/m-blob/blobs/${ref.$blobId}`)).body).toBe('hello blob');
    expect((await inject('GET', `/blobs/sha256:${'0'.repeat(64)}`)).statusCode).toBe(404);
  });

  it('answers 400 without multipart, 413 over the size limit', async () => {
    expect((await inject('POST', '/blobs', { data: 'x' })).statusCode).toBe(400);
    const big = await upload(Buffer.alloc(50 * 1024 * 1024 + 1));
    expect(big.statusCode).toBe(413);
  });

  it('reports orphan collection as unsupported; apply is 403 without a key', async () => {
    expect((await inject('POST', '/admin/blobs/gc')).json()).toMatchObject({ supported: false });
    expect((await inject('POST', '/admin/blobs/gc?apply=true')).statusCode).toBe(403);
  });
});

describe('health and unknown routes', () => {
  it('answers health and info; 404 problem for an unknown route', async () => {
    expect((await inject('GET', '/health')).json()).toEqual({ status: 'UP' });
    expect((await inject('GET', '/actuator/health')).json()).toEqual({ status: 'UP' });
    expect((await inject('GET', '/actuator/info')).json()).toMatchObject({ name: 'modelworks' });
    const res = await inject('GET', '/nowhere');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404 });
  });

  it('answers 413 for a JSON body over the limit', async () => {
    const res = await inject('POST', '/models', { id: 'x', pad: 'x'.repeat(5 * 1024 * 1024) });
    expect(res.statusCode).toBe(413);
  });
});
