/**
 * What the grid evaluator needs for SUBTOTAL beyond the aggregate itself: which formulas are
 * subtotals (a SUBTOTAL or AGGREGATE call anywhere in them), whose cells every SUBTOTAL over them
 * leaves out.
 */
import type { Formula } from '../formula.js';
import type { Workbook } from '../xlsx.js';
import { GridUnsupported } from './functions.js';
import type { Area } from './tables.js';
import { isMatrix, type GridValue } from './values.js';

const known = new WeakMap<Formula, boolean>();

/** Whether a parsed formula calls SUBTOTAL or AGGREGATE anywhere. */
export function containsSubtotal(f: Formula): boolean {
  const seen = known.get(f);
  if (seen !== undefined) return seen;
  let found: boolean;
  switch (f.kind) {
    case 'call':
      found = f.name === 'SUBTOTAL' || f.name === 'AGGREGATE' || f.args.some(containsSubtotal);
      break;
    case 'binary':
      found = containsSubtotal(f.left) || containsSubtotal(f.right);
      break;
    case 'unary':
    case 'percent':
      found = containsSubtotal(f.operand);
      break;
    default:
      found = false;
  }
  known.set(f, found);
  return found;
}

/**
 * SUBTOTAL's evaluated ranges with the subtotal cells in them made blank, as Excel leaves them out;
 * a range with a hidden row (which SUBTOTAL may skip) is not evaluated.
 */
export function blankSubtotals(
  f: Formula & { kind: 'call' },
  args: GridValue[],
  blockOf: (a: Formula) => Area | undefined,
  book: Workbook,
  cells: ReadonlyMap<string, { formula?: Formula }>,
): void {
  f.args.forEach((a, i) => {
    const area = i === 0 ? undefined : blockOf(a);
    if (!area) return;
    for (const row of book.sheets[area.sheet]!.hiddenRows ?? []) {
      if (row >= area.top && row <= area.bottom)
        throw new GridUnsupported(`SUBTOTAL over row ${row}, which is hidden, is not evaluated`);
    }
    for (let r = area.top; r <= area.bottom; r++) {
      for (let c = area.left; c <= area.right; c++) {
        const formula = cells.get(`${area.sheet}:${r}:${c}`)?.formula;
        if (!formula || !containsSubtotal(formula)) continue;
        const v = args[i]!;
        if (isMatrix(v)) v[r - area.top]![c - area.left] = null;
        else args[i] = null;
      }
    }
  });
}
