/**
 * Creation derives once when it can: the seeding cycle (schema defaults written) computes every rule
 * those writes reach, and `recomputeAll` skips the rules when that cycle computed all of them
 * (runtime.ts `seedingDerivedAll`). Whatever it skips must already hold the value a second full
 * computation would give: these tests compare a created runtime's state with the state after one
 * more full computation, on fixed cases and on generated specs.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { ModelRuntime } from '../../src/calc/runtime.js';
import { live } from './helpers/model.js';

/** The created state, and the state after one more full computation (what creation used to do). */
async function createdAndRecomputed(raw: Record<string, unknown>): Promise<[unknown, unknown]> {
  const { runtime } = await live(raw);
  // values only: the history also records the second computation's (identical) writes
  const values = () => {
    const { base, derived, meta } = runtime.exportState();
    return structuredClone({ base, derived, meta });
  };
  const created = values();
  await runtime.recomputeAll();
  return [created, values()];
}

describe('creation derives once when the seeding cycle computed every rule', () => {
  it('derives each rule once when every rule reads a seeded input', async () => {
    const spy = vi.spyOn(
      ModelRuntime.prototype as unknown as { deriveLevels: () => unknown },
      'deriveLevels',
    );
    try {
      const { runtime } = await live({
        schema: { properties: { a: { type: 'number', default: 2 }, b: { type: 'number', default: 3 } } },
        derivations: [
          { path: '$.x', expr: 'a * 10 + b' },
          { path: '$.y', expr: 'x + a' },
        ],
      });
      expect(spy).toHaveBeenCalledTimes(1); // the seeding cycle only
      expect(await runtime.getState()).toEqual({ a: 2, b: 3, x: 23, y: 25 });
    } finally {
      spy.mockRestore();
    }
  });

  it('recomputes when a rule the seeding did not reach feeds one it did', async () => {
    // `five` reads nothing seeded, so the cycle computed `total` before `five` had a value
    const raw = {
      schema: { properties: { a: { type: 'number', default: 2 } } },
      derivations: [
        { path: '$.five', expr: '5' },
        { path: '$.total', expr: 'five + a' },
      ],
    };
    const { runtime } = await live(raw);
    expect(await runtime.getState()).toEqual({ a: 2, five: 5, total: 7 });
  });

  it('recomputes when a rule reads through $eval (a read the graph cannot order)', async () => {
    const raw = {
      schema: { properties: { a: { type: 'number', default: 2 } } },
      derivations: [
        { path: '$.early', expr: '$eval("late") + a' },
        { path: '$.late', expr: 'a * 100' },
      ],
    };
    const [created, recomputed] = await createdAndRecomputed(raw);
    expect(created).toEqual(recomputed);
    expect((created as { derived: Record<string, unknown> }).derived['$.early']).toBe(202);
  });

  it('gives the state a second full computation gives, on generated specs', async () => {
    // rules over inputs (some with defaults), constants, earlier rules, rows; some lazy
    const rule = (i: number) =>
      fc.record({
        kind: fc.constantFrom('input', 'constant', 'earlier', 'mixed'),
        input: fc.integer({ min: 0, max: 3 }),
        earlier: fc.integer({ min: 0, max: Math.max(0, i - 1) }),
        lazy: fc.boolean(),
        op: fc.constantFrom('+', '*', '-'),
      });
    const specArb = fc
      .record({
        defaults: fc.array(fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), {
          minLength: 4,
          maxLength: 4,
        }),
        rows: fc.array(fc.record({ p: fc.integer({ min: 0, max: 9 }) }), { maxLength: 3 }),
        count: fc.integer({ min: 1, max: 8 }),
      })
      .chain((base) =>
        fc.tuple(fc.constant(base), fc.tuple(...Array.from({ length: base.count }, (_, i) => rule(i)))),
      );
    await fc.assert(
      fc.asyncProperty(specArb, async ([base, rules]) => {
        const properties: Record<string, unknown> = {
          items: {
            type: 'array',
            default: base.rows,
            items: { type: 'object', properties: { p: { type: 'number' } } },
          },
        };
        base.defaults.forEach((d, k) => {
          properties[`in${k}`] = d === undefined ? { type: 'number' } : { type: 'number', default: d };
        });
        const derivations: Record<string, unknown>[] = rules.map((r, i) => {
          const earlier = i > 0 ? `d${r.earlier}` : '1';
          const expr =
            r.kind === 'input'
              ? `in${r.input} ${r.op} 2`
              : r.kind === 'constant'
                ? `${i + 1}`
                : r.kind === 'earlier'
                  ? `${earlier} ${r.op} 3`
                  : `${earlier} ${r.op} in${r.input}`;
          return { path: `$.d${i}`, expr, ...(r.lazy ? { evaluation: 'lazy' } : {}) };
        });
        derivations.push({ path: '$.items[*].q', expr: `$parent.p * 2 + d0` });
        derivations.push({ path: '$.total', expr: '$sum(items.q)' });
        const [created, recomputed] = await createdAndRecomputed({
          schema: { type: 'object', properties },
          derivations,
        });
        expect(created).toEqual(recomputed);
      }),
      { numRuns: 150 },
    );
  });
});
