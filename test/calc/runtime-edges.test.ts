import { describe, expect, it } from 'vitest';
import { CalcError } from '../../src/calc/errors.js';
import { compile, live, rejectsWith } from './helpers/model.js';

describe('defaults for nested new containers (calc-spec §3)', () => {
  it('applies element rules shallowest first; the bare arrays are skipped; $parent is the array', async () => {
    const { runtime } = await live({
      defaultValues: [
        { path: '$.orders[*].lines[*]', expr: '{"qty": 1, "siblings": $count($parent)}' },
        { path: '$.orders[*]', expr: '{"status": "open", "lines": [{"sku": "seed"}]}' },
        { path: '$.orders', expr: '{"never": true}' },
      ],
    });
    const r = await runtime.mutate({ '$.orders[0].lines[1].sku': 'A' });
    expect(r.mutatedPaths).toEqual([
      '$.orders[0].lines[1].sku',
      '$.orders[0].status',
      '$.orders[0].lines[1].qty',
      '$.orders[0].lines[1].siblings',
    ]);
    expect(await runtime.getValue('$.orders')).toEqual([
      { lines: [null, { sku: 'A', qty: 1, siblings: 2 }], status: 'open' },
    ]);
  });

  it('a rule reads the base document, not derived values', async () => {
    const { runtime } = await live({
      defaultValues: [{ path: '$.customer', expr: '{"fromDerived": dv, "fromBase": a}' }],
      derivations: [{ path: '$.dv', expr: 'a * 10' }],
    });
    await runtime.mutate({ '$.a': 1 });
    expect(await runtime.getValue('$.dv')).toBe(10);
    await runtime.mutate({ '$.customer.name': 'x' });
    expect(await runtime.getValue('$.customer')).toEqual({ name: 'x', fromBase: 1 });
  });

  it('defaulted fields dirty the graph like written ones', async () => {
    const { runtime } = await live({
      defaultValues: [{ path: '$.items[*]', expr: '{"qty": 2}' }],
      derivations: [{ path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' }],
    });
    const r = await runtime.mutate({ '$.items[0].price': 5 });
    expect(r.derivedUpdated).toEqual(['$.items[0].lineTotal']);
    expect(await runtime.getValue('$.items[0].lineTotal')).toBe(10);
  });
});

describe('creation (calc-spec §10 "Creation")', () => {
  it('seeding runs one cycle: dirty constraints and effects only, then recompute-all', async () => {
    const { runtime, init } = await live({
      defaultValues: [{ path: '$', expr: '{"a": 5}' }],
      derivations: [
        { path: '$.b', expr: 'a * 2' },
        { path: '$.k', expr: '$const.k' },
      ],
      constants: { k: 'K' },
      constraints: [
        { id: 'seeded', expr: 'b > 100', message: 'b small', policy: 'flag' },
        { id: 'untouched', expr: 'other > 0', message: 'other', policy: 'rollback' },
      ],
      effects: [{ id: 'hello', executor: 'caller', emit: 'hi', trigger: 'a > 1', payload: { a: 'a' } }],
    });
    expect(init?.derivedUpdated).toEqual(['$.b']);
    expect(init?.flaggedConstraints).toEqual([
      { constraintId: 'seeded', message: 'b small', policy: 'flag' },
    ]);
    expect(init?.dispatchedEffects).toEqual([
      { effectId: 'hello', executor: 'caller', emit: 'hi', payload: { a: 5 } },
    ]);
    expect(runtime.historyTimestamps()).toHaveLength(1);
    expect(await runtime.getState()).toEqual({ a: 5, b: 10, k: 'K' });
  });

  it('a rollback constraint refusing the seeding fails initialize', async () => {
    const { ModelRuntime } = await import('../../src/calc/runtime.js');
    const model = await compile({
      defaultValues: [{ path: '$', expr: '{"a": -1}' }],
      constraints: [{ id: 'pos', expr: 'a > 0', message: 'a positive', policy: 'rollback' }],
    });
    const runtime = new ModelRuntime(model);
    await rejectsWith(runtime.initialize({ recomputeAll: true }), 'CONSTRAINT_VIOLATION');
    expect(runtime.exportState().base).toEqual({});
  });
});

describe('reads (calc-spec §4 "Reads")', () => {
  it('getValue descends into a derived container', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.schedule', expr: '[1..n].{"period": $, "due": $ * 10}' }],
    });
    await runtime.mutate({ '$.n': 3 });
    expect(await runtime.getValue('$.schedule[1].due')).toBe(20);
    expect(await runtime.getValue('$.schedule[5]')).toBeUndefined();
    expect(runtime.exportState().derived).toEqual({
      '$.schedule': [1, 2, 3].map((p) => ({ period: p, due: p * 10 })),
    });
  });

  it('a lazy [*] target is evaluated per row on read', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.items[*].big', expr: '$parent.v * 10', evaluation: 'lazy' }],
    });
    const r = await runtime.mutate({ '$.items': [{ v: 1 }, { v: 2 }] });
    expect(r.derivedUpdated).toEqual([]);
    expect(await runtime.getValue('$.items[1].big')).toBe(20);
    expect(await runtime.getState()).toEqual({
      items: [
        { v: 1, big: 10 },
        { v: 2, big: 20 },
      ],
    });
  });

  it('explain filters by prefix, oldest first, and keeps the last `limit`', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.b', expr: 'a + 1' },
        { path: '$.c', expr: 'a + 2' },
      ],
    });
    for (let a = 1; a <= 4; a++) await runtime.mutate({ '$.a': a });
    expect(runtime.explain('$.b').map((t) => t.result)).toEqual([2, 3, 4, 5]);
    expect(runtime.explain('$.b', 2).map((t) => t.result)).toEqual([4, 5]);
    expect(runtime.explain('$').map((t) => t.targetPath)).toEqual([
      '$.b',
      '$.c',
      '$.b',
      '$.c',
      '$.b',
      '$.c',
      '$.b',
      '$.c',
    ]);
    expect(runtime.explain('$.b', 0)).toEqual([]);
  });

  it('the trace ring keeps the newest 500', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.rows[*].x', expr: '$parent.v' }] });
    await runtime.mutate({ '$.rows': Array.from({ length: 300 }, (_, i) => ({ v: i })) });
    // a whole new array recomputes every row: 300 more traces
    await runtime.mutate({ '$.rows': Array.from({ length: 300 }, (_, i) => ({ v: i + 1 })) });
    const all = runtime.explain('$');
    expect(all).toHaveLength(500);
    expect(all.at(-1)?.targetPath).toBe('$.rows[299].x');
    expect(all[0]!.targetPath).toBe('$.rows[100].x');
  });
});

describe('meta and constraint contexts (calc-spec §5, §6)', () => {
  it('[*] meta reads the base element (no derived row fields); vanished rows lose their meta', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.items[*].lineTotal', expr: '$parent.price * 2' }],
      metaDerivations: [
        { path: '$.items[*].price', property: 'maximum', expr: '$exists(lineTotal) ? 1 : 1000' },
        { path: '$.items[*].lineTotal', property: 'readOnly', expr: 'true' },
      ],
    });
    await runtime.mutate({ '$.items': [{ price: 1 }, { price: 2 }] });
    expect(runtime.exportState().meta).toEqual({
      '$.items[0].price#maximum': 1000,
      '$.items[1].price#maximum': 1000,
    });
    await runtime.mutate({ '$.items': [{ price: 3 }] });
    expect(runtime.exportState().meta).toEqual({ '$.items[0].price#maximum': 1000 });
    expect(runtime.getEffectiveSchema('$.items[1].price')).toEqual({});
  });

  it('a [*] constraint sees the base element; a plain scoped path that is absent fails', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.items[*].lineTotal', expr: '$parent.price * 2' }],
      constraints: [
        {
          id: 'base-only',
          path: '$.items[*]',
          expr: '$not($exists(lineTotal))',
          message: 'base rows',
          policy: 'flag',
        },
        { id: 'y-pos', path: '$.x.y', expr: '$ > 0', message: 'y positive', policy: 'flag' },
      ],
    });
    const r = await runtime.mutate({ '$.items': [{ price: 1 }] });
    expect(r.flaggedConstraints).toEqual([]);
    const r2 = await runtime.mutate({ '$.x': {} });
    expect(r2.flaggedConstraints).toEqual([{ constraintId: 'y-pos', message: 'y positive', policy: 'flag' }]);
  });

  it('a rollback error carries only the rollback violations, not flags', async () => {
    const { runtime } = await live({
      constraints: [
        { id: 'f', expr: 'a < 1', message: 'flagged', policy: 'flag' },
        { id: 'r', expr: 'a < 2', message: 'rolled', policy: 'rollback' },
      ],
    });
    const err = await rejectsWith(runtime.mutate({ '$.a': 5 }), 'CONSTRAINT_VIOLATION');
    expect(err.details.violations).toEqual([{ constraintId: 'r', message: 'rolled', policy: 'rollback' }]);
  });

  it('a meta that errors is stored as null and does not overlay', async () => {
    const { runtime } = await live({
      schema: { properties: { q: { type: 'number' } } },
      metaDerivations: [{ path: '$.q', property: 'maximum', expr: 'a ? $error("x") : 5' }],
    });
    expect(runtime.getEffectiveSchema('$.q')).toEqual({ type: 'number', maximum: 5 });
    const r = await runtime.mutate({ '$.a': true });
    expect(r.metaUpdated).toEqual(['$.q#maximum']);
    expect(r.traces).toEqual([]);
    expect(runtime.getMeta('$.q#maximum')).toBeNull();
    expect(runtime.getEffectiveSchema('$.q')).toEqual({ type: 'number' });
  });
});

describe('server fan-out (calc-spec §7)', () => {
  it('guards each descriptor separately by its own statusPath and key', async () => {
    const { runtime } = await live({
      effects: [
        {
          id: 'fan',
          executor: 'server',
          trigger: 'go',
          requests: 'ids.{"url": "https://example.test/" & $, "statusPath": "$.st." & $, "dedupeKey": $}',
        },
      ],
    });
    const r = await runtime.mutate({
      '$.st': { a: { phase: 'in_flight' }, b: { phase: 'applied', key: 'b' } },
      '$.ids': ['a', 'b', 'c'],
      '$.go': true,
    });
    expect(r.dispatchedEffects).toEqual([
      {
        effectId: 'fan',
        executor: 'server',
        payload: { method: 'GET', url: 'https://example.test/c', statusPath: '$.st.c', dedupeKey: 'c' },
      },
    ]);
  });
});

describe('targets the spec says to reject or define (calc-spec §4)', () => {
  it('a target with a second [*] is refused at compile time, naming the path (SPEC_INVALID)', async () => {
    const raw = { derivations: [{ path: '$.orders[*].lines[*].total', expr: '$parent.q * 2' }] };
    let refused: unknown;
    try {
      await compile(raw);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(CalcError);
    expect((refused as CalcError).code).toBe('SPEC_INVALID');
    expect((refused as CalcError).message).toContain('$.orders[*].lines[*].total');
  });
});

describe('getValue order: derived entry → base value → derived ancestor (calc-spec §4 "Reads")', () => {
  it('a base value under a derived container answers before the derived ancestor', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.summary', expr: '{"n": a}' }] });
    await runtime.mutate({ '$.a': 1 });
    await runtime.mutate({ '$.summary.extra': 5 });
    expect(runtime.exportState().base).toEqual({ a: 1, summary: { extra: 5 } });
    expect(await runtime.getValue('$.summary.n')).toBe(1);
    expect(await runtime.getValue('$.summary.extra')).toBe(5);
  });
});

describe('isolation of values crossing the API', () => {
  it('mutate copies the written value; getState/getValue/exportState hand out copies', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.n', expr: '$count(list)' }] });
    const list = [1, 2];
    await runtime.mutate({ '$.list': list });
    list.push(3);
    expect(await runtime.getValue('$.list')).toEqual([1, 2]);
    const state = await runtime.getState();
    (state.list as number[]).push(9);
    const value = (await runtime.getValue('$.list')) as number[];
    value.push(9);
    const exported = runtime.exportState();
    (exported.base.list as number[]).push(9);
    expect(await runtime.getState()).toEqual({ list: [1, 2], n: 2 });
  });
});

describe('more contexts', () => {
  it('a scoped object path resolves names relative to it and is dirtied by its fields', async () => {
    const { runtime } = await live({
      constraints: [
        { id: 'adult', path: '$.customer', expr: 'age >= 18', message: 'adults only', policy: 'rollback' },
      ],
    });
    await runtime.mutate({ '$.customer': { age: 30 } });
    await rejectsWith(runtime.mutate({ '$.customer.age': 12 }), 'CONSTRAINT_VIOLATION');
    expect(await runtime.getValue('$.customer.age')).toBe(30);
  });

  it('a scoped [*] path with a suffix runs once per present field', async () => {
    const { runtime } = await live({
      constraints: [{ id: 'q', path: '$.items[*].qty', expr: '$ > 0', message: 'qty > 0', policy: 'flag' }],
    });
    const r = await runtime.mutate({ '$.items': [{ qty: 1 }, { other: 1 }, { qty: 0 }] });
    expect(r.traces.map((t) => t.constraintPassed)).toEqual([true, false]);
    expect(r.flaggedConstraints).toHaveLength(1);
  });

  it('within a level, plain targets are evaluated before [*] targets', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.items[*].t', expr: '$parent.v + 1' },
        { path: '$.x', expr: 'k + 1' },
        { path: '$.n', expr: '$count(items)' }, // reads the container holding t: ordered after it
      ],
    });
    const r = await runtime.mutate({ '$.items': [{ v: 1 }, { v: 2 }], '$.k': 1 });
    expect(r.derivedUpdated).toEqual(['$.x', '$.items[0].t', '$.items[1].t', '$.n']);
  });

  it('llm and timer effects carry their evaluated fields and the dedupe key', async () => {
    const { runtime } = await live({
      effects: [
        { id: 'ask', executor: 'llm', trigger: 'q != ""', prompt: '"Answer: " & q', dedupeKey: 'q' },
        { id: 'wake', executor: 'timer', trigger: 'q != ""', at: '1700000000000', dedupeKey: 'q' },
      ],
    });
    const r = await runtime.mutate({ '$.q': 'why' });
    expect(r.dispatchedEffects).toEqual([
      { effectId: 'ask', executor: 'llm', payload: { prompt: 'Answer: why', dedupeKey: 'why' } },
      { effectId: 'wake', executor: 'timer', payload: { at: 1700000000000, dedupeKey: 'why' } },
    ]);
  });
});

describe('constants (calc-spec §3)', () => {
  it('$const is {} without constants, and a constants-only derivation is computed at creation only', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.n', expr: '$count($keys($const))' }] });
    expect(await runtime.getValue('$.n')).toBe(0);
    const { runtime: withK } = await live({
      constants: { rate: 0.5, 'odd-name': 2 },
      derivations: [
        { path: '$.r', expr: '$const.rate * $const."odd-name"' },
        { path: '$.scaled', expr: 'a * $const.rate' },
      ],
    });
    expect(await withK.getValue('$.r')).toBe(1);
    const r = await withK.mutate({ '$.a': 4 });
    expect(r.derivedUpdated).toEqual(['$.scaled']);
    expect(await withK.getValue('$.scaled')).toBe(2);
  });
});
