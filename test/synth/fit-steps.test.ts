/** The stepped fit (fitCsvAsync): the same result as fitCsv, and it stops when its control says so. */
import { describe, expect, it } from 'vitest';
import { FitError, fitCsv, fitCsvAsync } from '../../src/synth/fit/index.js';
import { writeModel } from '../../src/synth/index.js';

const SEED = 20261202;
function sample(rows: number): string {
  let x = SEED;
  const next = (): number => (x = (x * 48271) % 2147483647) / 2147483647;
  const lines = Array.from({ length: rows }, (_, i) =>
    [
      (next() * 50).toFixed(2),
      Math.floor(next() * 9),
      ['a', 'b', 'c'][i % 3],
      (-Math.log(next())).toFixed(4),
    ].join(','),
  );
  return ['x,n,label,wait', ...lines].join('\n');
}

describe(`fitCsvAsync (seed ${SEED})`, () => {
  it('gives the same model and report as fitCsv', async () => {
    const text = sample(500);
    const control = { check: () => undefined, pause: () => new Promise<void>((r) => setImmediate(r)) };
    const stepped = await fitCsvAsync(text, { seed: 4 }, control);
    const plain = fitCsv(text, { seed: 4 });
    expect(writeModel(stepped.model, 'sgm')).toBe(writeModel(plain.model, 'sgm'));
    expect(stepped.report).toEqual(plain.report);
  });

  it('stops at the first check that throws: no column is fitted after it', async () => {
    let checks = 0;
    let pauses = 0;
    const control = {
      check: () => {
        if (++checks === 3) throw new FitError('CANCELLED', 'stop');
      },
      pause: () => {
        pauses++;
        return Promise.resolve();
      },
    };
    await expect(fitCsvAsync(sample(200), {}, control)).rejects.toMatchObject({ code: 'CANCELLED' });
    // one check after parsing, then pause + check before each step: the third check is before the
    // second column, and nothing runs after it
    expect(checks).toBe(3);
    expect(pauses).toBe(2);
  });
});
