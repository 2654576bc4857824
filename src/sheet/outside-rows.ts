/**
 * Column formulas reading, without `$`, cells outside the tables that move with their row.
 *
 * A spill of one column beside the table (`=SUMIFS(…,$A34)` filled down beside
 * `A34 = SORT(UNIQUE(…))`): row i of the table reads the spill's array at its position there.
 *
 * Line items of a statement (`E2 = B2-D2` filled down beside `B2 = SUMIF(…)`, `B4 = B2-B3` and
 * budget figures typed in D): there is no table of inputs for the row to read. Row k of
 * the column reads the cell k rows down from the one its first row reads, each a formula cell or a
 * typed cell of its own; the column compiles to a choice by row among those cells, so every row
 * still reads exactly the cell the workbook's formula reads there. A cell of a table in that span,
 * or a column longer than MAX_OUTSIDE_ROWS, stays rejected.
 */
import type { Field } from './fields.js';
import type { CellRef } from './formula.js';
import type { HelperName } from './library.js';
import type { WorkbookScope } from './scope.js';
import type { Worksheet } from './xlsx.js';

/** A read's code and the type of what it reads; undefined: not such a read (it stays rejected). */
export type RowRead = { code: string; type: Field['type'] } | undefined;

/** What a read needs of the formula's compiler: a dependency noted, a top-level name, a helper. */
export interface RowReads {
  depend: (f: Field) => void;
  root: (name: string) => string;
  helper: (name: HelperName) => string;
}

/**
 * The spill's array at row i of `field`'s table, blank past the end of a shorter result; only when
 * every row of the table reads a cell of that spill of one column (undefined otherwise: the read
 * stays rejected).
 */
export function spillRowRead(field: Field, target: Field, ref: CellRef, reads: RowReads): RowRead {
  const element = target.spillElement;
  const table = field.table;
  if (!element || !table || field.kind !== 'column') return undefined;
  const array = element.of;
  const area = array.spillArray!;
  if (area.left !== area.right || ref.col !== area.left || array.sheet !== target.sheet) return undefined;
  const d = ref.row - field.row;
  if (table.firstRow + d < area.top || table.lastRow + d > area.bottom) return undefined;
  reads.depend(array);
  const shift = table.firstRow + d - area.top;
  const at = shift === 0 ? '$index' : `$index ${shift > 0 ? '+' : '-'} ${Math.abs(shift)}`;
  return { code: `${reads.helper('xl_arr')}(${reads.root(array.name)})[${at}]`, type: 'any' };
}

/** Longer columns are tables of their own, not statements: the choice would grow with the rows. */
export const MAX_OUTSIDE_ROWS = 120;

/**
 * The code reading `ref` in each row of `field`'s table, or undefined when some row's cell is not
 * a formula cell or side cell outside the tables.
 */
export function outsideRowRead(
  scope: WorkbookScope,
  field: Field,
  sheet: Worksheet,
  ref: CellRef,
  reads: RowReads,
): RowRead {
  const table = field.table;
  if (field.kind !== 'column' || !table) return undefined;
  const rows = table.lastRow - table.firstRow + 1;
  if (rows > MAX_OUTSIDE_ROWS) return undefined;
  const first = table.firstRow + (ref.row - field.row); // the row its first row reads
  if (first < 1) return undefined;
  const targets = Array.from({ length: rows }, (_, k) => scope.target(sheet, first + k, ref.col));
  if (targets.some((t) => t.kind !== 'formula' && t.kind !== 'side')) return undefined;
  // side inputs are made only once every row qualifies: a rejected read leaves no input behind
  const cells = targets.map((t, k) =>
    t.kind === 'formula' ? t.field : scope.sideInput(sheet, first + k, ref.col),
  );
  for (const c of cells) reads.depend(c);
  const types = new Set(cells.map((c) => c.type));
  const type = types.size === 1 ? cells[0]!.type : 'any';
  // the last row is the chain's end: every `$index` of the table is one of 0 … rows - 1
  let code = reads.root(cells[rows - 1]!.name);
  for (let k = rows - 2; k >= 0; k--) code = `$index = ${k} ? ${reads.root(cells[k]!.name)} : (${code})`;
  return { code: `(${code})`, type };
}

/**
 * A block that moves with the row (`SUM(D7:O7)` filled down beside the tables): row k of the
 * column reads the block k rows down from the one its first row reads, its items chosen by
 * `$index`. Undefined when some row's block does not qualify (it is not outside the tables) or the
 * column is longer than MAX_OUTSIDE_ROWS.
 */
export function outsideRowBlocks(
  field: Field,
  from: CellRef,
  to: CellRef,
  qualifies: (top: number, bottom: number) => boolean,
  itemsAt: (top: number, bottom: number) => string[],
): string | undefined {
  const table = field.table;
  if (field.kind !== 'column' || !table || from.rowAbs || to.rowAbs) return undefined;
  const rows = table.lastRow - table.firstRow + 1;
  if (rows > MAX_OUTSIDE_ROWS) return undefined;
  const shift = table.firstRow - field.row; // the block its first row reads
  if (from.row + shift < 1) return undefined;
  const top = from.row + shift;
  const bottom = to.row + shift;
  // every row checked before any is read: reading makes side inputs, and a read that stays
  // rejected must leave none behind
  for (let k = 0; k < rows; k++) if (!qualifies(top + k, bottom + k)) return undefined;
  const lists = Array.from({ length: rows }, (_, k) => `[${itemsAt(top + k, bottom + k).join(', ')}]`);
  // the chain's last list is its end: every `$index` of the table is one of 0 … rows - 1
  let code = lists[rows - 1]!;
  for (let k = rows - 2; k >= 0; k--) code = `$index = ${k} ? ${lists[k]} : (${code})`;
  return `(${code})`;
}
