/**
 * Issue 47: ad-hoc expressions from a request run in a pooled worker thread with a heap limit,
 * stopped at their time budget; running out of memory or time is a structured result, and the
 * calling thread keeps running throughout.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { configureExpressionLimits, DEFAULT_LIMITS } from '../../src/calc/expression.js';
import { evalExpression } from '../../src/calc/lifecycle.js';
import { ExpressionWorkers } from '../../src/service/expression-workers.js';

const pools: ExpressionWorkers[] = [];
afterEach(async () => {
  configureExpressionLimits(DEFAULT_LIMITS);
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
const pool = (options: ConstructorParameters<typeof ExpressionWorkers>[0] = {}): ExpressionWorkers => {
  const p = new ExpressionWorkers(options, () => {});
  pools.push(p);
  return p;
};

/** Runs `work` with a 10 ms timer in this thread; the longest gap between its ticks. */
async function longestTimerGap<T>(work: () => Promise<T>): Promise<{ gapMs: number; value: T }> {
  let last = Date.now();
  let gapMs = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
  }, 10);
  try {
    const value = await work();
    return { gapMs: Math.max(gapMs, Date.now() - last), value };
  } finally {
    clearInterval(timer);
  }
}

describe('expression workers', { timeout: 120_000 }, () => {
  it('answers as the calling thread would, reusing one worker; cheap expressions stay in the thread', async () => {
    const p = pool();
    const input = { items: [{ price: 2 }, { price: 3 }] };
    for (const expr of [
      '$join(items.$string(price), "+")',
      '$pad("a", 3, "-")',
      '[1..3].($ * 2)',
      '$wide(2)',
    ]) {
      const library = '( $wide := function($n){ $pad("", $n, "y") }; ["wide"] )';
      expect(await p.evaluate(expr, input, library)).toEqual(await evalExpression(expr, input, library));
    }
    expect(p.started).toBe(1);
    expect(await p.evaluate('$sum(items.price)', input)).toMatchObject({ ok: true, result: 5 });
    expect(p.started).toBe(1);
  });

  it('a worker out of memory is a structured result; the next expression gets a fresh worker', async () => {
    // budgets off (at their largest) so that only the worker's heap stops it
    configureExpressionLimits({ maxAllocation: 1_000_000_000, timeoutMs: 120_000 });
    const p = pool({ memoryMb: 32 });
    const { gapMs, value } = await longestTimerGap(() =>
      p.evaluate('$count([1..1000000].($pad("", 500, "y") & $string($)))'),
    );
    expect(value).toMatchObject({ ok: false, error: 'evaluation' });
    expect((value as { message: string }).message).toMatch(/^EVAL_MEMORY_LIMIT: .* 32 MB/);
    expect(gapMs).toBeLessThan(250);
    expect(await p.evaluate('$pad("a", 3, "-")')).toMatchObject({ ok: true, result: 'a--' });
    expect(p.started).toBe(2);
  });

  it('one step past the time budget stops its worker at the budget plus the grace', async () => {
    configureExpressionLimits({ maxAllocation: 1_000_000_000, timeoutMs: 200 });
    const p = pool({ memoryMb: 4096, graceMs: 300 });
    const t0 = Date.now();
    const { gapMs, value } = await longestTimerGap(() => p.evaluate('$length($pad("", 4e8, "y"))'));
    expect(value).toMatchObject({ ok: false });
    expect((value as { message: string }).message).toMatch(/^EVAL_(TIME|MEMORY)_LIMIT: /);
    expect(Date.now() - t0).toBeLessThan(200 + 300 + 1500);
    expect(gapMs).toBeLessThan(250);
  });

  it('past its queue a request is refused as busy', async () => {
    configureExpressionLimits({ timeoutMs: 60_000 });
    const p = pool({ size: 1, queue: 1 });
    const slow = '$count([1..300000].($pad("", 3, "y") & "z"))';
    const outcomes = await Promise.all([p.evaluate(slow), p.evaluate(slow), p.evaluate(slow)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
    expect(outcomes.find((o) => !o.ok)).toMatchObject({
      message: expect.stringMatching(/^EVAL_BUSY: /) as unknown,
    });
  });
});
