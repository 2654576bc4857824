/**
 * An aggregate's range that runs past the used part of its sheet (`SUM(A6:A1000001)`,
 * `SUM(X5:X1048576)`, `SUM(V:V)` over a column taken out of its table): the cells past the
 * sheet's last used row are blank, and add nothing to a sum, a count, a minimum or an average, so
 * the range is read as its used part, column by column. A column of a model table whose data
 * rows the range spans, with only blanks, text or the header around them in the range (which an
 * aggregate skips), is the table's whole column, so a row added to the table is summed too; any
 * other column is read cell by cell, within the side-block budget.
 */
import type { Field, TableModel } from './fields.js';
import type { CellRef, Formula } from './formula.js';
import { isLoose } from './loose.js';
import { cellKey, type Worksheet } from './xlsx.js';

type RangeFormula = Formula & { kind: 'range' };

export interface UsedPartReads {
  /** The range is read by a column formula: it must then be `$`-locked (or a whole column). */
  rowMode: boolean;
  /** The cells a side block may read one by one (references.ts). */
  maxCells: number;
  columnList: (table: TableModel, field: Field) => string[];
  cellByCell: (f: RangeFormula) => string[];
}

/** The items of the range's used part, or undefined when the range does not run past it. */
export function usedPartItems(
  f: RangeFormula,
  sheet: Worksheet,
  tables: TableModel[],
  reads: UsedPartReads,
): string[] | undefined {
  const { from, to } = f;
  const whole = from.row === 0 && to.row === 0;
  if (from.col === 0 || to.col < from.col) return undefined;
  if (!whole && (from.row === 0 || to.row <= sheet.maxRow)) return undefined;
  if (reads.rowMode && !whole && !(from.rowAbs && to.rowAbs)) return undefined;
  const top = whole ? 1 : from.row;
  const bottom = sheet.maxRow;
  if (bottom < top) return [];
  const out: string[] = [];
  let cells = 0;
  for (let col = from.col; col <= to.col; col++) {
    const table = tables.find(
      (t) =>
        t.sheet === sheet &&
        col >= t.left &&
        col <= t.right &&
        top <= t.firstRow &&
        bottom >= t.lastRow &&
        !isLoose(t, col) &&
        skippedAround(sheet, col, top, bottom, t),
    );
    if (table) {
      out.push(...reads.columnList(table, table.byCol.get(col)!));
      continue;
    }
    cells += bottom - top + 1;
    if (cells > reads.maxCells) return undefined;
    const cell = (row: number): CellRef => ({
      row,
      col,
      rowAbs: true,
      colAbs: true,
    });
    out.push(...reads.cellByCell({ ...f, from: cell(top), to: cell(bottom) }));
  }
  return out;
}

/** Whether the range's cells of `col` outside the table's data rows are blank, text or its header. */
function skippedAround(sheet: Worksheet, col: number, top: number, bottom: number, t: TableModel): boolean {
  for (let r = top; r <= bottom; r++) {
    if (r >= t.firstRow && r <= t.lastRow) continue;
    const c = sheet.cells.get(cellKey(r, col));
    if (!c || r === t.headerRow) continue;
    if (c.formula || (c.value !== null && typeof c.value !== 'string')) return false;
  }
  return true;
}
