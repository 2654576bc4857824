// View evaluation (every component family), the graph export and "why is this number?" on live
// runtimes built from inline specs and the bundled car-loan example.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  cardState,
  evaluateView,
  evaluateViews,
  explainValue,
  failingConstraints,
  modelGraph,
  topLevelViewIds,
} from '../../src/calc/index.js';
import { live, rejectsWith } from '../calc/helpers/model.js';

const carLoan = JSON.parse(
  readFileSync(new URL('../../examples/calc/car-loan-calculator.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** An order with rows, meta, a flag rule, an effect with a status, and two views plus an item view. */
const ORDER = {
  schema: {
    type: 'object',
    properties: {
      tier: { type: 'string', title: 'Customer tier' },
      gift: { type: 'boolean' },
      message: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { price: { type: 'number' }, qty: { type: 'integer' }, lineTotal: { type: 'number' } },
        },
      },
      sync: { type: 'object' },
    },
  },
  defaultValues: [
    {
      path: '$',
      expr: '{"tier": "standard", "gift": false, "from": "2026-01-01", "to": "2026-02-01", "items": [{"price": 10, "qty": 2}, {"price": 5, "qty": 1}], "sync": {"phase": "done"}}',
    },
  ],
  derivations: [
    { path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' },
    { path: '$.subtotal', expr: '$sum(items.lineTotal)' },
    { path: '$.total', expr: 'tier = "gold" ? subtotal * 0.9 : subtotal' },
  ],
  metaDerivations: [
    { path: '$.message', property: 'relevant', expr: 'gift' },
    { path: '$.tier', property: 'readOnly', expr: 'subtotal > 1000' },
    { path: '$.items[*].qty', property: 'required', expr: 'true' },
  ],
  constraints: [{ id: 'big', expr: 'total < 20', message: 'Large order', policy: 'flag' }],
  effects: [{ id: 'push', executor: 'caller', trigger: 'false', statusPath: '$.sync' }],
  viewDefinition: {
    defaultView: 'main',
    views: [
      {
        id: 'line',
        label: 'Line',
        components: [
          { id: 'qty', type: 'numericStepper', label: 'Qty', bind: '$.items[*].qty', min: 1 },
          { id: 'lt', type: 'label', label: 'Line total', bind: '$.items[*].lineTotal' },
          { id: 'rowText', type: 'label', text: '$string($parent.price) & " each"' },
        ],
      },
      {
        id: 'extra',
        label: 'Details',
        layout: 'grid',
        columns: 2,
        components: [{ id: 'json', type: 'jsonViewer', maxDepth: 2 }],
      },
      {
        id: 'main',
        label: 'Order',
        components: [
          {
            id: 'tier',
            type: 'selectField',
            label: 'Tier',
            bind: '$.tier',
            chartType: 'bar',
            options: [
              { value: 'standard', label: 'Standard' },
              { value: 'gold', label: '$Gold' },
            ],
          },
          { id: 'msg', type: 'textAreaField', label: 'Message', bind: '$.message', rows: 3 },
          { id: 'lines', type: 'sectionList', bind: '$.items', itemView: 'line', canAdd: true },
          {
            id: 'total',
            type: 'statTile',
            label: 'Total',
            bind: '$.total',
            caption: '$count(items) & " lines"',
            delta: 'up',
            format: 'currency',
          },
          { id: 'literal', type: 'label', text: 'total' },
          { id: 'warn', type: 'alert', text: '$not evaluated', variant: 'warning', visible: 'total > 10' },
          { id: 'hidden', type: 'badge', text: 'x', visible: false, enabled: 'false', required: true },
          { id: 'dates', type: 'dateRangeField', bindFrom: '$.from', bindTo: '$.to', fromLabel: 'From' },
          {
            id: 'kv',
            type: 'keyValueList',
            items: [
              { label: 'Subtotal', bind: '$.subtotal', format: 'currency' },
              { label: 'Lines', text: '$string($count(items))' },
            ],
          },
          { id: 'sync', type: 'effectStatus', effectId: 'push' },
          {
            id: 'box',
            type: 'card',
            legend: 'Box',
            components: [
              {
                id: 'chart',
                type: 'dataChart',
                bind: '$.items',
                chartType: 'bar',
                chartX: 'price',
                chartSeries: [{ field: 'lineTotal', label: 'Line total' }],
              },
            ],
          },
          { id: 'go', type: 'button', label: 'Go', onClick: { navigate: 'extra' } },
        ],
      },
    ],
  },
};

describe('evaluateView', () => {
  it('resolves every component family of the order view', async () => {
    const { runtime } = await live(ORDER);
    const view = await evaluateView(runtime);
    expect(view).toMatchObject({ modelId: 'test', viewId: 'main', title: 'Order', layout: 'vertical' });
    const byId = Object.fromEntries(view.components.map((c) => [c.id, c]));
    // a field the type does not carry is dropped; static options (labels too) pass through as written
    expect(byId.tier).toEqual({
      id: 'tier',
      type: 'selectField',
      label: 'Tier',
      bind: '$.tier',
      value: 'standard',
      options: [
        { value: 'standard', label: 'Standard' },
        { value: 'gold', label: '$Gold' },
      ],
    });
    // relevant=false (gift is false) hides the message; a required meta on the row field marks it
    expect(byId.msg).toMatchObject({ visible: false, rows: 3 });
    expect(byId.total).toMatchObject({ value: 25, caption: '2 lines', delta: 'up', format: 'currency' });
    expect(byId.literal).toMatchObject({ text: 'total' });
    expect(byId.warn).toMatchObject({ text: '$not evaluated', variant: 'warning' });
    expect(byId.warn!.visible).toBeUndefined(); // expression true → omitted
    expect(byId.hidden).toMatchObject({ visible: false, enabled: false, required: true });
    expect(byId.dates).toMatchObject({ valueFrom: '2026-01-01', valueTo: '2026-02-01', fromLabel: 'From' });
    expect(byId.kv!.items).toEqual([
      { label: 'Subtotal', bind: '$.subtotal', format: 'currency', value: 25 },
      { label: 'Lines', text: '2' },
    ]);
    expect(byId.sync).toMatchObject({ status: { phase: 'done' } });
    expect(byId.box!.components).toEqual([
      {
        id: 'chart',
        type: 'dataChart',
        bind: '$.items',
        chartType: 'bar',
        chartX: 'price',
        chartSeries: [{ field: 'lineTotal', label: 'Line total' }],
        value: [
          { price: 10, qty: 2, lineTotal: 20 },
          { price: 5, qty: 1, lineTotal: 5 },
        ],
      },
    ]);
    expect(byId.go).toMatchObject({ onClick: { navigate: 'extra' } });
  });

  it('gives a sectionList one row per element with [*] resolved and $parent bound to the row', async () => {
    const { runtime } = await live(ORDER);
    const lines = (await evaluateView(runtime)).components.find((c) => c.id === 'lines')!;
    expect(lines.value).toBeUndefined();
    expect(lines.canAdd).toBe(true);
    const rows = lines.rows as { index: number; bind: string; components: Record<string, unknown>[] }[];
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({
      index: 1,
      bind: '$.items[1]',
      components: [
        {
          id: 'qty',
          type: 'numericStepper',
          label: 'Qty',
          bind: '$.items[1].qty',
          min: 1,
          value: 1,
          required: true,
        },
        { id: 'lt', type: 'label', label: 'Line total', bind: '$.items[1].lineTotal', value: 5 },
        { id: 'rowText', type: 'label', text: '5 each' },
      ],
    });
  });

  it('inherits readOnly from meta and lets enabled follow it; updates after a write', async () => {
    const { runtime } = await live(ORDER);
    await runtime.mutate({ '$.items[0].price': 600, '$.gift': true });
    const byId = Object.fromEntries((await evaluateView(runtime)).components.map((c) => [c.id, c]));
    expect(byId.tier).toMatchObject({ readOnly: true, enabled: false });
    expect(byId.msg!.visible).toBeUndefined();
  });

  it('lists top-level views default first, leaving out views reached only as an itemView', async () => {
    const { runtime } = await live(ORDER);
    expect(topLevelViewIds(ORDER.viewDefinition)).toEqual(['main', 'extra']);
    const views = await evaluateViews(runtime);
    expect(views.map((v) => v.viewId)).toEqual(['main', 'extra']);
    expect(views[1]).toMatchObject({ layout: 'grid', columns: 2, title: 'Details' });
    // a jsonViewer without bind shows the whole state
    expect(views[1]!.components[0]).toMatchObject({ maxDepth: 2, value: { total: 25 } });
  });

  it('refuses an unknown view and a model without views', async () => {
    const { runtime } = await live(ORDER);
    await rejectsWith(evaluateView(runtime, 'nope'), 'VIEW_NOT_FOUND');
    const bare = await live({ derivations: [{ path: '$.x', expr: '1' }] });
    await rejectsWith(evaluateView(bare.runtime), 'VIEW_NOT_FOUND');
    expect(await evaluateViews(bare.runtime)).toEqual([]);
  });
});

describe('modelGraph', () => {
  it('labels nodes from views and schema, folds names-only reads into the [*] rule, orders levels', async () => {
    const { model } = await live(ORDER);
    const g = modelGraph(model);
    const node = (k: string) => g.nodes.find((n) => n.key === k);
    expect(node('$.tier')).toEqual({ key: '$.tier', kind: 'BASE', label: 'Tier', expression: null });
    expect(node('$.items[*].lineTotal')).toMatchObject({ kind: 'DERIVED', label: 'Line total' });
    expect(node('$.subtotal')).toMatchObject({ label: 'Subtotal', expression: '$sum(items.lineTotal)' });
    expect(node('$constraint:big')).toMatchObject({ kind: 'CONSTRAINT', label: 'Large order' });
    expect(node('$.items.lineTotal')).toBeUndefined();
    expect(g.edges).toContainEqual({ from: '$.items[*].lineTotal', to: '$.subtotal' });
    expect(g.edges.every((e) => g.nodes.some((n) => n.key === e.from))).toBe(true);
    const level = (k: string) => g.levels.findIndex((l) => l.includes(k));
    expect(level('$.items[*].price')).toBeLessThan(level('$.items[*].lineTotal'));
    expect(level('$.subtotal')).toBeLessThan(level('$.total'));
  });
});

describe('card state and explainValue', () => {
  it('explains the car-loan payment from its inputs and the inputs behind them', async () => {
    const { runtime, model } = await live(carLoan);
    const why = await explainValue(runtime, modelGraph(model), '$.monthlyPayment');
    expect(why).toMatchObject({
      path: '$.monthlyPayment',
      kind: 'computed',
      label: 'Monthly payment',
      value: 480.78,
      expression: expect.stringContaining('$payment(amountFinanced'),
    });
    expect(why.inputs.map((i) => [i.path, i.value, i.kind])).toEqual([
      ['$.amountFinanced', 20000, 'computed'],
      ['$.annualRatePercent', 7.2, 'input'],
      ['$.payments', 48, 'computed'],
    ]);
    expect(why.baseInputs!.map((i) => i.path).sort()).toEqual(
      ['$.annualRatePercent', '$.deposit', '$.vehiclePrice', '$.years'].sort(),
    );
    expect(why.text).toContain('Monthly payment ($.monthlyPayment) = 480.78');
  });

  it('explains a row through its [*] rule with that row, an input as such, and lists fields for an unknown path', async () => {
    const { runtime, model } = await live(ORDER);
    const g = modelGraph(model);
    const row = await explainValue(runtime, g, '$.items[1].lineTotal');
    expect(row).toMatchObject({ kind: 'computed', value: 5, expression: '$parent.price * $parent.qty' });
    expect(row.inputs.map((i) => [i.path, i.value])).toEqual([
      ['$.items[1].price', 5],
      ['$.items[1].qty', 1],
    ]);
    expect(row.baseInputs).toBeUndefined();
    const sub = await explainValue(runtime, g, '$.subtotal');
    expect(sub.inputs).toEqual([
      { path: '$.items.lineTotal', label: 'Line total', value: [20, 5], kind: 'computed' },
    ]);
    expect(sub.baseInputs!.map((i) => i.path)).toEqual(['$.items[*].price', '$.items[*].qty']);
    const input = await explainValue(runtime, g, '$.tier');
    expect(input).toMatchObject({ kind: 'input', value: 'standard', expression: null, inputs: [] });
    expect(input.text).toContain('input the user sets');
    const err = await rejectsWith(explainValue(runtime, g, '$.nope'), 'PATH_NOT_FOUND');
    expect(err.message).toContain('$.subtotal');
    await rejectsWith(explainValue(runtime, g, 'total'), 'INVALID_ARGUMENT');
  });

  it('reports the rules failing now, whichever cycle last touched them', async () => {
    const { runtime } = await live(ORDER);
    expect((await failingConstraints(runtime)).map((f) => f.constraintId)).toEqual(['big']);
    await runtime.mutate({ '$.items[0].qty': 0 });
    expect(await failingConstraints(runtime)).toEqual([]);
    const card = await cardState(runtime);
    expect(card.views.map((v) => v.viewId)).toEqual(['main', 'extra']);
    expect(card.meta['$.message#relevant']).toBe(false);
    expect(card.state.total).toBe(5);
  });
});
