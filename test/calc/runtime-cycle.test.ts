import { describe, expect, it } from 'vitest';
import { live, rejectsWith } from './helpers/model.js';

describe('apply phase (calc-spec §10 step 2)', () => {
  it('creates intermediates as it goes and pads arrays with null', async () => {
    const { runtime } = await live({});
    const r = await runtime.mutate({ '$.a.b[2].c': 1 });
    expect(r.mutatedPaths).toEqual(['$.a.b[2].c']);
    expect(await runtime.getState()).toEqual({ a: { b: [null, null, { c: 1 }] } });
    expect(await runtime.getValue('$.a.b[0]')).toBeNull();
  });

  it('applies several keys in one cycle, in key order', async () => {
    const { runtime } = await live({});
    await runtime.mutate({ '$.m': { x: 1 }, '$.m.y': 2 });
    expect(await runtime.getState()).toEqual({ m: { x: 1, y: 2 } });
  });

  it('refuses a path that runs through a scalar and writes nothing', async () => {
    const { runtime } = await live({});
    await runtime.mutate({ '$.a': 5 });
    await rejectsWith(runtime.mutate({ '$.b': 1, '$.a.x': 1 }), 'INVALID_ARGUMENT');
    expect(await runtime.getState()).toEqual({ a: 5 });
  });
});

describe('defaultValues (calc-spec §3)', () => {
  it('runs the $ rule at creation, with $parent and $self bound to the root', async () => {
    const { runtime, init } = await live({
      constants: { cur: 'EUR' },
      defaultValues: [
        { path: '$', expr: '{"currency": $const.cur, "items": [], "flags": {"a": true}}' },
        { path: '$', expr: '{"seenCurrency": $self.currency, "parentIsRoot": $parent.currency = "EUR"}' },
      ],
    });
    expect(await runtime.getState()).toEqual({
      currency: 'EUR',
      items: [],
      flags: { a: true },
      seenCurrency: 'EUR',
      parentIsRoot: true,
    });
    expect(init?.mutatedPaths).toEqual([
      '$.currency',
      '$.items',
      '$.flags.a',
      '$.seenCurrency',
      '$.parentIsRoot',
    ]);
  });

  it('runs $.items[*] on a new row: $parent is the array, $self the row as written; fill-absent only', async () => {
    const { runtime } = await live({
      defaultValues: [
        { path: '$.items[*]', expr: '{"qty": 1, "seq": $count($parent), "echo": $self.price, "tag": "new"}' },
      ],
    });
    const r1 = await runtime.mutate({ '$.items[0].price': 5 });
    expect(r1.mutatedPaths).toEqual([
      '$.items[0].price',
      '$.items[0].qty',
      '$.items[0].seq',
      '$.items[0].echo',
      '$.items[0].tag',
    ]);
    expect(await runtime.getValue('$.items[0]')).toEqual({ price: 5, qty: 1, seq: 1, echo: 5, tag: 'new' });

    const r2 = await runtime.mutate({ '$.items[1].price': 2, '$.items[1].qty': 7 });
    expect(await runtime.getValue('$.items[1]')).toEqual({ price: 2, qty: 7, seq: 2, echo: 2, tag: 'new' });
    expect(r2.mutatedPaths).toEqual([
      '$.items[1].price',
      '$.items[1].qty',
      '$.items[1].seq',
      '$.items[1].echo',
      '$.items[1].tag',
    ]);

    // an existing row is not a new container: no rule
    const r3 = await runtime.mutate({ '$.items[0].price': 6 });
    expect(r3.mutatedPaths).toEqual(['$.items[0].price']);
    expect(await runtime.getValue('$.items[0].echo')).toBe(5);
  });

  it('an object written whole is created by the write, so its rules fill it (issue 38)', async () => {
    const { runtime } = await live({ defaultValues: [{ path: '$.items[*]', expr: '{"qty": 1}' }] });
    const r = await runtime.mutate({ '$.items[0]': { price: 3 } });
    expect(r.mutatedPaths).toEqual(['$.items[0]', '$.items[0].qty']);
    expect(await runtime.getValue('$.items[0]')).toEqual({ price: 3, qty: 1 });
  });

  it('an object container rule sees the root as $parent; derivation targets are skipped', async () => {
    const { runtime } = await live({
      defaultValues: [
        { path: '$', expr: '{"defaultCountry": "NL"}' },
        {
          path: '$.customer',
          expr: '{"country": $parent.defaultCountry, "label": "from-default", "tier": "basic"}',
        },
      ],
      derivations: [{ path: '$.customer.label', expr: 'customer.name & "/" & customer.country' }],
    });
    const r = await runtime.mutate({ '$.customer.name': 'Bo' });
    expect(r.mutatedPaths).toEqual(['$.customer.name', '$.customer.country', '$.customer.tier']);
    expect(runtime.exportState().base).toEqual({
      defaultCountry: 'NL',
      customer: { name: 'Bo', country: 'NL', tier: 'basic' },
    });
    expect(await runtime.getValue('$.customer.label')).toBe('Bo/NL');
    expect(r.derivedUpdated).toEqual(['$.customer.label']);
  });

  it('flattens the rule result to leaves: {} and arrays are leaves, nulls are skipped', async () => {
    const { runtime, init } = await live({
      defaultValues: [{ path: '$', expr: '{"a": {}, "b": {"c": null, "d": [1, {"x": 1}]}, "e": null}' }],
    });
    expect(runtime.exportState().base).toEqual({ a: {}, b: { d: [1, { x: 1 }] } });
    expect(init?.mutatedPaths).toEqual(['$.a', '$.b.d']);
  });

  it('a rule that errors or returns a non-object is skipped', async () => {
    const { runtime } = await live({
      defaultValues: [
        { path: '$.a', expr: '$error("boom")' },
        { path: '$.a', expr: '42' },
        { path: '$.a', expr: '{"ok": true}' },
      ],
    });
    const r = await runtime.mutate({ '$.a.x': 1 });
    expect(r.mutatedPaths).toEqual(['$.a.x', '$.a.ok']);
    expect(await runtime.getValue('$.a')).toEqual({ x: 1, ok: true });
  });
});

describe('schema default seeding at creation (calc-spec §3)', () => {
  it('seeds after the $ rule, fill-absent, wholesale, not through $ref or items, skipping derivation targets', async () => {
    const { runtime, init } = await live({
      schema: {
        $defs: { R: { type: 'object', properties: { inner: { type: 'number', default: 9 } } } },
        type: 'object',
        properties: {
          currency: { type: 'string', default: 'EUR' },
          fromRule: { type: 'string', default: 'schema' },
          nulled: { type: 'number', default: 3 },
          opts: { type: 'object', properties: { x: { type: 'number', default: 1 }, y: { type: 'number' } } },
          whole: { type: 'object', default: { k: [1, 2] }, properties: { k: { default: 'never' } } },
          ref: { $ref: '#/$defs/R' },
          refBeside: { $ref: '#/$defs/R', default: { inner: 5 } },
          rows: { type: 'array', items: { type: 'object', properties: { z: { default: 1 } } } },
          total: { type: 'number', default: 100 },
        },
      },
      defaultValues: [{ path: '$', expr: '{"fromRule": "rule", "nulled": null}' }],
      derivations: [{ path: '$.total', expr: 'nulled * 2' }],
    });
    expect(runtime.exportState().base).toEqual({
      fromRule: 'rule',
      currency: 'EUR',
      nulled: 3,
      opts: { x: 1 },
      whole: { k: [1, 2] },
      refBeside: { inner: 5 },
    });
    expect(await runtime.getValue('$.total')).toBe(6);
    expect(init?.mutatedPaths).toEqual([
      '$.fromRule',
      '$.currency',
      '$.nulled',
      '$.opts.x',
      '$.whole',
      '$.refBeside',
    ]);
  });

  it('a spec with nothing to seed runs no cycle at creation and records no history', async () => {
    const { runtime, init } = await live({
      derivations: [{ path: '$.k', expr: '$const.k * 2' }],
      constants: { k: 21 },
    });
    expect(init).toBeNull();
    expect(runtime.historyTimestamps()).toEqual([]);
    // recompute-all still computes a constants-only derivation
    expect(await runtime.getValue('$.k')).toBe(42);
  });
});

describe('dirty propagation (calc-spec §4): only reachable nodes are re-evaluated', () => {
  const derivations = [
    { path: '$.b', expr: 'a + 1' },
    { path: '$.c', expr: 'b * 10' },
    { path: '$.y', expr: 'x + 1' },
    { path: '$.z', expr: 'y + c' },
    { path: '$.w', expr: 'other.deep * 2' },
  ];

  it('derivedUpdated lists exactly the transitive dependents, in level order', async () => {
    const { runtime } = await live({ derivations });
    await runtime.mutate({ '$.a': 1, '$.x': 1, '$.other.deep': 1 });
    const r = await runtime.mutate({ '$.a': 2 });
    expect(r.derivedUpdated).toEqual(['$.b', '$.c', '$.z']);
    expect(await runtime.getValue('$.z')).toBe(32);
    const r2 = await runtime.mutate({ '$.x': 5 });
    expect(r2.derivedUpdated).toEqual(['$.y', '$.z']);
    expect(await runtime.getValue('$.z')).toBe(36);
    const r3 = await runtime.mutate({ '$.unrelated': 1 });
    expect(r3.derivedUpdated).toEqual([]);
    expect(r3.traces).toEqual([]);
  });

  it('a container write reaches dependencies inside it; a sibling field does not', async () => {
    const { runtime } = await live({ derivations });
    await runtime.mutate({ '$.other.deep': 1 });
    expect((await runtime.mutate({ '$.other': { deep: 4 } })).derivedUpdated).toEqual(['$.w']);
    expect(await runtime.getValue('$.w')).toBe(8);
    expect((await runtime.mutate({ '$.other.shallow': 4 })).derivedUpdated).toEqual([]);
  });

  it('a whole-row write re-evaluates a plain target inside that row (route 4)', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.items[0].flag', expr: 'a > 1' }] });
    await runtime.mutate({ '$.a': 2, '$.items': [{}, {}] });
    const r = await runtime.mutate({ '$.items[0]': { v: 2 } });
    expect(r.derivedUpdated).toEqual(['$.items[0].flag']);
    expect(await runtime.getValue('$.items[0]')).toEqual({ v: 2, flag: true });
  });

  it("the dirty cache does not carry one row's answer over to another row", async () => {
    const { runtime } = await live({ derivations: [{ path: '$.items[0].flag', expr: 'a > 1' }] });
    await runtime.mutate({ '$.a': 2, '$.items': [{}, {}] });
    expect((await runtime.mutate({ '$.items[1]': { v: 1 } })).derivedUpdated).toEqual([]);
    const r = await runtime.mutate({ '$.items[0]': { v: 2 } });
    expect(r.derivedUpdated).toEqual(['$.items[0].flag']);
    expect(await runtime.getValue('$.items[0].flag')).toBe(true);
  });

  it('an ancestor route refreshes $count(board[$!=""]) after writing one cell', async () => {
    const { runtime } = await live({ derivations: [{ path: '$.filled', expr: '$count(board[$ != ""])' }] });
    await runtime.mutate({ '$.board': ['', '', ''] });
    expect(await runtime.getValue('$.filled')).toBe(0);
    const r = await runtime.mutate({ '$.board[1]': 'X' });
    expect(r.derivedUpdated).toEqual(['$.filled']);
    expect(await runtime.getValue('$.filled')).toBe(1);
  });
});

describe('derive by level (calc-spec §4 "Evaluation")', () => {
  it('each level sees the previous levels; derivedUpdated is in level order', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.d', expr: 'c + b' },
        { path: '$.c', expr: 'b + 1' },
        { path: '$.b', expr: 'a * 2' },
      ],
    });
    const r = await runtime.mutate({ '$.a': 3 });
    expect(r.derivedUpdated).toEqual(['$.b', '$.c', '$.d']);
    expect(await runtime.getState()).toEqual({ a: 3, b: 6, c: 7, d: 13 });
    expect(r.traces.map((t) => [t.targetPath, t.result])).toEqual([
      ['$.b', 6],
      ['$.c', 7],
      ['$.d', 13],
    ]);
    expect(r.traces[0]!.inputPaths).toEqual(['$.a']);
  });

  it('undefined results are stored as null; errors are null plus an error trace and the cycle goes on', async () => {
    const { runtime } = await live({
      derivations: [
        { path: '$.missing', expr: 'nothing.here' },
        { path: '$.broken', expr: 'a ? $error("nope") : 0' },
        { path: '$.fine', expr: 'a + 1' },
        { path: '$.afterBroken', expr: 'broken = null ? "null" : "set"' },
      ],
    });
    const r = await runtime.mutate({ '$.a': 1, '$.nothing': 0 });
    expect(await runtime.getValue('$.missing')).toBeNull();
    expect(await runtime.getValue('$.fine')).toBe(2);
    const broken = runtime.explain('$.broken');
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.at(-1)?.errorMessage).toContain('nope');
    expect(broken.at(-1)?.result).toBeNull();
    expect(broken.at(-1)?.inputPaths).toEqual([]);
    expect(await runtime.getValue('$.broken')).toBeNull();
    expect(await runtime.getValue('$.afterBroken')).toBe('null');
    expect(r.success).toBe(true);
    expect(r.derivedUpdated).toEqual(['$.missing', '$.broken', '$.fine', '$.afterBroken']);
  });
});

describe('meta phase (calc-spec §5)', () => {
  const schema = {
    type: 'object',
    properties: {
      qty: { type: 'number' },
      items: {
        type: 'array',
        items: { type: 'object', properties: { qty: { type: 'number', minimum: 0 } } },
      },
    },
  };

  it('a plain meta updates its key and overlays the effective schema; its maximum rejects the next write', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [{ path: '$.qty', property: 'maximum', expr: 'limit' }],
    });
    const r = await runtime.mutate({ '$.limit': 10 });
    expect(r.metaUpdated).toEqual(['$.qty#maximum']);
    expect(runtime.getEffectiveSchema('$.qty')).toEqual({ type: 'number', maximum: 10 });
    await runtime.mutate({ '$.qty': 10 }); // inclusive
    const err = await rejectsWith(runtime.mutate({ '$.qty': 11 }), 'SCHEMA_VIOLATION');
    expect(err.details.violations).toEqual([expect.objectContaining({ path: '$.qty', keyword: 'maximum' })]);
    expect(await runtime.getValue('$.qty')).toBe(10);
  });

  it('validation uses the overlay as it stood before the cycle (a new maximum applies to the next write)', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [{ path: '$.qty', property: 'maximum', expr: 'limit' }],
    });
    await runtime.mutate({ '$.limit': 100 });
    await runtime.mutate({ '$.limit': 5, '$.qty': 50 });
    expect(await runtime.getValue('$.qty')).toBe(50);
    await rejectsWith(runtime.mutate({ '$.qty': 50 }), 'SCHEMA_VIOLATION');
  });

  it('a [*] meta is evaluated per row with the element as context, keyed per concrete path', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [{ path: '$.items[*].qty', property: 'maximum', expr: 'stock' }],
    });
    const r = await runtime.mutate({ '$.items': [{ qty: 1, stock: 5 }, { qty: 2, stock: 3 }, { stock: 7 }] });
    expect(r.metaUpdated).toEqual(['$.items[0].qty#maximum', '$.items[1].qty#maximum']);
    expect(runtime.getEffectiveSchema('$.items[1].qty')).toEqual({ type: 'number', minimum: 0, maximum: 3 });
    expect(runtime.getEffectiveSchema('$.items[2].qty')).toEqual({ type: 'number', minimum: 0 });
    // the row's own field refreshes its meta (extracted relative to the element)
    const r2 = await runtime.mutate({ '$.items[1].stock': 4 });
    expect(r2.metaUpdated).toContain('$.items[1].qty#maximum');
    expect(runtime.getMeta('$.items[1].qty#maximum')).toBe(4);
    await runtime.mutate({ '$.items[1].qty': 4 });
    const err = await rejectsWith(runtime.mutate({ '$.items[1].qty': 5 }), 'SCHEMA_VIOLATION');
    expect(err.message).toContain('$.items[1].qty');
    expect(await runtime.getValue('$.items[1].qty')).toBe(4);
  });

  it('a readOnly meta is stored under #read_only and blocks writes', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [{ path: '$.qty', property: 'readOnly', expr: 'locked = true' }],
    });
    const r = await runtime.mutate({ '$.locked': true });
    expect(r.metaUpdated).toEqual(['$.qty#read_only']);
    expect(runtime.getEffectiveSchema('$.qty').readOnly).toBe(true);
    const err = await rejectsWith(runtime.mutate({ '$.qty': 1 }), 'SCHEMA_VIOLATION');
    expect(err.details.violations).toEqual([expect.objectContaining({ keyword: 'readOnly' })]);
    await runtime.mutate({ '$.locked': false });
    await runtime.mutate({ '$.qty': 1 });
    expect(await runtime.getValue('$.qty')).toBe(1);
  });

  it('relevant overlays x-valem-relevant; a multipleOf overlay is enforced, a required one only shows', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [
        { path: '$.qty', property: 'relevant', expr: 'show' },
        { path: '$.qty', property: 'multipleOf', expr: '5' },
        { path: '$.qty', property: 'required', expr: 'true' },
      ],
    });
    await runtime.mutate({ '$.show': false });
    expect(runtime.getEffectiveSchema('$.qty')).toEqual({
      type: 'number',
      'x-valem-relevant': false,
      multipleOf: 5,
      required: true,
    });
    const err = await rejectsWith(runtime.mutate({ '$.qty': 3 }), 'SCHEMA_VIOLATION');
    expect(err.details.violations).toMatchObject([{ path: '$.qty', keyword: 'multipleOf' }]);
    await runtime.mutate({ '$.qty': 10 });
    expect(await runtime.getValue('$.qty')).toBe(10);
  });

  it('a meta given as a JSON literal is stringified to an expression', async () => {
    const { runtime } = await live({
      schema,
      metaDerivations: [{ path: '$.qty', property: 'maximum', expr: 2 }],
    });
    expect(runtime.getEffectiveSchema('$.qty').maximum).toBe(2);
  });
});

describe('constraints (calc-spec §6)', () => {
  it('a global rollback constraint refuses the cycle with its id and message', async () => {
    const { runtime } = await live({
      derivations: [{ path: '$.total', expr: 'a + b' }],
      constraints: [{ id: 'cap', expr: 'total <= 10', message: 'total too big', policy: 'rollback' }],
    });
    await runtime.mutate({ '$.a': 1, '$.b': 2 });
    const err = await rejectsWith(runtime.mutate({ '$.a': 9 }), 'CONSTRAINT_VIOLATION');
    expect(err.status).toBe(409);
    expect(err.message).toBe('Constraint violated: total too big');
    expect(err.details.violations).toEqual([
      { constraintId: 'cap', message: 'total too big', policy: 'rollback' },
    ]);
    expect(await runtime.getState()).toEqual({ a: 1, b: 2, total: 3 });
  });

  it('several rollback violations are all reported', async () => {
    const { runtime } = await live({
      constraints: [
        { id: 'one', expr: 'a < 5', message: 'a small', policy: 'rollback' },
        { id: 'two', expr: 'a < 3', message: 'a smaller', policy: 'rollback' },
      ],
    });
    const err = await rejectsWith(runtime.mutate({ '$.a': 9 }), 'CONSTRAINT_VIOLATION');
    expect(err.message).toBe('2 constraints violated: [a small, a smaller]');
    expect((err.details.violations as unknown[]).length).toBe(2);
  });

  it('a flag constraint commits and reports', async () => {
    const { runtime } = await live({
      constraints: [{ id: 'warn', expr: 'a < 5', message: 'a is large', policy: 'flag' }],
    });
    const r = await runtime.mutate({ '$.a': 9 });
    expect(r.flaggedConstraints).toEqual([{ constraintId: 'warn', message: 'a is large', policy: 'flag' }]);
    expect(await runtime.getValue('$.a')).toBe(9);
    expect((await runtime.mutate({ '$.a': 1 })).flaggedConstraints).toEqual([]);
  });

  it('only dirty constraints run', async () => {
    const { runtime } = await live({
      constraints: [{ id: 'a-pos', expr: 'a > 0', message: 'a > 0', policy: 'rollback' }],
    });
    const r = await runtime.mutate({ '$.b': -1 }); // a is absent, but the constraint is not dirty
    expect(r.traces).toEqual([]);
    await rejectsWith(runtime.mutate({ '$.a': -1 }), 'CONSTRAINT_VIOLATION');
  });

  it('a scoped plain path is dirtied by its path and evaluated against that value', async () => {
    const { runtime } = await live({
      constraints: [{ id: 'qty', path: '$.qty', expr: '$ > 0', message: 'qty positive', policy: 'rollback' }],
    });
    await runtime.mutate({ '$.qty': 2 });
    await rejectsWith(runtime.mutate({ '$.qty': 0 }), 'CONSTRAINT_VIOLATION');
    expect(await runtime.getValue('$.qty')).toBe(2);
    const traces = runtime.explain('$constraint:qty');
    expect(traces.map((t) => t.constraintPassed)).toEqual([true, false, false]);
    expect(traces[2]!.expression).toBe('');
  });

  it('a scoped [*] path runs once per row with names relative to the row', async () => {
    const { runtime } = await live({
      constraints: [
        {
          id: 'rows',
          path: '$.items[*]',
          expr: 'qty > 0',
          message: 'every qty positive',
          policy: 'rollback',
        },
      ],
    });
    const r = await runtime.mutate({ '$.items': [{ qty: 1 }, { qty: 2 }] });
    expect(
      r.traces.filter((t) => t.targetPath === '$constraint:rows').map((t) => t.constraintPassed),
    ).toEqual([true, true]);
    const err = await rejectsWith(runtime.mutate({ '$.items[1].qty': 0 }), 'CONSTRAINT_VIOLATION');
    expect(err.details.violations).toEqual([
      { constraintId: 'rows', message: 'every qty positive', policy: 'rollback' },
    ]);
    expect(await runtime.getValue('$.items')).toEqual([{ qty: 1 }, { qty: 2 }]);
    await rejectsWith(runtime.mutate({ '$.items[2]': { qty: -1 } }), 'CONSTRAINT_VIOLATION');
    expect(await runtime.getValue('$.items')).toEqual([{ qty: 1 }, { qty: 2 }]);
  });

  it('an array of paths runs once per path', async () => {
    const { runtime } = await live({
      constraints: [
        { id: 'nonneg', path: ['$.a', '$.b'], expr: '$ >= 0', message: 'non-negative', policy: 'flag' },
      ],
    });
    const r = await runtime.mutate({ '$.a': 1, '$.b': 2 });
    expect(r.traces.map((t) => t.constraintPassed)).toEqual([true, true]);
    const r2 = await runtime.mutate({ '$.b': -1 });
    expect(r2.traces.map((t) => t.constraintPassed)).toEqual([true, false]);
    expect(r2.flaggedConstraints).toEqual([
      { constraintId: 'nonneg', message: 'non-negative', policy: 'flag' },
    ]);
    expect((await runtime.mutate({ '$.c': -1 })).traces).toEqual([]);
  });

  it('an evaluation error is a plain failure with errorMessage null', async () => {
    const { runtime: rt2 } = await live({
      constraints: [{ id: 'err', expr: 'a ? $error("x") : true', message: 'failed', policy: 'flag' }],
    });
    const r2 = await rt2.mutate({ '$.a': 1 });
    expect(r2.flaggedConstraints).toEqual([{ constraintId: 'err', message: 'failed', policy: 'flag' }]);
    expect(r2.traces).toEqual([
      {
        targetPath: '$constraint:err',
        expression: 'a ? $error("x") : true',
        inputPaths: [],
        result: null,
        constraintPassed: false,
        errorMessage: null,
      },
    ]);
  });
});

describe('effects dispatched as data (calc-spec §7)', () => {
  const effect = {
    id: 'notify',
    executor: 'caller',
    emit: 'overLimit',
    trigger: 'amount > 100',
    dedupeKey: 'ref',
    statusPath: '$.notifyStatus',
    payload: { amount: 'amount', ref: 'ref', doubled: 'amount * 2' },
  };

  it('a caller effect surfaces with its emit and evaluated payload when the trigger holds', async () => {
    const { runtime } = await live({ effects: [{ ...effect, statusPath: undefined, dedupeKey: undefined }] });
    expect((await runtime.mutate({ '$.amount': 50, '$.ref': 'A' })).dispatchedEffects).toEqual([]);
    const r = await runtime.mutate({ '$.amount': 150 });
    expect(r.dispatchedEffects).toEqual([
      {
        effectId: 'notify',
        executor: 'caller',
        emit: 'overLimit',
        payload: { amount: 150, ref: 'A', doubled: 300 },
      },
    ]);
    // no statusPath: no guard, fires again on every input change while the trigger holds
    expect((await runtime.mutate({ '$.amount': 151 })).dispatchedEffects).toHaveLength(1);
    // not dirty: payload fields are not trigger inputs
    expect((await runtime.mutate({ '$.other': 1 })).dispatchedEffects).toEqual([]);
  });

  it('the statusPath guard skips pending and in_flight, and the same key', async () => {
    const { runtime } = await live({ effects: [effect] });
    for (const phase of ['pending', 'in_flight']) {
      const r = await runtime.mutate({
        '$.notifyStatus': { phase, key: 'other' },
        '$.amount': 200,
        '$.ref': 'A',
      });
      expect(r.dispatchedEffects).toEqual([]);
    }
    const same = await runtime.mutate({ '$.notifyStatus': { phase: 'applied', key: 'A' }, '$.amount': 201 });
    expect(same.dispatchedEffects).toEqual([]);
    const changed = await runtime.mutate({ '$.ref': 'B' });
    expect(changed.dispatchedEffects).toEqual([
      {
        effectId: 'notify',
        executor: 'caller',
        emit: 'overLimit',
        payload: { amount: 201, ref: 'B', doubled: 402 },
      },
    ]);
  });

  it('effects are not dispatched by a rolled-back cycle', async () => {
    const { runtime } = await live({
      effects: [{ ...effect, statusPath: undefined, dedupeKey: undefined }],
      constraints: [{ id: 'cap', expr: 'amount < 1000', message: 'cap', policy: 'rollback' }],
    });
    await rejectsWith(runtime.mutate({ '$.amount': 5000 }), 'CONSTRAINT_VIOLATION');
    expect((await runtime.mutate({ '$.amount': 500 })).dispatchedEffects).toHaveLength(1);
  });

  it('a timer effect carries its evaluated afterMs; a server request interpolates its url', async () => {
    const { runtime } = await live({
      effects: [
        { id: 'later', executor: 'timer', trigger: 'go', afterMs: 'delay * 1000' },
        {
          id: 'fetch',
          executor: 'server',
          trigger: 'go',
          request: { url: 'https://example.test/q?id={ id }&n={ missing }' },
        },
      ],
    });
    const r = await runtime.mutate({ '$.go': true, '$.delay': 2, '$.id': 'x1' });
    expect(r.dispatchedEffects).toEqual([
      { effectId: 'later', executor: 'timer', payload: { afterMs: 2000 } },
      {
        effectId: 'fetch',
        executor: 'server',
        payload: { method: 'GET', url: 'https://example.test/q?id=x1&n=' },
      },
    ]);
  });
});
