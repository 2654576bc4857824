// Issue 38 over MCP and REST: idempotency keys on mutate / patch_model / evolve_spec / restore
// (MCP `idempotencyKey`, REST `Idempotency-Key`), a committed write too large to answer that says
// it committed instead of answering an error, and restore's refusal of another model's snapshot.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { tempDbPath } from '../store/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

const ROWS = {
  id: 'rows',
  version: '1',
  schema: { type: 'object', properties: { rows: { type: 'array' } } },
  defaultValues: [{ path: '$', expr: '{"rows": []}' }],
  derivations: [{ path: '$.count', expr: '$count(rows)' }],
};

describe('over MCP', () => {
  let calc: CalcService;
  let client: Client;
  const call = async (name: string, args: Json) =>
    (await client.callTool({ name, arguments: args })) as unknown as Result;

  beforeAll(async () => {
    calc = new CalcService(new MemoryStore());
    const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    client = new Client({ name: 'idempotency-test', version: '1' });
    await client.connect(b);
  });
  afterAll(async () => {
    await client.close();
    await calc.close();
  });

  it('a write too large to answer says it committed, is not an error, and a keyed retry does not apply twice', async () => {
    await call('create_model', {
      spec: {
        ...ROWS,
        id: 'big',
        derivations: [...ROWS.derivations, { path: '$.labels', expr: 'rows.label' }],
      },
    });
    // 3000 rows already there; the answer of the next append lists every row's trace: far over 50,000 characters
    await calc.mutate('big', {
      '$.rows': Array.from({ length: 3000 }, (_, i) => ({ n: i, label: `ledger row number ${i}` })),
    });
    const append = () =>
      call('patch_model', {
        id: 'big',
        patch: [{ op: 'add', path: '/rows/-', value: { n: 3000, label: 'row 3000' } }],
        includeTraces: true,
        idempotencyKey: 'append-3000',
      });
    const first = await append();
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({
      error: 'Result too large',
      committed: true,
      revision: 2,
      limitChars: 50_000,
    });
    expect(first.structuredContent!.resultChars).toBeGreaterThan(50_000);
    expect(first.structuredContent!.hint).toMatch(/get_state/);
    expect(first.structuredContent!.counts).toMatchObject({ mutatedPaths: expect.any(Number), traces: 2 });
    expect(await calc.getField('big', '$.count')).toBe(3001);
    // the agent retries with the same key: nothing is appended again
    const retried = await append();
    expect(retried.isError).toBeFalsy();
    // an answer this large is kept as its summary (revision, counts)
    expect(retried.structuredContent).toMatchObject({ replayed: true, revision: 2, keptInFull: false });
    expect(await calc.getField('big', '$.count')).toBe(3001);
  });

  it('mutate: the same key and body replays; another body under the key is a structured refusal', async () => {
    await call('create_model', { spec: ROWS });
    const args = { id: 'rows', mutations: { '$.rows': [1, 2] }, idempotencyKey: 'k-1' };
    const first = (await call('mutate', args)).structuredContent!;
    expect(first).toMatchObject({ success: true, revision: 1 });
    expect((await call('mutate', args)).structuredContent).toEqual({ ...first, replayed: true });
    expect((await call('get_model_info', { id: 'rows' })).structuredContent!.revision).toBe(1);
    const other = await call('mutate', { ...args, mutations: { '$.rows': [9] } });
    expect(other.isError).toBe(true);
    expect(other.structuredContent).toMatchObject({ error: 'Idempotency key reused', idempotencyKey: 'k-1' });
    expect(await calc.getField('rows', '$.rows')).toEqual([1, 2]);
  });

  it('evolve_spec and restore take a key too', async () => {
    const evolve = { id: 'rows', evolution: { newVersion: '2' }, idempotencyKey: 'ev-1' };
    const first = (await call('evolve_spec', evolve)).structuredContent!;
    expect(first).toMatchObject({ version: '2' });
    expect((await call('evolve_spec', evolve)).structuredContent).toEqual({ ...first, replayed: true });
    const snap = (await call('snapshot', { id: 'rows' })).structuredContent!;
    const restore = { id: 'rows', snapshot: snap, idempotencyKey: 'r-1' };
    const restored = (await call('restore', restore)).structuredContent!;
    expect(restored).toMatchObject({ restored: true, sameSpec: true });
    expect((await call('restore', restore)).structuredContent).toEqual({ ...restored, replayed: true });
    expect((await call('get_model_info', { id: 'rows' })).structuredContent!.revision).toBe(
      restored.revision,
    );
  });

  it("restore refuses another model's snapshot with a structured error", async () => {
    await call('create_model', { spec: { ...ROWS, id: 'other' } });
    const snap = (await call('snapshot', { id: 'other' })).structuredContent!;
    const refused = await call('restore', { id: 'rows', snapshot: snap });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: 'Snapshot of another model',
      snapshotModelId: 'other',
      modelId: 'rows',
    });
  });

  it('a malformed key is refused before anything is written', async () => {
    const bad = await call('mutate', {
      id: 'rows',
      mutations: { '$.rows': [] },
      idempotencyKey: 'has space',
    });
    expect(bad.isError).toBe(true);
    expect(await calc.getField('rows', '$.rows')).toEqual([1, 2]);
  });
});

describe('over REST, with a restart of a SQLite-backed service', () => {
  it('Idempotency-Key: replayed after a restart, 422 for another body, nothing applied twice', async () => {
    const path = tempDbPath();
    const start = async () => {
      const calc = new CalcService(SqliteStore.open(path));
      const app = await buildApp({ calc });
      await app.ready();
      return { calc, app, close: async () => (await app.close(), await calc.close()) };
    };
    const post = (app: Awaited<ReturnType<typeof start>>['app'], url: string, body: unknown, key: string) =>
      app.inject({ method: 'POST', url, payload: body as object, headers: { 'idempotency-key': key } });

    const one = await start();
    await one.calc.createModel(ROWS);
    const first = await post(one.app, '/models/rows/mutations?traces=false', { '$.rows': [1] }, 'rest-1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    await one.close();

    const two = await start();
    try {
      const again = await post(two.app, '/models/rows/mutations?traces=false', { '$.rows': [1] }, 'rest-1');
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual({ ...first.json(), replayed: true });
      const other = await post(two.app, '/models/rows/mutations?traces=false', { '$.rows': [2] }, 'rest-1');
      expect(other.statusCode).toBe(422);
      expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
      expect((await two.calc.getModelInfo('rows')).revision).toBe(1);
      const patch = await two.app.inject({
        method: 'POST',
        url: '/models/rows/mutations/patch',
        payload: [{ op: 'add', path: '/rows/-', value: 2 }],
        headers: { 'idempotency-key': 'rest-2', 'content-type': 'application/json-patch+json' },
      });
      expect(patch.statusCode).toBe(200);
      const evolve = await post(two.app, '/models/rows/spec/evolve', { newVersion: '2' }, 'rest-3');
      expect(evolve.json()).toMatchObject({ version: '2', revision: 3 });
      expect(
        (await post(two.app, '/models/rows/spec/evolve', { newVersion: '2' }, 'rest-3')).json(),
      ).toMatchObject({
        replayed: true,
      });
      const snap = (await two.app.inject({ method: 'POST', url: '/models/rows/snapshot' })).json();
      await two.calc.createModel({ ...ROWS, id: 'elsewhere' });
      const foreign = await post(two.app, '/models/elsewhere/restore', snap, 'rest-4');
      expect(foreign.statusCode).toBe(409);
      expect(foreign.json()).toMatchObject({ code: 'SNAPSHOT_MODEL_MISMATCH' });
      expect(await two.calc.getState('rows')).toEqual({ rows: [1, 2], count: 2 });
    } finally {
      await two.close();
    }
  });
});
