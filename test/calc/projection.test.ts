import { describe, expect, it, vi } from 'vitest';
import { ModelRuntime } from '../../src/calc/runtime.js';
import { capDepth, projectPaths, type JsonObject } from '../../src/calc/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const doc = { order: { id: 7, lines: [{ sku: 'a' }, { sku: 'b' }] }, totals: { net: 10, tax: 2 }, note: 'x' };

describe('state projection', () => {
  it('keeps only the requested subtrees at their addresses, skipping absent ones', () => {
    expect(projectPaths(doc, ['$.totals.net', '$.order.lines[1]', '$.missing'])).toEqual({
      totals: { net: 10 },
      order: { lines: [null, { sku: 'b' }] },
    });
  });

  it('a [*] pattern keeps every element it matches at its own index (issue 38: it returned {})', () => {
    const rows: JsonObject = {
      items: [{ sku: 'a', qty: 1 }, { sku: 'b' }, { sku: 'c', qty: 3 }],
      grid: [[1, 2], [3]],
    };
    expect(projectPaths(rows, ['$.items[*].qty'])).toEqual({ items: [{ qty: 1 }, null, { qty: 3 }] });
    expect(projectPaths(rows, ['$.items[*].sku', '$.items[*].qty'])).toEqual({
      items: [{ sku: 'a', qty: 1 }, { sku: 'b' }, { sku: 'c', qty: 3 }],
    });
    expect(projectPaths(rows, ['$.grid[*][0]'])).toEqual({ grid: [[1], [3]] });
    expect(projectPaths(rows, ['$.missing[*].x', '$.items[*].none'])).toEqual({});
  });

  it('through the service, get_state with a [*] path answers the matched fields', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel({
      id: 'lines',
      schema: {},
      derivations: [{ path: '$.items[*].net', expr: '$parent.qty * 2' }],
    });
    await calc.mutate('lines', { '$.items': [{ qty: 1 }, { qty: 4 }] });
    expect(await calc.getState('lines', { paths: ['$.items[*].net'] })).toEqual({
      items: [{ net: 2 }, { net: 8 }],
    });
  });

  it('get_state with paths reads only what they name, never the whole state (issue 45)', async () => {
    const calc = new CalcService(new MemoryStore());
    await calc.createModel({
      id: 'rows',
      schema: { properties: { rate: { type: 'number', default: 2 } } },
      derivations: [
        { path: '$.items[*].net', expr: '$parent.qty * rate' },
        { path: '$.grand', expr: '$sum(items.net)' },
        { path: '$.summary', expr: '{"n": $count(items), "top": $max(items.net)}' },
        { path: '$.later', expr: 'grand * 10', evaluation: 'lazy' },
      ],
    });
    await calc.mutate('rows', {
      '$.items': Array.from({ length: 50 }, (_, i) => ({ qty: i, sku: `s${i}` })),
    });
    await calc.mutate('rows', { '$.items[3].qty': 100, '$.rate': 3 });
    const whole = await calc.getState('rows');
    const pathSets = [
      ['$.grand', '$.items[3].net'],
      ['$.items[*].net', '$.rate'],
      ['$.summary.top', '$.later', '$.missing', '$.items[60].net'],
      ['$.items[2]', '$.summary'],
      ['$.grand', '$'],
    ];
    const getState = vi.spyOn(ModelRuntime.prototype, 'getState');
    try {
      for (const paths of pathSets.slice(0, -1)) {
        expect(await calc.getState('rows', { paths })).toEqual(projectPaths(whole as JsonObject, paths));
        expect(await calc.getState('rows', { paths, depth: 1 })).toEqual(
          capDepth(projectPaths(whole as JsonObject, paths), 1),
        );
      }
      expect(getState).not.toHaveBeenCalled();
      expect(await calc.getState('rows', { paths: pathSets.at(-1)! })).toEqual(whole);
      await expect(calc.getState('rows', { paths: ['items[0]'] })).rejects.toThrow(/\$\.items\[0\]/);
    } finally {
      getState.mockRestore();
    }
  });

  it('refuses a non-canonical address with the rewrite', () => {
    expect(() => projectPaths(doc, ['order.id'])).toThrow(/\$\.order\.id/);
  });

  it('collapses containers once the depth is used up', () => {
    expect(capDepth(doc, 0)).toBe('<object: 3 fields>');
    expect(capDepth(doc, 1)).toEqual({
      order: '<object: 2 fields>',
      totals: '<object: 2 fields>',
      note: 'x',
    });
    expect(capDepth(doc, 2)).toEqual({
      order: { id: 7, lines: '<array: 2 items>' },
      totals: { net: 10, tax: 2 },
      note: 'x',
    });
  });
});
