import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/errors.js';
import { compileModel } from '../../src/calc/program.js';
import { normalizeSpec } from '../../src/calc/spec.js';
import { compile, live, spec } from './helpers/model.js';

async function compileError(raw: Record<string, unknown>): Promise<CalcError> {
  const { spec: s } = normalizeSpec(spec(raw));
  let caught: unknown;
  try {
    await compileModel(s);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(CalcError);
  return caught as CalcError;
}

describe('levels and ordering (calc-spec §4 "Levels")', () => {
  it('assigns depth = 1 + max depth of what a node reads', async () => {
    const model = await compile({
      derivations: [
        { path: '$.d', expr: 'c + b' }, // 0: reads c (depth 1) and b (depth 0) → 2
        { path: '$.c', expr: 'b + 1' }, // 1 → 1
        { path: '$.b', expr: 'a * 2' }, // 2 → 0
        { path: '$.e', expr: 'a - 1' }, // 3 → 0
      ],
    });
    expect(model.graph.depth.slice(0, 4)).toEqual([2, 1, 0, 0]);
    expect(model.graph.derivationOrder).toEqual([2, 3, 1, 0]);
  });

  it('orders plain targets before [*] targets within a level, then spec order', async () => {
    const model = await compile({
      derivations: [
        { path: '$.items[*].t', expr: '$parent.p * 2' }, // 0, level 0, wildcard
        { path: '$.x', expr: 'a' }, // 1, level 0
        { path: '$.y', expr: 'a' }, // 2, level 0
        { path: '$.sum', expr: '$sum(items.t)' }, // 3, level 1
      ],
    });
    expect(model.graph.derivationOrder).toEqual([1, 2, 0, 3]);
  });

  it('exposes levels in graphJson with base inputs at level 0', async () => {
    const model = await compile({
      derivations: [
        { path: '$.c', expr: 'b + 1' },
        { path: '$.b', expr: 'a * 2' },
      ],
    });
    const json = model.graphJson();
    expect(json.nodes.find((n) => n.key === '$.a')?.kind).toBe('BASE');
    expect(json.edges).toContainEqual({ from: '$.a', to: '$.b' });
    expect(json.edges).toContainEqual({ from: '$.b', to: '$.c' });
    const levelOf = (key: string): number => json.levels.findIndex((l) => l.includes(key));
    expect(levelOf('$.a')).toBeLessThan(levelOf('$.b'));
    expect(levelOf('$.b')).toBeLessThan(levelOf('$.c'));
  });
});

describe('target indexes', () => {
  // the graph keeps one trie of targets when every target is a plain derivation's (graph.ts); a
  // meta's target is indexed for writes but is never a value another rule reads
  it('a meta on a field a rule reads is no predecessor of that rule', async () => {
    const model = await compile({
      derivations: [
        { path: '$.x', expr: 'a * 2' }, // 0: depth 0
        { path: '$.y', expr: 'x + 1' }, // 1: reads the derived x → depth 1
        { path: '$.z', expr: 'w + 1' }, // 2: reads w, which only a meta targets → depth 0
      ],
      metaDerivations: [{ path: '$.w', property: 'maximum', expr: 'a' }],
    });
    expect(model.graph.depth.slice(0, 3)).toEqual([0, 1, 0]);
    const meta = model.graph.nodes.findIndex((n) => n.kind === 'META');
    expect(model.graph.dependents[meta]).toEqual([]);
    expect(model.graph.dirtyFor(['w']).derivations).toEqual([2]);
    expect(model.graph.dirtyFor(['w']).metas).toEqual([meta]);
  });
});

describe('cycles (calc-spec §2 validator, §4)', () => {
  it('rejects a two-node cycle, naming both nodes', async () => {
    const err = await compileError({
      derivations: [
        { path: '$.a', expr: 'b + 1' },
        { path: '$.b', expr: 'a + 1' },
      ],
    });
    expect(err.code).toBe('SPEC_INVALID');
    expect(err.message).toContain('Cyclic dependency detected among nodes');
    expect(err.message).toContain('$.a');
    expect(err.message).toContain('$.b');
  });

  it('names only the nodes on the loop, not those downstream of it', async () => {
    const err = await compileError({
      derivations: [
        { path: '$.a', expr: 'c + 1' },
        { path: '$.b', expr: 'a + 1' },
        { path: '$.c', expr: 'b + 1' },
        { path: '$.after', expr: 'c * 2' },
      ],
    });
    expect(err.message).toMatch(/Cyclic dependency detected among nodes: \[.*\]/);
    for (const n of ['$.a', '$.b', '$.c']) expect(err.message).toContain(n);
    expect(err.message).not.toContain('$.after');
  });

  it('rejects a self-reading derivation', async () => {
    const err = await compileError({ derivations: [{ path: '$.a', expr: 'a + 1' }] });
    expect(err.message).toContain('Cyclic dependency detected among nodes');
    expect(err.message).toContain('$.a');
  });

  it('a cycle through a [*] target and an aggregate is detected', async () => {
    const err = await compileError({
      derivations: [
        { path: '$.items[*].share', expr: '$parent.v / total' },
        { path: '$.total', expr: '$sum(items.share)' },
      ],
    });
    expect(err.message).toContain('Cyclic dependency detected among nodes');
    expect(err.message).toContain('$.total');
    expect(err.message).toContain('$.items[*].share');
  });
});

describe('false loops are not cycles (calc-spec §4: never an edge only because of a prefix)', () => {
  it('$count(items) read by $.items[*].rank compiles and computes', async () => {
    const { runtime, model } = await live({
      derivations: [{ path: '$.items[*].rank', expr: '$count(items) - $parent.pos' }],
    });
    expect(model.graph.cycle).toEqual([]);
    await runtime.mutate({ '$.items': [{ pos: 0 }, { pos: 1 }, { pos: 2 }] });
    expect(await runtime.getValue('$.items[0].rank')).toBe(3);
    expect(await runtime.getValue('$.items[2].rank')).toBe(1);
  });

  it('a total of $count(items) read by $.items[*].share compiles and orders the total first', async () => {
    const { runtime, model } = await live({
      derivations: [
        { path: '$.items[*].share', expr: '$parent.v / n' },
        { path: '$.n', expr: '$count(items)' },
      ],
    });
    expect(model.graph.derivationOrder).toEqual([1, 0]);
    const r = await runtime.mutate({ '$.items': [{ v: 2 }, { v: 6 }] });
    expect(r.derivedUpdated).toEqual(['$.n', '$.items[0].share', '$.items[1].share']);
    expect(await runtime.getValue('$.items[1].share')).toBe(3);
    const r2 = await runtime.mutate({ '$.items[2]': { v: 9 } });
    expect(await runtime.getValue('$.n')).toBe(3);
    expect(await runtime.getValue('$.items[2].share')).toBe(3);
    expect(r2.derivedUpdated).toEqual(['$.n', '$.items[0].share', '$.items[1].share', '$.items[2].share']);
  });
});

describe('dirtyFor', () => {
  it('marks transitive dependents only', async () => {
    const model = await compile({
      derivations: [
        { path: '$.b', expr: 'a + 1' },
        { path: '$.c', expr: 'b + 1' },
        { path: '$.y', expr: 'x + 1' },
      ],
      constraints: [{ id: 'pos', expr: 'c > 0', message: 'c must be positive', policy: 'flag' }],
    });
    const dirty = model.graph.dirtyFor(['a']);
    expect(dirty.derivations).toEqual([0, 1]);
    expect(dirty.constraints).toEqual([3]);
    expect(model.graph.dirtyFor(['x']).derivations).toEqual([2]);
    expect(model.graph.dirtyFor(['unrelated']).derivations).toEqual([]);
  });

  it('an ancestor write reaches dependencies inside it; a sibling does not', async () => {
    const model = await compile({ derivations: [{ path: '$.t', expr: 'a.b * 2' }] });
    expect(model.graph.dirtyFor(['a']).derivations).toEqual([0]);
    expect(model.graph.dirtyFor(['a', 'b']).derivations).toEqual([0]);
    expect(model.graph.dirtyFor(['a', 'c']).derivations).toEqual([]);
  });
});

describe('compile-time refusals', () => {
  it('a non-canonical derivation path does not compile (SPEC_INVALID)', async () => {
    const err = await compileError({ derivations: [{ path: 'items[0].x', expr: '1' }] });
    expect(err.code).toBe('SPEC_INVALID');
    expect(err.message).toContain('$.items[0].x');
  });

  it('an expression that does not compile is SPEC_INVALID', async () => {
    const err = await compileError({ derivations: [{ path: '$.x', expr: 'a +' }] });
    expect(err.code).toBe('SPEC_INVALID');
  });

  it('an unknown meta property is a shape finding', () => {
    const { findings } = normalizeSpec(
      spec({ metaDerivations: [{ path: '$.x', property: 'colour', expr: '1' }] }),
    );
    expect(findings).toEqual([expect.objectContaining({ location: 'metaDerivations[0].property' })]);
  });
});
