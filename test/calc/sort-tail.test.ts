// `$sort` with a comparator as a function's last step (JSONata 2.2.2 evaluates it as a tail-call
// thunk and hands the comparator over unwrapped: "comp is not a function"). The oracle is the same
// call out of tail position, which JSONata gets right.
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../src/calc/expression.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const tail = '( $d := function($a) { $sort($a, function($l, $r) { $l < $r }) }; $d(xs) )';
const notTail = '( $d := function($a) { ( $s := $sort($a, function($l, $r) { $l < $r }); $s ) }; $d(xs) )';

describe('$sort with a comparator in tail position', () => {
  it('gives what the same call out of tail position gives', async () => {
    const input = { xs: [3, 1, 2, 5, 4] };
    const oracle = (await jsonata(notTail).evaluate(input)) as number[];
    expect([...oracle]).toEqual([5, 4, 3, 2, 1]);
    // plain JSONata fails on the tail form: the reason this rewrite exists
    await expect(jsonata(tail).evaluate(input)).rejects.toThrow(/comp is not a function/);
    const compiled = compileExpression(tail);
    if (!compiled.ok) throw new Error(compiled.message);
    expect([...((await compiled.expr.evaluate(input)) as number[])]).toEqual(oracle);
  });

  it('works in a spec library function, as a derivation calls it', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel({
      id: 'sorted',
      schema: { type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } } },
      library: '( $desc := function($a) { $sort($a, function($l, $r) { $l < $r }) }; ["desc"] )',
      derivations: [{ path: '$.desc', expr: '$desc(xs)' }],
    });
    await calc.mutate('sorted', { '$.xs': [3, 1, 2] });
    expect(await calc.getState('sorted')).toMatchObject({ desc: [3, 2, 1] });
    await calc.close();
  });
});
