// Optimistic concurrency over MCP (issue 19, point 2), in embedded mode (the MCP server on a
// CalcService) and remote mode (on a CalcClient against a listening REST app) alike: the revision in
// get_model_info and in get_state's _meta, expectedRevision on mutate, patch_model and evolve_spec,
// the structured Version conflict for a stale one, and the structured Test failed of a patch `test`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/index.js';
import { REVISION_META } from '../../src/mcp/calc-tools.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcClient } from '../../src/remote/calc-client.js';
import type { CalcApi } from '../../src/service/calc-api.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { testApp, type TestApp } from '../http/helpers.js';
import { looseSpec } from './helpers/specs.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Result {
  content: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
  _meta?: Json;
}

interface Mode {
  calc: CalcApi;
  close(): Promise<void>;
}

function embedded(): Promise<Mode> {
  const calc = new CalcService(new MemoryStore());
  return Promise.resolve({ calc, close: () => calc.close() });
}

async function remote(): Promise<Mode> {
  const t: TestApp = await testApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const calc = new CalcClient({ url: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` });
  return {
    calc,
    close: async () => {
      await calc.close();
      await t.close();
    },
  };
}

describe.each([
  ['embedded', embedded],
  ['remote', remote],
] as const)('expectedRevision over MCP, %s mode', (_label, setup) => {
  let mode: Mode;
  let client: Client;
  const call = async (name: string, args: Json) =>
    (await client.callTool({ name, arguments: args })) as unknown as Result;
  const revisionOf = async (id: string) =>
    (await call('get_model_info', { id })).structuredContent!.revision as number;

  beforeAll(async () => {
    mode = await setup();
    const server = createMcpServer({
      calc: mode.calc,
      guidanceTopics: [],
      groups: new Set(['calc']),
      modeLine: 'test',
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    client = new Client({ name: 'revision-test', version: '1' });
    await client.connect(b);
  });
  afterAll(async () => {
    await client.close();
    await mode.close();
  });

  it('get_model_info answers the revision; get_state carries it in _meta, the content stays the state', async () => {
    await call('create_model', { spec: looseSpec('info') });
    expect((await call('get_model_info', { id: 'info' })).structuredContent).toMatchObject({
      id: 'info',
      revision: 0,
    });
    await call('mutate', { id: 'info', mutations: { '$.price': 2, '$.qty': 3 } });
    const state = await call('get_state', { id: 'info' });
    expect(REVISION_META).toBe('modelworks/revision');
    expect(state._meta).toEqual({ [REVISION_META]: 1 });
    expect(state.structuredContent).toEqual({ price: 2, qty: 3, total: 6 });
    expect(JSON.parse(state.content[0]!.text)).toEqual({ price: 2, qty: 3, total: 6 });
    expect((await call('get_state', { id: 'info', depth: 0 }))._meta).toEqual({ [REVISION_META]: 1 });
    const missing = await call('get_state', { id: 'nope' });
    expect(missing.isError).toBe(true);
    expect(missing._meta).toBeUndefined();
    // the tool's declared output schema lists the revision
    const { tools } = await client.listTools();
    const info = tools.find((t) => t.name === 'get_model_info')!;
    expect(info.outputSchema!.properties).toHaveProperty('revision');
  });

  const writes: [string, (id: string) => Json][] = [
    ['mutate', (id) => ({ id, mutations: { '$.price': 9 } })],
    ['patch_model', (id) => ({ id, patch: [{ op: 'replace', path: '/price', value: 9 }] })],
    ['evolve_spec', (id) => ({ id, evolution: { newVersion: '2' } })],
  ];
  for (const [tool, args] of writes) {
    it(`${tool}: a stale expectedRevision is a structured Version conflict; the current one writes`, async () => {
      const id = `w-${tool}`;
      await call('create_model', { spec: looseSpec(id) });
      await call('mutate', { id, mutations: { '$.price': 1, '$.qty': 1 } });
      const before = (await call('get_state', { id })).structuredContent;
      const conflict = await call(tool, { ...args(id), expectedRevision: 0 });
      expect(conflict.isError).toBe(true);
      expect(conflict.structuredContent).toEqual({
        error: 'Version conflict',
        expected: 0,
        actual: 1,
        message: expect.stringContaining('revision 1, not 0'),
      });
      expect(JSON.parse(conflict.content[0]!.text)).toEqual(conflict.structuredContent);
      expect((await call('get_state', { id })).structuredContent).toEqual(before);
      expect(await revisionOf(id)).toBe(1);

      const ok = await call(tool, { ...args(id), expectedRevision: 1 });
      expect(ok.isError).toBeFalsy();
      expect(await revisionOf(id)).toBe(2);
      // without it, as before
      expect((await call('mutate', { id, mutations: { '$.qty': 4 } })).isError).toBeFalsy();
    });

    it(`${tool}: a malformed expectedRevision is refused and changes nothing`, async () => {
      const id = `bad-${tool}`;
      await call('create_model', { spec: looseSpec(id) });
      for (const bad of [-1, 1.5, '0', null]) {
        const res = await call(tool, { ...args(id), expectedRevision: bad });
        expect(res.isError, JSON.stringify(bad)).toBe(true);
        expect(res.content[0]!.text).toContain('expectedRevision');
      }
      expect(await revisionOf(id)).toBe(0);
    });
  }

  it('the CalcApi under the tools rejects with the same CalcErrors in both modes', async () => {
    const { calc } = mode;
    await calc.createModel(looseSpec('api'));
    await calc.mutate('api', { '$.price': 1 });
    expect(await calc.readState('api')).toEqual({ state: { price: 1, total: null }, revision: 1 });
    const stale = await calc
      .mutate('api', { '$.price': 2 }, { expectedRevision: 0 })
      .catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(CalcError);
    expect(stale).toMatchObject({ code: 'VERSION_CONFLICT', details: { expected: 0, actual: 1 } });
    expect((stale as CalcError).message).toContain('revision 1, not 0');
    for (const bad of [-1, 1.5, '3']) {
      const err = await calc
        .patchModel('api', [], { expectedRevision: bad as number })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CalcError);
      expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const test = await calc
      .patchModel('api', [{ op: 'test', path: '/price', value: 5 }])
      .catch((e: unknown) => e);
    expect(test).toMatchObject({
      code: 'INVALID_PATCH',
      details: { op: 'test', index: 0, path: '/price', expected: 5, actual: 1 },
    });
    expect((await calc.getModelInfo('api')).revision).toBe(1);
  });

  it('a failed patch test is a structured Test failed; nothing is written', async () => {
    await call('create_model', { spec: looseSpec('cas') });
    await call('mutate', { id: 'cas', mutations: { '$.price': 2, '$.qty': 3 } });
    const failed = await call('patch_model', {
      id: 'cas',
      patch: [
        { op: 'test', path: '/qty', value: 4 },
        { op: 'replace', path: '/qty', value: 5 },
      ],
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toEqual({
      error: 'Test failed',
      index: 0,
      path: '/qty',
      expected: 4,
      actual: 3,
      message: expect.stringContaining('Test failed: operation 0 expected 4 at /qty, found 3'),
    });
    const absent = await call('patch_model', { id: 'cas', patch: [{ op: 'test', path: '/x', value: 1 }] });
    expect(absent.structuredContent).toMatchObject({ error: 'Test failed', actual: null, absent: true });
    expect(await revisionOf('cas')).toBe(1);
    // the compare-and-swap that passes writes
    const swapped = await call('patch_model', {
      id: 'cas',
      patch: [
        { op: 'test', path: '/qty', value: 3 },
        { op: 'replace', path: '/qty', value: 5 },
      ],
    });
    expect(swapped.isError).toBeFalsy();
    expect((await call('get_state', { id: 'cas' })).structuredContent).toMatchObject({ qty: 5, total: 10 });
    // other patch refusals stay plain text
    const other = await call('patch_model', { id: 'cas', patch: [{ op: 'remove', path: '/nothing' }] });
    expect(other.isError).toBe(true);
    expect(other.structuredContent).toBeUndefined();
  });
});

describe('the remote client rebuilding a refusal', () => {
  it("keeps a server's fields as data: a __proto__ field stays a field, not the details' prototype", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(
        '{"error":"Version conflict","expected":1,"actual":2,"code":"VERSION_CONFLICT","detail":"stale","__proto__":{"polluted":true}}',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const calc = new CalcClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    try {
      const err = (await calc.mutate('m', {}, { expectedRevision: 1 }).catch((e: unknown) => e)) as CalcError;
      expect(err).toBeInstanceOf(CalcError);
      expect(err.code).toBe('VERSION_CONFLICT');
      expect(err.message).toBe('stale');
      expect(Object.getPrototypeOf(err.details)).toBe(Object.prototype);
      expect((err.details as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.keys(err.details).sort()).toEqual(['__proto__', 'actual', 'expected']);
    } finally {
      await calc.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
