/**
 * Named regressions of issue 17 ("No single request can hurt a shared server"), each one request
 * that used to take a shared server down or answer with the JavaScript engine's words. The synth,
 * spreadsheet and audit cases live with their engines (test/synth-mcp, test/sheet, test/store).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS } from '../../src/mcp/stdio.js';
import { RawStdio } from '../mcp/helpers/peers.js';
import { testApp, type TestApp } from '../http/helpers.js';
import { ENGINE_TEXT } from './oracle.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ORDER = {
  id: 'p1',
  version: '1.0.0',
  schema: { type: 'object', properties: { price: { type: 'number' }, qty: { type: 'number' } } },
  derivations: [{ path: '$.total', expr: 'price * qty' }],
};

const children: RawStdio[] = [];
const apps: TestApp[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.close()));
  await Promise.all(apps.map((a) => a.close()));
});

/** A stdio server child, initialised. */
async function stdioServer(): Promise<{ raw: RawStdio; call: (name: string, args: Json) => Promise<Json> }> {
  const raw = new RawStdio(['--store', 'memory']);
  children.push(raw);
  await raw.request(1, 'initialize', raw.initializeParams('2025-06-18'));
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 100;
  const call = async (name: string, args: Json): Promise<Json> =>
    ((await raw.request(++id, 'tools/call', { name, arguments: args })) as Json).result as Json;
  return { raw, call };
}

describe('MCP over stdio', () => {
  it('mutate {"$.__proto__.zzz":"yes"} is a Schema violation; ping and new models still work', async () => {
    const { raw, call } = await stdioServer();
    expect((await call('create_model', { spec: ORDER })).isError).toBeFalsy();
    const refused = await call('mutate', { id: 'p1', mutations: { '$.__proto__.zzz': 'yes' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: 'Schema violation',
      violations: [
        { path: '$.__proto__.zzz', message: expect.stringMatching(/'__proto__' cannot be used as a key/) },
      ],
    });
    // before: every later message was answered "Invalid Request" and no model could be created
    expect(((await raw.request(7, 'ping')) as Json).result).toEqual({});
    expect((await call('create_model', { spec: { ...ORDER, id: 'p2' } })).isError).toBeFalsy();
    const written = await call('mutate', { id: 'p2', mutations: { '$.price': 10, '$.qty': 3 } });
    expect(written.structuredContent).toMatchObject({ success: true, derivedUpdated: ['$.total'] });
  });

  it('a __proto__ key inside an argument is refused naming where it is', async () => {
    const { call } = await stdioServer();
    await call('create_model', { spec: ORDER });
    const value = JSON.parse('{"__proto__": {"zzz": "yes"}}') as Json;
    for (const [name, args, where] of [
      ['mutate', { id: 'p1', mutations: { '$.price': value } }, 'arguments.mutations.$.price.__proto__'],
      ['dry_run', { spec: ORDER, mutations: value }, 'arguments.mutations.__proto__'],
      ['eval_expression', { expr: 'zzz', input: value }, 'arguments.input.__proto__'],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError, name).toBe(true);
      expect(r.structuredContent, name).toMatchObject({
        error: 'Schema violation',
        violations: [{ path: where }],
      });
    }
  });

  it('a pathologically deep expression is a validation error in our words', async () => {
    const { call } = await stdioServer();
    const deep = {
      ...ORDER,
      derivations: [{ path: '$.total', expr: `${'('.repeat(5000)}1${')'.repeat(5000)}` }],
    };
    const r = await call('validate_spec', { spec: deep });
    expect(r.structuredContent).toMatchObject({
      valid: false,
      errors: [
        { location: 'derivations[0].expr', message: expect.stringMatching(/nests too deeply to compile/) },
      ],
    });
    expect(JSON.stringify(r)).not.toMatch(ENGINE_TEXT);
  });

  it('[1..10000000] is refused at once instead of costing seconds on every write', async () => {
    const { call } = await stdioServer();
    const r = await call('eval_expression', { expr: '$count([1..10000000])' });
    expect(r.structuredContent).toMatchObject({ ok: false, error: 'evaluation' });
    expect(JSON.stringify(r)).toMatch(/would exceed the limit of 1000001 elements/);
  });

  it('one over-long line gets exactly one -32700, and the session goes on', async () => {
    const { raw } = await stdioServer();
    // leading blanks keep it valid JSON: a reader that gave up on its start would answer it
    const line = `${' '.repeat(MAX_LINE_CHARS * 3)}${JSON.stringify({ jsonrpc: '2.0', id: 900, method: 'ping' })}\n`;
    for (let i = 0; i < line.length; i += 1 << 20) raw.write(Buffer.from(line.slice(i, i + (1 << 20))));
    expect(((await raw.request(8, 'ping')) as Json).result).toEqual({});
    const errors = raw.messages.filter((m) => (m as Json).error?.code === -32700);
    expect(errors).toHaveLength(1);
    expect(raw.messages.some((m) => (m as Json).id === 900)).toBe(false);
  });
});

describe('REST', () => {
  async function app(): Promise<TestApp> {
    const t = await testApp();
    apps.push(t);
    await t.calc.createModel(ORDER);
    return t;
  }

  it('POST /models/p1/mutations {"$.__proto__.zzz":"yes"} is a 422 Schema violation; the server goes on', async () => {
    const { app: server } = await app();
    const res = await server.inject({
      method: 'POST',
      url: '/models/p1/mutations',
      payload: { '$.__proto__.zzz': 'yes' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'SCHEMA_VIOLATION', violations: [{ path: '$.__proto__.zzz' }] });
    const created = await server.inject({ method: 'POST', url: '/models', payload: { ...ORDER, id: 'p2' } });
    expect(created.statusCode).toBe(201);
  });

  it('a body holding a __proto__ key is refused before any route runs, naming where', async () => {
    const { app: server, calc } = await app();
    const res = await server.inject({
      method: 'POST',
      url: '/models/p1/mutations',
      headers: { 'content-type': 'application/json' },
      payload: '{"$.price": {"__proto__": {"zzz": 1}}}',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      error: 'Schema violation',
      code: 'SCHEMA_VIOLATION',
      violations: [{ path: 'body.$.price.__proto__', keyword: 'forbiddenKey' }],
    });
    expect(await calc.getField('p1', '$.price')).toBeNull();
  });

  it('constructor and prototype are ordinary keys in a body', async () => {
    const { app: server } = await app();
    const res = await server.inject({
      method: 'POST',
      url: '/models/p1/mutations',
      payload: { '$.note': { constructor: { prototype: { zzz: 1 } } } },
    });
    expect(res.statusCode).toBe(200);
    const state = await server.inject({ method: 'GET', url: '/models/p1/state' });
    expect(state.json()).toMatchObject({ note: { constructor: { prototype: { zzz: 1 } } } });
  });
});

describe('engine text', () => {
  it('a patch copying from under a missing container is refused in our words', async () => {
    const { app: server } = await (async () => {
      const t = await testApp();
      apps.push(t);
      await t.calc.createModel(ORDER);
      return t;
    })();
    const res = await server.inject({
      method: 'POST',
      url: '/models/p1/mutations/patch',
      headers: { 'content-type': 'application/json-patch+json' },
      payload: JSON.stringify([{ op: 'copy', path: '', from: '/a/prototype/-' }]),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'INVALID_PATCH' });
    expect(res.json()).toMatchObject({
      detail: 'Invalid patch: operation 0 (copy ""): from /a/prototype/-: nothing at /a',
    });
    expect(res.body).not.toMatch(ENGINE_TEXT);
  });
});
