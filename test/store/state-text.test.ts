/**
 * What a durable store writes for a cycle: the state text (`exportStateText`, hashed by the audit
 * seal) and the cycle's history row (`newestHistoryRow`), a row per cycle beside its audit record
 * instead of the whole ring in every state. Two properties, whatever the writes, lazy reads and
 * reloads: the text is `JSON.stringify(exportState())` without `history`, byte for byte; and a
 * model loaded from the last committed text and the newest rows travels in time (`stateAt`) exactly
 * as the model that wrote them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileModel,
  historyFromRows,
  ModelRuntime,
  normalizeSpec,
  type RuntimeState,
} from '../../src/calc/index.js';

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

function withoutHistory(state: RuntimeState): Omit<RuntimeState, 'history'> {
  const { base, derived, meta } = state;
  return { base, derived, meta };
}

function expectSameText(runtime: ModelRuntime): void {
  expect(runtime.exportStateText()).toBe(JSON.stringify(withoutHistory(runtime.exportState())));
}

/** A value as a store gives it back (text: -0 reads back as 0). */
function asStored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const CAPACITY = 4; // a short ring, so entries are dropped from the front as well as added

/** What a store holds: the state text of the last commit and a history row per cycle. */
interface Stored {
  text: string;
  rows: (string | undefined)[];
}

function commit(runtime: ModelRuntime, stored: Stored): void {
  stored.text = runtime.exportStateText();
  stored.rows.push(runtime.newestHistoryRow());
}

function reload(model: ModelRuntime['model'], stored: Stored): ModelRuntime {
  const copy = new ModelRuntime(model, { historyCapacity: CAPACITY });
  const state = JSON.parse(stored.text) as RuntimeState;
  expect(state.history).toBeUndefined();
  copy.loadState({ ...state, history: historyFromRows(stored.rows.slice(-CAPACITY)) });
  return copy;
}

describe('what a durable store writes for a cycle', () => {
  it('is the state without its history, and rows that rebuild the ring, after any writes, reads and reloads', async () => {
    const { spec, findings } = normalizeSpec(SPEC);
    expect(findings).toEqual([]);
    const model = await compileModel(spec);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        let runtime = new ModelRuntime(model, { historyCapacity: CAPACITY });
        await runtime.initialize({ recomputeAll: true });
        expectSameText(runtime);
        const stored: Stored = { text: runtime.exportStateText(), rows: [] };
        for (const s of steps) {
          if (s.kind === 'write') {
            const ok = await runtime.mutate(s.writes).then(
              () => true,
              () => false, // a refused write changes nothing and commits nothing
            );
            if (ok) {
              commit(runtime, stored);
              // right after its cycle, the rows rebuild the ring the runtime holds
              // (as JSON: a store holds text, where -0 is 0)
              expect(historyFromRows(stored.rows.slice(-CAPACITY))).toEqual(
                asStored(runtime.exportState().history),
              );
            }
          } else if (s.kind === 'read-lazy') {
            await runtime.getValue('$.lazy'); // a lazy value read after its cycle extends that entry
          } else if (s.kind === 'read-all') {
            await runtime.getState();
          } else {
            const copy = reload(model, stored);
            // back at the last commit, the copy answers every point in time as the writer does
            const writer = reload(model, stored);
            for (const at of runtime.historyTimestamps())
              expect(await copy.stateAt(at)).toEqual(await writer.stateAt(at));
            runtime = copy;
          }
          expectSameText(runtime);
        }
        // and the writer itself, lazy reads and all, agrees with a copy loaded from its last commit
        // wherever the copy can answer (the writer knows of lazy reads since then; they change no
        // point in time before the newest cycle)
        const copy = reload(model, stored);
        const times = copy.historyTimestamps();
        for (const at of times.slice(0, -1)) {
          if (at === times.at(-1)) continue; // same millisecond as the newest: the newest answers
          expect(await copy.stateAt(at)).toEqual(asStored(await runtime.stateAt(at)));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('stores what a lazy read adds after a cycle with the next cycle', async () => {
    const { spec } = normalizeSpec(SPEC);
    const model = await compileModel(spec);
    const runtime = new ModelRuntime(model);
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate({ '$.items': [{ v: 1 }] });
    const first = runtime.newestHistoryRow()!;
    expect(await runtime.getValue('$.lazy')).toBe(100);
    await runtime.mutate({ '$.x': 1 });
    const second = JSON.parse(runtime.newestHistoryRow()!) as { before: unknown[] };
    expect(second.before.length).toBeGreaterThan(0);
    const ring = historyFromRows([first, JSON.stringify(second)]);
    expect(ring).toEqual(runtime.exportState().history);
    expect(ring[0]!.after.length).toBeGreaterThan(0);
  });
});
