// Many written paths at once (a create's seeded defaults, a bulk write) are walked together
// (graph.ts `dirtyForAll`); the answer must be the merge of each path's own dirty set, which is how
// every write list was answered before: the same nodes, order and row scopes. Graphs and write
// lists are generated: plain and `[*]` rules, rules reading rows, `$index`, whole arrays, metas,
// constraints; writes of fields, rows, row fields and whole arrays.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Path } from '../../src/calc/address.js';
import type { DependencyGraph, DirtySet } from '../../src/calc/graph.js';
import { compile } from './helpers/model.js';

const FIELDS = ['a', 'b', 'c'];
const rule = fc.oneof(
  fc.tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...FIELDS)).map(([x, y]) => ({ kind: 'plain', x, y })),
  fc.constantFrom(...FIELDS).map((x) => ({ kind: 'row', x, y: '' })),
  fc.constantFrom(...FIELDS).map((x) => ({ kind: 'index', x, y: '' })),
  fc.constant({ kind: 'sum', x: '', y: '' }),
  fc.constant({ kind: 'earlier', x: '', y: '' }),
);
const write = fc.oneof(
  fc.constantFrom(...FIELDS).map((f): Path => [f]),
  fc.nat(5).map((r): Path => ['items', r]),
  fc.tuple(fc.nat(5), fc.constantFrom('p', 'q')).map(([r, f]): Path => ['items', r, f]),
  fc.constant<Path>(['items']),
  fc.nat(3).map((k): Path => [`d${k}`]),
);

type Internals = { merge(sets: DirtySet[]): DirtySet };

describe('dirty sets of a few written paths', () => {
  it('are merged once per set of writes, whatever their order', async () => {
    const model = await compile({
      derivations: [
        { path: '$.d0', expr: 'a + b' },
        { path: '$.d1', expr: 'b * c' },
        { path: '$.d2', expr: 'd0 + d1' },
      ],
    });
    const graph: DependencyGraph = model.graph;
    const expected = (graph as unknown as Internals).merge([graph.dirtyFor(['a']), graph.dirtyFor(['c'])]);
    const first = graph.dirtyForAll([['a'], ['c']]);
    expect(first.derivations).toEqual(expected.derivations);
    // the kept merge is found by the sets' numbers in order: the other order finds the same one
    expect(graph.dirtyForAll([['c'], ['a']])).toBe(first);
    expect(graph.dirtyForAll([['a'], ['c'], ['a']])).toBe(first);
  });
});

describe('dirty sets of many written paths', () => {
  it('equal the merge of each path’s own set', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rule, { minLength: 1, maxLength: 8 }),
        fc.array(write, { minLength: 1, maxLength: 12 }),
        fc.nat(70),
        async (rules, writes, extra) => {
          const derivations = rules.map((r, i) => {
            if (r.kind === 'plain') return { path: `$.d${i}`, expr: `${r.x} + ${r.y}` };
            if (r.kind === 'row') return { path: `$.items[*].r${i}`, expr: `$parent.p * ${r.x}` };
            if (r.kind === 'index') return { path: `$.items[*].r${i}`, expr: `$parent.q + $index` };
            if (r.kind === 'sum') return { path: `$.d${i}`, expr: '$sum(items.p)' };
            return { path: `$.d${i}`, expr: i > 0 ? `d${i - 1} * 2` : 'a' };
          });
          const model = await compile({
            derivations,
            metaDerivations: [{ path: '$.items[*].p', property: 'readOnly', expr: 'a > 1' }],
            constraints: [{ id: 'c1', expr: 'a >= 0', message: 'a is negative', policy: 'flag' }],
          });
          const graph: DependencyGraph = model.graph;
          // more paths than are answered set by set: the list repeated (fresh arrays) past the threshold
          const many: Path[] = [];
          while (many.length <= 64 + extra) for (const w of writes) many.push([...w]);
          const expected = (graph as unknown as Internals).merge([
            ...new Set(many.map((w) => graph.dirtyFor(w))),
          ]);
          const got = graph.dirtyForAll(many);
          expect(got.derivations).toEqual(expected.derivations);
          expect(got.metas).toEqual(expected.metas);
          expect(got.constraints).toEqual(expected.constraints);
          expect(got.effects).toEqual(expected.effects);
          expect([...got.partial].sort()).toEqual([...expected.partial].sort());
          expect(graph.dirtyForAll(many)).toBe(got); // asked again: the kept answer
        },
      ),
      { numRuns: 200 },
    );
  });
});
