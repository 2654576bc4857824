/**
 * A table's last row that totals its columns (structure.ts). Two shapes: formulas in columns whose
 * other rows hold none (`=SUM(B3:B9)` under typed numbers), and formulas that read their own
 * column's rows above down to the row right above them (`=SUM(C12:C371)` in C372 under a loan
 * schedule whose payment column is `=$B$8` filled down). A formula filled down never reads its own
 * column down to the row above through a range in every row but the last, so such a cell is a total;
 * left in the table it would be a block of rows apart reading its own column, a recurrence that is
 * not compiled (offsets.ts), and the whole schedule read it. Out of the table it is a summary cell,
 * compiled and checked like any other.
 */
import { MAX_LOOSE_CELLS } from './fields.js';
import type { Formula } from './formula.js';
import { cellKey, type SheetCell, type Worksheet } from './xlsx.js';

/** Whether `f` reads a range of column `col` of its own sheet that ends on row `end`. */
function readsColumnUpTo(f: Formula, sheetName: string, col: number, first: number, end: number): boolean {
  switch (f.kind) {
    case 'range':
      return (
        (f.sheet === undefined || f.sheet === sheetName) &&
        f.from.col === col &&
        f.to.col === col &&
        f.to.row === end &&
        f.from.row >= first - 1 &&
        f.from.row < end
      );
    case 'call':
      return f.args.some((a) => readsColumnUpTo(a, sheetName, col, first, end));
    case 'binary':
      return (
        readsColumnUpTo(f.left, sheetName, col, first, end) ||
        readsColumnUpTo(f.right, sheetName, col, first, end)
      );
    case 'unary':
    case 'percent':
      return readsColumnUpTo(f.operand, sheetName, col, first, end);
    default:
      return false;
  }
}

/**
 * Whether the last row of the block `first`…`last` × `left`…`right` is a totals row: it holds a
 * formula, and each of its formulas either stands in a column whose rows above hold none or, under
 * more than MAX_LOOSE_CELLS formulas, reads its own column's rows above through a range ending on
 * the row right above it. `resolver` makes the sheet's formula reader (structure.ts's, passed in
 * rather than imported, which would make the two modules import each other), only when needed.
 */
export function isTotalsRow(
  sheet: Worksheet,
  first: number,
  last: number,
  left: number,
  right: number,
  resolver: () => (cell: SheetCell) => Formula,
): boolean {
  if (last <= first) return false;
  let resolve: ((cell: SheetCell) => Formula) | undefined;
  let totals = false;
  for (let c = left; c <= right; c++) {
    const cell = sheet.cells.get(cellKey(last, c));
    if (!cell?.formula) continue;
    totals = true;
    let above = 0;
    for (let r = first; r < last; r++) if (sheet.cells.get(cellKey(r, c))?.formula) above++;
    if (above === 0) continue;
    // a shorter column with a last row apart is taken apart cell by cell (columns.ts), the total
    // among its cells, which compile as they are; only a long one stays one column
    if (above <= MAX_LOOSE_CELLS) return false;
    let f: Formula;
    try {
      resolve ??= resolver();
      f = resolve(cell);
    } catch {
      return false;
    }
    if (!readsColumnUpTo(f, sheet.name, c, first, last - 1)) return false;
  }
  return totals;
}
