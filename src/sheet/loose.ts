/**
 * Columns that are not table columns. A column whose rows hold different formulas, or formulas in
 * some rows and constants in others, is usually a block of separate cells (a dashboard, a form, a
 * projection under a table of inputs) that happens to sit under a header. Such a column is taken
 * out of its table: each of its formula cells becomes a summary cell of its own, each constant a
 * side cell a formula may read. The table keeps its other columns.
 */
import type { FieldSet } from './columns.js';
import { headerText } from './structure.js';
import type { Field, TableModel } from './fields.js';
import { cellKey, cellName, type Worksheet } from './xlsx.js';

import { MAX_LOOSE_CELLS } from './fields.js';
export { MAX_LOOSE_CELLS };

/** Takes the non-uniform columns out of their tables and out of `set`; returns how many were taken. */
export function loosenColumns(tables: TableModel[], set: FieldSet): number {
  const out = new Set<Field>();
  for (const table of tables) {
    for (const [col, field] of table.byCol) {
      if (field.rejection?.reason !== 'NON_UNIFORM_FORMULA' || field.formulaCells > MAX_LOOSE_CELLS) continue;
      (table.loose ??= new Set()).add(col);
      out.add(field);
    }
  }
  if (out.size === 0) return 0;
  set.fields.splice(0, set.fields.length, ...set.fields.filter((f) => !out.has(f)));
  for (const f of out) {
    set.formulas.delete(f);
    set.storedErrors.delete(f);
  }
  return out.size;
}

/** Whether a column of a table was taken out of it. */
export const isLoose = (table: TableModel, col: number): boolean => table.loose?.has(col) === true;

/**
 * The title of a cell of a loose column: its row's label (the text in the table's first column)
 * and the column's header, `Income Forecast`; the header and the cell when the row has no label.
 */
export function looseTitle(
  tables: TableModel[],
  sheet: Worksheet,
  row: number,
  col: number,
): string | undefined {
  const t = tables.find((t) => t.sheet === sheet && isLoose(t, col) && row >= t.firstRow && row <= t.lastRow);
  if (!t) return undefined;
  const header = t.byCol.get(col)!.title;
  const first = t.left < col ? sheet.cells.get(cellKey(row, t.left)) : undefined;
  const rowLabel = typeof first?.value === 'string' && !first.formula ? headerText(first) : '';
  return rowLabel !== '' ? `${rowLabel} ${header}` : `${header} ${cellName(row, col)}`;
}
