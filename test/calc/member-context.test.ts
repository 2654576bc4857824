// A shared program reads the evaluating member's names from an AsyncLocalStorage
// (src/calc/expression-shape.ts). While such a storage is enabled, Node 20 runs a hook on every
// promise of the process, so it is disabled whenever no member evaluation is in flight: the hook
// must be off once evaluations settle, and evaluations that overlap must still each read their own
// names (the storage stays on while any of them runs, and comes back for the next one).
import { executionAsyncId } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { compileExpression, sharesProgram } from '../../src/calc/expression.js';

/** The async id a promise reaction runs under: 0 unless promise hooks are on. */
const reactionAsyncId = (): Promise<number> => Promise.resolve().then(() => executionAsyncId());

function member(text: string) {
  const compiled = compileExpression(text);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.expr;
}

describe('member evaluations of a shared program', () => {
  it('leave no promise hook running once they settle', async () => {
    const first = member('$count(alpha) * 10 + beta');
    const second = member('$count(gamma) * 10 + delta');
    expect(sharesProgram(second)).toBe(true);
    expect(await first.evaluate({ alpha: [1, 2], beta: 3 })).toBe(23);
    expect(await second.evaluate({ gamma: [1], delta: 4 })).toBe(14);
    expect(await reactionAsyncId()).toBe(0);
  });

  it('each read their own names while they overlap, and after', async () => {
    const slow = (ms: number) => async (v: unknown) => {
      await sleep(ms);
      return v;
    };
    const a = member('$wait(left) * 100 + right');
    const b = member('$wait(price) * 100 + qty');
    expect(sharesProgram(b)).toBe(true);
    const [x, y, z] = await Promise.all([
      // the second member outlives the others: its names must still be in force when it resumes
      a.evaluate({ left: 1, right: 2 }, { wait: slow(5) }),
      b.evaluate({ price: 3, qty: 4 }, { wait: slow(30) }),
      a.evaluate({ left: 5, right: 6 }, { wait: slow(10) }),
    ]);
    expect([x, y, z]).toEqual([102, 304, 506]);
    expect(await b.evaluate({ price: 7, qty: 8 }, { wait: slow(1) })).toBe(708);
    expect(await reactionAsyncId()).toBe(0);
  });
});
