// A read computes only the stale lazy rules it can see (issue 45: reads touch only what they name):
// getValue and projectState refresh a lazy rule whose target is at, inside or around a read path,
// and the stale lazy rules that one reads; the others stay stale until something reads them. What
// the reads answer is what a full-state read answers (checked against a twin runtime).
import { describe, expect, it } from 'vitest';
import { projectPaths } from '../../src/calc/projection.js';
import { live } from './helpers/model.js';

const SPEC = {
  derivations: [
    { path: '$.eager', expr: 'a + 1' },
    { path: '$.double', expr: 'a * 2', evaluation: 'lazy' },
    { path: '$.next', expr: 'double + 1', evaluation: 'lazy' },
    { path: '$.report.count', expr: '$count(items)', evaluation: 'lazy' },
    { path: '$.items[*].total', expr: '$parent.price * 10', evaluation: 'lazy' },
  ],
};

const cached = (runtime: { exportState(): { derived: Record<string, unknown> } }, address: string) =>
  runtime.exportState().derived[address];

describe('reads of one value and stale lazy rules', () => {
  it('a read of an unrelated path leaves every stale lazy rule stale', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.a': 1, '$.items': [{ price: 1 }, { price: 2 }] });
    await runtime.getState(); // everything fresh
    await runtime.mutate({ '$.a': 2, '$.items[1].price': 5 });
    expect(await runtime.getValue('$.eager')).toBe(3);
    expect(await runtime.projectState(['$.a', '$.eager'])).toEqual({ a: 2, eager: 3 });
    expect(cached(runtime, '$.double')).toBe(2); // not computed: nothing read it
    expect(cached(runtime, '$.report.count')).toBe(2);
    expect(cached(runtime, '$.items[1].total')).toBe(20);
  });

  it('a read computes the rule it names and the stale lazy rules that one reads, no others', async () => {
    const { runtime } = await live(SPEC);
    await runtime.mutate({ '$.a': 1, '$.items': [{ price: 1 }] });
    await runtime.getState();
    await runtime.mutate({ '$.a': 4, '$.items': [{ price: 1 }, { price: 3 }] });
    expect(await runtime.getValue('$.next')).toBe(9); // reads double, computed first
    expect(cached(runtime, '$.double')).toBe(8);
    expect(cached(runtime, '$.report.count')).toBe(1);
    // around a target, inside a row rule's rows
    expect(await runtime.projectState(['$.report'])).toEqual({ report: { count: 2 } });
    expect(await runtime.getValue('$.items[1]')).toEqual({ price: 3, total: 30 });
  });

  it('answers what a full-state read answers, read after read', async () => {
    const reads = [
      ['$.a'],
      ['$.double'],
      ['$.next', '$.eager'],
      ['$.report'],
      ['$.report.count'],
      ['$.items'],
      ['$.items[0].total'],
      ['$.items[1]'],
      ['$.items[*].total'],
    ];
    const writes = [
      { '$.a': 1, '$.items': [{ price: 1 }, { price: 2 }] },
      { '$.a': 7 },
      { '$.items[0].price': 9 },
      { '$.items': [{ price: 4 }] },
      { '$.a': -3, '$.items[2].price': 6 },
    ];
    for (let start = 0; start < reads.length; start++) {
      const { runtime } = await live(SPEC);
      const { runtime: twin } = await live(SPEC);
      for (const [w, write] of writes.entries()) {
        await runtime.mutate(write);
        await twin.mutate(write);
        // a different read order for each start, several reads between writes
        for (let k = 0; k < 3; k++) {
          const paths = reads[(start + w * 3 + k) % reads.length]!;
          const full = await twin.getState();
          expect(await runtime.projectState(paths)).toEqual(projectPaths(full, paths));
          if (paths.length === 1 && !paths[0]!.includes('[*]'))
            expect(await runtime.getValue(paths[0]!)).toEqual(valueAt(full, paths[0]!));
        }
      }
      expect(await runtime.getState()).toEqual(await twin.getState());
    }
  });
});

/** The value at a simple address (`$.a.b`, `$.items[1]`) of a document, or undefined. */
function valueAt(doc: unknown, address: string): unknown {
  let at = doc;
  for (const seg of address.slice(2).split(/\.|\[|\]/)) {
    if (seg === '') continue;
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[seg];
  }
  return at;
}
