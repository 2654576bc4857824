/**
 * The state text a durable store writes and hashes comes from `exportStateText`, which reuses each
 * history entry's text instead of copying and printing the whole history again. It must be
 * `JSON.stringify(exportState())` byte for byte, whatever the writes, reads and reloads before it:
 * a reload reads that text back, and the audit seal hashes it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec, type JsonValue } from '../../src/calc/index.js';

const SPEC = {
  id: 'state-text',
  version: '1.0.0',
  schema: {},
  derivations: [
    { path: '$.items[*].double', expr: '$parent.v * 2' },
    { path: '$.total', expr: '$sum(items.double)' },
    { path: '$.label', expr: '"x=" & $string(x)' },
    { path: '$.lazy', expr: '$count(items) * 100', evaluation: 'lazy' },
  ],
  metaDerivations: [{ path: '$.items[*].v', property: 'maximum', expr: 'cap' }],
};

type Step =
  | { kind: 'write'; writes: Record<string, unknown> }
  | { kind: 'read-lazy' }
  | { kind: 'read-all' }
  | { kind: 'reload' };

const value = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true }),
  fc.constantFrom(-0, 1e300, 'é\u0000"\\\u{1F600}', null, true),
  fc.string(),
);
const item = fc.record({ v: fc.integer({ min: 0, max: 50 }) });
const writes = fc.oneof(
  fc.record({ '$.x': value }),
  fc.record({ '$.items': fc.array(item, { maxLength: 4 }) }),
  fc.record({ '$.items[0].v': fc.integer({ min: 0, max: 50 }) }),
  fc.record({ '$.items[3]': item }),
  fc.record({ '$.cap': fc.integer({ min: 0, max: 100 }) }),
  fc.record({ '$.nested.deep': fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ '$.x': value, '$.cap': fc.integer({ min: 0, max: 100 }) }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: writes.map((w) => ({ kind: 'write' as const, writes: w })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'read-lazy' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'read-all' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reload' as const }) },
);

function expectSameText(runtime: ModelRuntime): void {
  expect(runtime.exportStateText()).toBe(JSON.stringify(runtime.exportState()));
}

describe('exportStateText', () => {
  it('is JSON.stringify(exportState()) after any writes, reads and reloads (history ring included)', async () => {
    const { spec, findings } = normalizeSpec(SPEC);
    expect(findings).toEqual([]);
    const model = await compileModel(spec);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        // a short ring, so entries are dropped from the front as well as added
        let runtime = new ModelRuntime(model, { historyCapacity: 4 });
        await runtime.initialize({ recomputeAll: true });
        expectSameText(runtime);
        for (const s of steps) {
          if (s.kind === 'write') {
            await runtime.mutate(s.writes).catch(() => undefined); // a refused write changes nothing
          } else if (s.kind === 'read-lazy') {
            await runtime.getValue('$.lazy'); // a lazy value read after its cycle extends that entry
          } else if (s.kind === 'read-all') {
            await runtime.getState();
          } else {
            const copy = new ModelRuntime(model, { historyCapacity: 4 });
            copy.loadState(JSON.parse(runtime.exportStateText()) as ReturnType<ModelRuntime['exportState']>);
            // the same state (a reload may list the derived cache in another order)
            expect(JSON.parse(copy.exportStateText())).toEqual(JSON.parse(runtime.exportStateText()));
            runtime = copy;
          }
          expectSameText(runtime);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('prints what a lazy read adds to the newest entry after its text was made', async () => {
    const { spec } = normalizeSpec(SPEC);
    const runtime = new ModelRuntime(await compileModel(spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate({ '$.items': [{ v: 1 }] });
    const before = runtime.exportStateText();
    expect(await runtime.getValue('$.lazy')).toBe(100);
    const after = runtime.exportStateText();
    expect(after).not.toBe(before);
    expect(after).toBe(JSON.stringify(runtime.exportState()));
    const history = (JSON.parse(after) as { history: { after: JsonValue[] }[] }).history;
    expect(history.at(-1)!.after.length).toBeGreaterThan(0);
  });
});
