import { describe, expect, it } from 'vitest';
import { nonFiniteMessage } from '../../src/calc/traces.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { live } from './helpers/model.js';

/** Issue 38: `a / b` with b = 0 stored null and its trace said nothing (JSONata gives Infinity). */
describe('an evaluation that gives no JSON value leaves a trace that says why', () => {
  it('division by zero: the value is null and explain shows the reason', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.ratio', expr: 'a / b' }] });
    await runtime.mutate({ '$.a': 1, '$.b': 0 });
    expect(await runtime.getValue('$.ratio')).toBeNull();
    const last = runtime.explain('$.ratio').at(-1)!;
    expect(last.result).toBeNull();
    expect(last.errorMessage).toMatch(/Infinity \(a division by zero\?\).*stored as null/);
    await runtime.mutate({ '$.b': 4 });
    expect(runtime.explain('$.ratio').at(-1)!.errorMessage).toBeNull();
    expect(await runtime.getValue('$.ratio')).toBe(0.25);
  });

  it('0/0 and a non-finite number inside an object or row name where it is', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.stats', expr: '{"mean": total / n, "n": n}' },
        { path: '$.rows[*].share', expr: '$parent.v / $parent.w' },
      ],
    });
    await runtime.mutate({
      '$.total': 0,
      '$.n': 0,
      '$.rows': [
        { v: 1, w: 2 },
        { v: -1, w: 0 },
      ],
    });
    expect(await runtime.getValue('$.stats')).toEqual({ mean: null, n: 0 });
    expect(runtime.explain('$.stats').at(-1)!.errorMessage).toMatch(/at \.mean is NaN/);
    expect(runtime.explain('$.rows[0].share').at(-1)!.errorMessage).toBeNull();
    expect(runtime.explain('$.rows[1].share').at(-1)!.errorMessage).toMatch(/-Infinity/);
  });

  it('through the service, explain answers the reason', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel({ id: 'div', schema: {}, derivations: [{ path: '$.q', expr: 'a / b' }] });
    await calc.mutate('div', { '$.a': 3, '$.b': 0 });
    const traces = await calc.explain('div', '$.q');
    expect(traces.at(-1)!.errorMessage).toMatch(/division by zero/);
  });

  it('finite values, nested or not, give no message', () => {
    expect(nonFiniteMessage({ a: [1, { b: 2.5 }], c: 'x', d: null })).toBeNull();
    expect(nonFiniteMessage([1, [2, Infinity]])).toMatch(/at \[1\]\[1\] is Infinity/);
  });
});
