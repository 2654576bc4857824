import { describe, expect, it } from 'vitest';
import { capDepth, projectPaths } from '../../src/calc/index.js';

const doc = { order: { id: 7, lines: [{ sku: 'a' }, { sku: 'b' }] }, totals: { net: 10, tax: 2 }, note: 'x' };

describe('state projection', () => {
  it('keeps only the requested subtrees at their addresses, skipping absent ones', () => {
    expect(projectPaths(doc, ['$.totals.net', '$.order.lines[1]', '$.missing'])).toEqual({
      totals: { net: 10 },
      order: { lines: [null, { sku: 'b' }] },
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
