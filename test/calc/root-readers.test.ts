import { describe, expect, it } from 'vitest';
import { formatPath } from '../../src/calc/address.js';
import { extractDependencies, type ExtractOptions } from '../../src/calc/dependencies.js';
import { mustCompile } from '../../src/calc/expression.js';
import { live } from './helpers/model.js';

/**
 * Issue 19: a derivation that reads the whole document (`$count($keys($))`, `$`, `$$`) recorded no
 * input, so no write ever re-derived it. Each form below must follow a later write.
 */

function deps(text: string, options: ExtractOptions = {}): string[] {
  return extractDependencies(mustCompile(text).ast, options)
    .map((p) => formatPath(p))
    .sort();
}

describe('a derivation reading the whole root is re-derived after a write (issue 19)', () => {
  // each reads the document root in its own way; `a` is written after creation
  it.each<[string, string, unknown, unknown]>([
    // [expression, what it computes from, value at creation, value after writing $.a = 5]
    // at creation the root is empty; afterwards it holds `a`, never the rule's own value `r` (issue 38)
    ['$count($keys($))', 'the keys of the root', 0, 1],
    ['$count($keys($$))', 'the keys of the input, spelt $$', 0, 1],
    ['$lookup($, "a")', '$lookup on the root', null, 5],
    ['$count($spread($))', '$spread of the root', 0, 1],
    ['$count($each($, function($v, $k){ $k }))', '$each over the root', 0, 1],
    ['$contains($string($), "hello")', '$string of the root', false, true],
    ['$sum(*[$type($) = "number" and $ < 100])', 'the * wildcard at the root', null, 5],
    ['$sum(**[$type($) = "number" and $ < 100])', 'the ** descendants of the root', null, 5],
    ['$count($.*)', '$.* (every value of the root)', 0, 1],
    ['$map([1], function($v){ $$.a * $v })[0]', '$$.a inside a lambda', null, 5],
    ['$map([1], function($v){ $lookup($, "a") })[0]', '$ inside a lambda', null, 5],
    ['($doc := $; $doc.a)', '$ bound to a variable first', null, 5],
  ])('%s (%s)', async (expr, _what, atCreation, afterWrite) => {
    const { runtime } = await live({ derivations: [{ path: '$.r', expr }] });
    const written = expr.includes('hello') ? 'hello' : 5;
    expect(await runtime.getValue('$.r')).toEqual(atCreation);
    const result = await runtime.mutate({ '$.a': written });
    expect(result.derivedUpdated).toContain('$.r');
    expect(await runtime.getValue('$.r')).toEqual(afterWrite);
  });

  it('a root reader runs after every other derivation it can see, without a false cycle', async () => {
    const { runtime, model } = await live({
      derivations: [
        { path: '$.summary', expr: '$join($sort($keys($)[$ != "summary"]), ",")' },
        { path: '$.doubled', expr: 'a * 2' },
        { path: '$.items[*].t', expr: '$parent.p + 1' },
      ],
    });
    expect(model.graph.cycle).toEqual([]);
    const r = await runtime.mutate({ '$.a': 1, '$.items': [{ p: 1 }] });
    expect(r.derivedUpdated[r.derivedUpdated.length - 1]).toBe('$.summary');
    expect(await runtime.getValue('$.summary')).toBe('a,doubled,items');
  });

  it('a derivation read by a root reader may itself read the root reader (no false loop)', async () => {
    const { model, runtime } = await live({
      derivations: [
        { path: '$.n', expr: '$count($keys($))' },
        { path: '$.m', expr: 'n + 1' },
      ],
    });
    expect(model.graph.cycle).toEqual([]);
    await runtime.mutate({ '$.a': 1 });
    expect(await runtime.getValue('$.m')).toBe(Number(await runtime.getValue('$.n')) + 1);
  });

  it('the extracted pattern of a bare $ or $$ is the root', () => {
    expect(deps('$count($keys($))')).toEqual(['$']);
    expect(deps('$string($$)')).toEqual(['$']);
    expect(deps('a + $lookup($, "b")')).toEqual(['$', '$.a']);
  });
});

describe('a root reader reads what a from-scratch evaluation would (issue 38)', () => {
  const SUM = '$sum($each($, function($v){ $type($v) = "number" ? $v : 0 }))';

  it('never its own previous value: after a=1, b=5, b=6 the sum is 7 (it drifted to 14)', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.total', expr: SUM }] });
    for (const write of [{ '$.a': 1 }, { '$.b': 5 }, { '$.b': 6 }]) await runtime.mutate(write);
    expect(await runtime.getState()).toEqual({ a: 1, b: 6, total: 7 });
    await runtime.mutate({ '$.b': 6 });
    expect(await runtime.getValue('$.total')).toBe(7);
  });

  it('sees the rules before it, not those after it (which read it)', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.after', expr: 'total + 100' },
        { path: '$.total', expr: SUM },
        { path: '$.double', expr: 'a * 2' },
      ],
    });
    await runtime.mutate({ '$.a': 3 });
    await runtime.mutate({ '$.a': 4 });
    // a + double = 4 + 8; `after` (which reads total) is not part of it
    expect(await runtime.getState()).toEqual({ a: 4, after: 112, total: 12, double: 8 });
  });

  it('sees lazy rules before it as they are now, not their stale or missing cache', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.lazyDouble', expr: 'a * 2', evaluation: 'lazy' },
        { path: '$.total', expr: SUM },
      ],
    });
    await runtime.mutate({ '$.a': 1 });
    expect(await runtime.getValue('$.total')).toBe(3);
    await runtime.mutate({ '$.a': 10 });
    expect(await runtime.getValue('$.total')).toBe(30);
    expect(await runtime.getValue('$.lazyDouble')).toBe(20);
  });
});

describe('siblings: other whole-value reads that recorded nothing', () => {
  it('a bare $parent in a [*] rule reads the whole row: a write to any field of it re-derives the row', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.items[*].fields', expr: '$count($keys($parent)[$ != "fields"])' }],
    });
    await runtime.mutate({ '$.items': [{ a: 1 }, { a: 2 }] });
    expect(await runtime.getValue('$.items[1].fields')).toBe(1);
    const r = await runtime.mutate({ '$.items[1].note': 'x' });
    expect(r.derivedUpdated).toEqual(['$.items[1].fields']);
    expect(await runtime.getValue('$.items[1].fields')).toBe(2);
    expect(await runtime.getValue('$.items[0].fields')).toBe(1);
  });

  it('a bare $parent records the element pattern, read through the row', () => {
    expect(deps('$count($parent)', { parent: ['A', '*'] })).toEqual(['$.A[*]']);
    expect(deps('$string($parent)', { parent: ['A', '*'] })).toEqual(['$.A[*]']);
  });

  it('$ after a step (items.$) reads the items', async () => {
    expect(deps('$count(items.$)')).toEqual(['$.items']);
    const { runtime } = await live({ derivations: [{ path: '$.n', expr: '$count(items.$)' }] });
    await runtime.mutate({ '$.items': [1, 2] });
    await runtime.mutate({ '$.items[2]': 3 });
    expect(await runtime.getValue('$.n')).toBe(3);
  });

  it('$$ in a [*] meta is the row it runs on: a write to that row refreshes it', async () => {
    const { runtime } = await live({
      metaDerivations: [{ path: '$.items[*].qty', property: 'maximum', expr: '$$.cap' }],
    });
    await runtime.mutate({ '$.items': [{ qty: 1, cap: 5 }] });
    expect(runtime.getMeta('$.items[0].qty#maximum')).toBe(5);
    await runtime.mutate({ '$.items[0].cap': 9 });
    expect(runtime.getMeta('$.items[0].qty#maximum')).toBe(9);
  });

  it('$$ in a scoped constraint is the scoped value, and $ reads it whole', async () => {
    expect(deps('$$.min <= $$.max', { scope: ['range'] })).toEqual(['$.range.max', '$.range.min']);
    const { runtime } = await live({
      constraints: [
        {
          id: 'ordered',
          path: '$.range',
          expr: '$$.min <= $$.max',
          message: 'min above max',
          policy: 'flag',
        },
      ],
    });
    await runtime.mutate({ '$.range': { min: 1, max: 2 } });
    const r = await runtime.mutate({ '$.range.min': 3 });
    expect(r.flaggedConstraints.map((v) => v.constraintId)).toEqual(['ordered']);
  });
});
