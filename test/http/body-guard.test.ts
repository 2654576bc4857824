// The REST door refuses `__proto__` keys and runaway nesting in a JSON body; a body whose text
// shows neither (jsonTextIsSafe) is not walked again. These tests hold the text check to the walk:
// whatever the check clears, the walk finds nothing in, and the door answers the same either way.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnsafeValue, MAX_VALUE_DEPTH } from '../../src/calc/index.js';
import { jsonTextIsSafe } from '../../src/http/app.js';
import { orderSpec } from '../mcp/helpers/specs.js';
import { testApp, type TestApp } from './helpers.js';

/** `depth` arrays nested in each other around `inner`, each level also holding `filler`. */
function nested(depth: number, inner: unknown, filler: string): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [filler, value] : { k: filler, [filler]: value };
  return value;
}

/** Strings that trip a careless scanner: quotes, backslashes, brackets, escapes of `__proto__`'s letters. */
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\\"',
  '[[[[',
  ']]]]',
  '{{',
  '}}',
  '"]',
  '\\u005f',
  '__proto__',
  'plain',
  '',
);

/** Keys spelling `__proto__` with and without escapes, and harmless neighbours. */
const keyText = fc.constantFrom(
  '"__proto__"',
  '"\\u005f_proto__"',
  '"_\\u005Fproto__"',
  '"__pr\\u006fto__"',
  '"\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f"',
  '"__PROTO__"',
  '"constructor"',
  '"prototype"',
  '"proto"',
);

const texts = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
  fc
    .tuple(
      fc.integer({ min: MAX_VALUE_DEPTH - 3, max: MAX_VALUE_DEPTH + 5 }),
      tricky,
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([depth, filler, inner]) => JSON.stringify(nested(depth, inner, filler))),
  fc
    .tuple(keyText, fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: 0, max: 3 }), tricky)
    .map(([key, value, depth, filler]) => {
      const text = `{${key}: ${JSON.stringify(value) ?? 'null'}}`;
      return JSON.stringify(nested(depth, '@', filler)).replace('"@"', () => text); // a function: the text may hold $' or $&;
    }),
);

describe('jsonTextIsSafe', () => {
  it('clears no text whose parsed value the walk would refuse', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const unsafe = findUnsafeValue(JSON.parse(text));
        if (unsafe) expect(jsonTextIsSafe(text)).toBe(false);
      }),
      { numRuns: 1500 },
    );
  });

  it('clears ordinary bodies, brackets and quotes inside strings included', () => {
    expect(jsonTextIsSafe(JSON.stringify({ '$.price': 10, '$.qty': 2 }))).toBe(true);
    expect(jsonTextIsSafe(JSON.stringify({ '$.note': '['.repeat(5000), name: 'é\u0001"\\' }))).toBe(true);
    expect(jsonTextIsSafe(JSON.stringify({ constructor: { prototype: 1 }, proto: 2 }))).toBe(true);
  });

  it('stops at the same depth as the walk', () => {
    // MAX_VALUE_DEPTH + 1 containers: the innermost sits at depth MAX_VALUE_DEPTH, the last allowed
    const deepest = JSON.stringify(nested(MAX_VALUE_DEPTH + 1, 1, 'x'));
    expect(findUnsafeValue(JSON.parse(deepest))).toBeUndefined();
    expect(jsonTextIsSafe(deepest)).toBe(true);
    const tooDeep = JSON.stringify(nested(MAX_VALUE_DEPTH + 2, 1, 'x'));
    expect(findUnsafeValue(JSON.parse(tooDeep))).toMatchObject({ kind: 'too-deep' });
    expect(jsonTextIsSafe(tooDeep)).toBe(false);
  });
});

describe('the REST door', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await testApp();
    await t.calc.createModel(orderSpec('guarded'));
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (url: string, text: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload: text });

  it.each([
    ['written out', '{"$.qty": {"__proto__": {"zzz": 1}}}'],
    ['through an escape', '{"$.qty": {"\\u005f_proto__": {"zzz": 1}}}'],
    ['wholly escaped', '{"$.qty": {"\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f": 1}}'],
  ])('refuses a __proto__ key %s, naming where', async (_how, text) => {
    const res = await post('/models/guarded/mutations', text);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      error: 'Schema violation',
      code: 'SCHEMA_VIOLATION',
      violations: [{ path: 'body.$.qty.__proto__', keyword: 'forbiddenKey' }],
    });
  });

  it('refuses an escaped __proto__ in a JSON Patch body too', async () => {
    const res = await post(
      '/models/guarded/mutations/patch',
      '[{"op": "add", "path": "/qty", "value": {"\\u005f_proto__": 1}}]',
      'application/json-patch+json',
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      violations: [{ path: 'body[0].value.__proto__', keyword: 'forbiddenKey' }],
    });
  });

  it('refuses nesting past the bound, and takes brackets inside strings as text', async () => {
    const deep = await post(
      '/models/guarded/mutations',
      JSON.stringify({ '$.qty': nested(MAX_VALUE_DEPTH + 1, 1, 'x') }),
    );
    // the door's own depth limit (MODELWORKS_MAX_BODY_DEPTH, 128 by default, at most the engine's
    // 512) refuses it first, on the text, before it is parsed
    expect(deep.statusCode).toBe(413);
    expect(deep.json()).toMatchObject({ code: 'INPUT_LIMIT', limit: 'depth' });
    const text = await post('/models/guarded/mutations', JSON.stringify({ '$.note': '['.repeat(2000) }));
    expect(text.statusCode).toBe(200);
  });
});
