import { describe, expect, it } from 'vitest';
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
