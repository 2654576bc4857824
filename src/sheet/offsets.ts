/**
 * Reads of other rows of a table. A column formula in row k that reads row k+d (the row above, the
 * same row of a table beside it, a row further down) becomes `$$.<table>[$index + d].<field>`, with
 * `$index` the row's position (model-spec: `[*]` derivations); a `$`-locked row, or a formula outside
 * the tables, reads one fixed row; a part of a column (`SUM($E$18:$E18)`, a running total) is the
 * rows between two positions. A read landing outside the table reads what the sheet holds there: a
 * blank (0, or "" in a text column) or the constant there (the header, for the row above the first);
 * a formula there is rejected. A formula reading its own column in another row is a recurrence,
 * which is rejected here.
 */
import { Rejection } from './errors.js';
import type { JsonValue } from '../calc/index.js';
import { BLANK, isError, type Field, type TableModel, type ValueType } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { cellKey, cellName } from './xlsx.js';

type RangeFormula = Formula & { kind: 'range' };

/** `$index` shifted by `n` rows. */
const at = (n: number): string => (n === 0 ? '$index' : `$index ${n > 0 ? '+' : '-'} ${Math.abs(n)}`);

/** Rows a column formula is filled into, as sheet rows. */
const formulaRows = (field: Field): [number, number] => [field.row, field.table!.lastRow];

/**
 * What a read at offset `d` finds outside `table` in the rows of the formula: position → value of
 * each cell that is not blank (the header, a note above the table). A formula there is rejected.
 */
function outside(field: Field, table: TableModel, col: number, d: number): Map<number, JsonValue> {
  const [first, last] = formulaRows(field);
  const found = new Map<number, JsonValue>();
  for (let r = first + d; r <= last + d; r++) {
    if (r >= table.firstRow && r <= table.lastRow) continue;
    const c = table.sheet.cells.get(cellKey(r, col));
    if (c?.formula || isError(c?.value)) {
      throw new Rejection(
        'CROSS_ROW_REFERENCE',
        `row ${r - d} reads ${cellName(r, col)}, outside table '${table.title}', which holds a formula or an error`,
      );
    }
    const value = c?.value ?? null;
    if (value !== null && value !== '') found.set(r - table.firstRow, value);
  }
  return found;
}

/** A cell of a table in a row other than the formula's own; `root` reads a top-level name. */
export function otherRowRead(
  field: Field,
  table: TableModel,
  target: Field,
  ref: CellRef,
  where: string,
  root: (name: string) => string,
  /** A read the caller compiles as (a candidate for) a recurrence. */
  recurrent = false,
): { code: string; type: ValueType } {
  const list = root(table.name);
  if (target === field && !recurrent) {
    throw new Rejection(
      ref.rowAbs || field.kind !== 'column' ? 'CIRCULAR_REFERENCE' : 'CROSS_ROW_REFERENCE',
      `${where} lies in another row of the formula's own column (a recurrence, such as a running balance), which is not compiled`,
    );
  }
  if (field.kind !== 'column' || ref.rowAbs) {
    return { code: `${list}[${ref.row - table.firstRow}].${target.name}`, type: target.type };
  }
  const d = ref.row - field.row;
  const found = outside(field, table, target.col, d);
  const shift = d + field.table!.firstRow - table.firstRow;
  const blank = JSON.stringify(BLANK[target.type]);
  // a cell outside the table reads what the sheet holds there: a blank, or the constant (a header)
  const other =
    found.size === 0
      ? blank
      : `($v := $lookup(${JSON.stringify(Object.fromEntries(found))}, $string($at)); $exists($v) ? $v : ${blank})`;
  return {
    code: `($at := ${at(shift)}; $at >= 0 and $at < $count(${list}) ? ${list}[$at].${target.name} : ${other})`,
    type: found.size === 0 ? target.type : 'any',
  };
}

/**
 * A part of one table column read by an aggregate (`SUM($E$18:$E18)`), or undefined when the range
 * is not one (a whole locked column is read elsewhere). Gives the table, its field and the list
 * expression of the rows the range covers.
 */
export function columnPart(
  field: Field,
  f: RangeFormula,
  table: TableModel | undefined,
  root: (name: string) => string,
): { table: TableModel; field: Field; list: string } | undefined {
  const { from, to } = f;
  if (!table || from.col !== to.col || from.row === 0 || to.row < from.row) return undefined;
  if (from.row < table.firstRow || to.row > table.lastRow) return undefined;
  const row = field.kind === 'column';
  const target = table.byCol.get(from.col)!;
  const moving = row && (!from.rowAbs || !to.rowAbs);
  // the whole column, as it stands in every row: read elsewhere
  if (!moving && from.row === table.firstRow && to.row === table.lastRow) return undefined;
  if (moving && target === field) {
    throw new Rejection(
      'CROSS_ROW_REFERENCE',
      `the range ${printFormula(f)} reads the formula's own column (a recurrence), which is not compiled`,
    );
  }
  if (!row && target === field) return undefined;
  const [first, last] = row ? formulaRows(field) : [field.row, field.row];
  const ends = (ref: CellRef): [string, number, number] => {
    if (!row || ref.rowAbs) return [String(ref.row - table.firstRow), ref.row, ref.row];
    const d = ref.row - field.row;
    return [at(d + field.table!.firstRow - table.firstRow), first + d, last + d];
  };
  const [a, a0, a1] = ends(from);
  const [b, b0, b1] = ends(to);
  if (Math.min(a0, a1) < table.firstRow || Math.max(b0, b1) > table.lastRow) {
    throw new Rejection(
      'CROSS_ROW_REFERENCE',
      `the range ${printFormula(f)} moves past the edge of table '${table.title}' in some row`,
    );
  }
  const list = `$filter(${root(table.name)}, function($v, $i) { $i >= ${a} and $i <= ${b} }).${target.name}`;
  return { table, field: target, list };
}
