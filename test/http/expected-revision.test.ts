// Optimistic concurrency over REST (issue 19, point 2): GET /models/{id} answers the revision, GET
// /models/{id}/state sends it as Model-Revision, the writes take ?expectedRevision and refuse a
// stale one with 409 and the structured Version conflict body; a failed patch `test` is a 422 with
// the structured Test failed body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { looseSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let t: TestApp;
beforeAll(async () => {
  t = await testApp();
});
afterAll(async () => {
  await t.close();
});

const inject = (method: string, url: string, payload?: unknown, contentType?: string) =>
  t.app.inject({
    method: method as 'GET',
    url,
    ...(payload !== undefined ? { payload: payload as object } : {}),
    ...(contentType ? { headers: { 'content-type': contentType } } : {}),
  });
const PATCH = 'application/json-patch+json';

async function create(id: string): Promise<void> {
  expect((await inject('POST', '/models', looseSpec(id))).statusCode).toBe(201);
}

/** The state, its Model-Revision header, and the info's revision, which must agree. */
async function read(id: string): Promise<{ state: Json; revision: number }> {
  const res = await inject('GET', `/models/${id}/state`);
  expect(res.statusCode).toBe(200);
  const revision = Number(res.headers['model-revision']);
  expect((await inject('GET', `/models/${id}`)).json<Json>().revision).toBe(revision);
  return { state: res.json(), revision };
}

/** Every write route, with a body that changes the model. */
const writes: [string, string, unknown, string?][] = [
  ['mutations', 'mutations', { '$.price': 5 }],
  ['patch', 'mutations/patch', [{ op: 'add', path: '/qty', value: 4 }], PATCH],
  ['evolve', 'spec/evolve', { newVersion: '9' }],
];

describe('the revision over REST', () => {
  it('GET /models/{id} answers it; GET /state sends it as Model-Revision, also with paths/depth', async () => {
    await create('rev-read');
    expect((await inject('GET', '/models/rev-read')).json()).toEqual({
      id: 'rev-read',
      version: '1',
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 0,
      effectCount: 0,
      revision: 0,
    });
    expect(await read('rev-read')).toEqual({ state: { total: null }, revision: 0 });
    await inject('POST', '/models/rev-read/mutations', { '$.price': 2, '$.qty': 3 });
    expect(await read('rev-read')).toEqual({ state: { price: 2, qty: 3, total: 6 }, revision: 1 });
    const narrow = await inject('GET', '/models/rev-read/state?paths=total&depth=0');
    expect(narrow.headers['model-revision']).toBe('1');
    expect((await inject('GET', '/models/nope/state')).headers['model-revision']).toBeUndefined();
  });

  for (const [name, route, body, contentType] of writes) {
    it(`${name}: ?expectedRevision writes at the current revision; a stale one is 409 Version conflict`, async () => {
      const id = `rev-${name}`;
      await create(id);
      await inject('POST', `/models/${id}/mutations`, { '$.price': 1, '$.qty': 1 });
      const before = await read(id);
      const spec = (await inject('GET', `/models/${id}/spec`)).json<Json>();
      for (const stale of [0, 2, 99]) {
        const res = await inject(
          'POST',
          `/models/${id}/${route}?expectedRevision=${stale}`,
          body,
          contentType,
        );
        expect(res.statusCode).toBe(409);
        expect(res.headers['content-type']).toContain('application/json');
        expect(res.json()).toEqual({
          error: 'Version conflict',
          expected: stale,
          actual: 1,
          code: 'VERSION_CONFLICT',
          detail: expect.stringContaining(`revision 1, not ${stale}`),
        });
        // nothing changed: state, revision, spec, audit trail
        expect(await read(id)).toEqual(before);
        expect((await inject('GET', `/models/${id}/spec`)).json()).toEqual(spec);
        expect((await inject('GET', `/models/${id}/audit`)).json<Json[]>()).toHaveLength(1);
      }
      const ok = await inject('POST', `/models/${id}/${route}?expectedRevision=1`, body, contentType);
      expect(ok.statusCode).toBe(200);
      expect((await read(id)).revision).toBe(2);
      // without the parameter a write runs at any revision, as it always did
      const again = await inject('POST', `/models/${id}/mutations`, { '$.qty': 7 });
      expect(again.statusCode).toBe(200);
    });

    it(`${name}: a malformed ?expectedRevision is 400 and changes nothing`, async () => {
      const id = `rev-bad-${name}`;
      await create(id);
      for (const bad of ['-1', '1.5', 'abc', '']) {
        const res = await inject('POST', `/models/${id}/${route}?expectedRevision=${bad}`, body, contentType);
        expect(res.statusCode, bad).toBe(400);
        expect(res.json<Json>().detail).toContain('expectedRevision');
      }
      expect(await read(id)).toEqual({ state: { total: null }, revision: 0 });
    });
  }

  it('an evolution with a stale expectedVersion answers the same Version conflict shape', async () => {
    await create('rev-version');
    const res = await inject('POST', '/models/rev-version/spec/evolve', {
      expectedVersion: '0',
      newVersion: '2',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'Version conflict',
      expected: '0',
      actual: '1',
      code: 'VERSION_CONFLICT',
      detail: expect.any(String),
    });
  });
});

describe('a failed JSON Patch test over REST', () => {
  it('is 422 with the structured Test failed body; nothing is written', async () => {
    await create('rev-test');
    await inject('POST', '/models/rev-test/mutations', { '$.price': 2, '$.qty': 3 });
    const res = await inject(
      'POST',
      '/models/rev-test/mutations/patch',
      [
        { op: 'test', path: '/price', value: 2 },
        { op: 'test', path: '/qty', value: 4 },
        { op: 'replace', path: '/qty', value: 5 },
      ],
      PATCH,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: 'Test failed',
      op: 'test',
      index: 1,
      path: '/qty',
      expected: 4,
      actual: 3,
      code: 'INVALID_PATCH',
      detail: expect.stringContaining('Test failed: operation 1'),
    });
    const absent = await inject(
      'POST',
      '/models/rev-test/mutations/patch',
      [{ op: 'test', path: '/nothing', value: 1 }],
      PATCH,
    );
    expect(absent.json()).toMatchObject({
      error: 'Test failed',
      path: '/nothing',
      actual: null,
      absent: true,
    });
    expect(await read('rev-test')).toEqual({ state: { price: 2, qty: 3, total: 6 }, revision: 1 });
    // other patch refusals keep the problem shape
    const other = await inject(
      'POST',
      '/models/rev-test/mutations/patch',
      [{ op: 'remove', path: '/x' }],
      PATCH,
    );
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ status: 422, code: 'INVALID_PATCH' });
    expect(other.json()).not.toHaveProperty('error');
  });
});
