// Remote mode in-process: the MCP server on a CalcClient against a listening REST app. Errors keep
// the embedded mode's structured shapes; unreachable servers and wrong keys are clear tool errors.
import type { AddressInfo } from 'node:net';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from '../http/helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
}

const KEY = 'remote-key';
let t: TestApp;
let base: string;

async function mcpOn(calc: CalcClient): Promise<Client> {
  const server = createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'remote' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'remote-test', version: '1' });
  await client.connect(b);
  return client;
}
const call = async (client: Client, name: string, args: Json) =>
  (await client.callTool({ name, arguments: args })) as unknown as Result;

beforeAll(async () => {
  t = await testApp({ apiKey: KEY });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
});

describe('MCP tools through the REST client', () => {
  let client: Client;
  let remote: CalcClient;
  beforeAll(async () => {
    remote = new CalcClient({ url: base, apiKey: KEY });
    client = await mcpOn(remote);
    const created = await call(client, 'create_model', { spec: orderSpec('r1') });
    expect(created.structuredContent).toMatchObject({ id: 'r1', version: '1.0.0' });
  });
  afterAll(async () => {
    await client.close();
    await remote.close();
  });

  it('mutates and reads on the server', async () => {
    const res = await call(client, 'mutate', {
      id: 'r1',
      mutations: { '$.items[0].price': 10, '$.items[0].qty': 2 },
    });
    expect(res.structuredContent).toMatchObject({ success: true });
    expect(await t.calc.getField('r1', '$.total')).toBe(20);
    expect(
      JSON.parse((await call(client, 'get_field', { id: 'r1', path: '$.total' })).content[0]!.text),
    ).toBe(20);
    expect(
      JSON.parse((await call(client, 'get_field', { id: 'r1', path: '$.nothing' })).content[0]!.text),
    ).toBe(null);
    const state = await call(client, 'get_state', { id: 'r1', paths: ['$.total', '$.subtotal'] });
    expect(state.structuredContent).toEqual({ total: 20, subtotal: 20 });
    const traces = JSON.parse(
      (await call(client, 'explain', { id: 'r1', path: '$.total', limit: 1 })).content[0]!.text,
    );
    expect(traces).toHaveLength(1);
    const patch = await call(client, 'patch_model', {
      id: 'r1',
      patch: [{ op: 'add', path: '/items/-', value: { price: 1, qty: 1 } }],
    });
    expect(patch.isError).toBeFalsy();
    expect(await t.calc.getField('r1', '$.total')).toBe(21);
    const audit = JSON.parse((await call(client, 'get_audit', { id: 'r1', limit: 1 })).content[0]!.text);
    expect(audit[0]).toMatchObject({ modelId: 'r1', source: 'patch' });
    expect((await call(client, 'verify_audit', { id: 'r1' })).structuredContent).toMatchObject({
      valid: true,
    });
    const snap = (await call(client, 'snapshot', { id: 'r1' })).structuredContent!;
    expect((await call(client, 'restore', { id: 'r1', snapshot: snap })).structuredContent).toMatchObject({
      restored: true,
      sameSpec: true,
    });
    expect((await call(client, 'get_view', { id: 'r1' })).structuredContent).toMatchObject({
      viewId: 'main',
    });
    expect((await call(client, 'get_library', { id: 'r1' })).structuredContent!.exports).toHaveLength(1);
    const blob = (
      await call(client, 'upload_blob', {
        data: Buffer.from('hi').toString('base64'),
        mediaType: 'text/plain',
      })
    ).structuredContent!;
    const down = (await call(client, 'download_blob', { blobId: blob.$blobId })).structuredContent!;
    expect(Buffer.from(down.data as string, 'base64').toString()).toBe('hi');
    expect(down.mediaType).toContain('text/plain');
  });

  it('keeps the structured error shapes: Constraint violation, Schema violation, Version conflict', async () => {
    const rollback = await call(client, 'mutate', { id: 'r1', mutations: { '$.items[0].qty': 0 } });
    expect(rollback.isError).toBe(true);
    expect(rollback.structuredContent).toMatchObject({
      error: 'Constraint violation',
      violations: [expect.objectContaining({ constraintId: 'qty-positive', policy: 'rollback' })],
    });
    const schema = await call(client, 'mutate', { id: 'r1', mutations: { '$.items[0].price': -3 } });
    expect(schema.structuredContent).toMatchObject({
      error: 'Schema violation',
      violations: [expect.objectContaining({ keyword: 'minimum' })],
    });
    const conflict = await call(client, 'evolve_spec', {
      id: 'r1',
      evolution: { expectedVersion: '0.9', newVersion: '2' },
    });
    expect(conflict.structuredContent).toMatchObject({
      error: 'Version conflict',
      expected: '0.9',
      actual: '1.0.0',
    });
    const exists = await call(client, 'create_model', { spec: orderSpec('r1') });
    expect(exists.structuredContent).toMatchObject({ error: 'Model exists', id: 'r1' });
    const missing = await call(client, 'get_model_info', { id: 'nope' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toBe('Model not found: nope');
    const invalid = await call(client, 'create_model', {
      spec: { id: 'bad', version: '1', derivations: [{ path: 'x' }] },
    });
    expect(invalid.isError).toBe(true);
    expect(invalid.content[0]!.text).toMatch(/validation failed[\s\S]*location/);
  });

  it('runs authoring tools locally', async () => {
    const res = await call(client, 'eval_expression', { expr: '1 + 2' });
    expect(res.structuredContent).toMatchObject({ ok: true, result: 3 });
  });

  it('tells resource subscribers of changes, through the WebSocket', async () => {
    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
    );
    // the server answers the subscription once its socket to the remote is in place
    await client.subscribeResource({ uri: 'valem://state/r1' });
    await t.calc.mutate('r1', { '$.customer.tier': 'gold' });
    expect(await updated).toBe('valem://state/r1');
  });
});

describe('failures of the remote itself', () => {
  it('names the URL when the server is unreachable', async () => {
    const remote = new CalcClient({ url: 'http://127.0.0.1:9' });
    const client = await mcpOn(remote);
    const res = await call(client, 'list_models', {});
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toMatch(/cannot reach the Modelworks server at http:\/\/127\.0\.0\.1:9/);
    await client.close();
  });

  it('says 401 and names the URL for a wrong key, without echoing it', async () => {
    const remote = new CalcClient({ url: base, apiKey: 'wrong-key' });
    const client = await mcpOn(remote);
    const res = await call(client, 'get_state', { id: 'r1' });
    expect(res.isError).toBe(true);
    expect(res.content[0]!.text).toContain(`server at ${base} refused the request (401)`);
    expect(res.content[0]!.text).not.toContain('wrong-key');
    await client.close();
  });
});
