/**
 * ROW, COLUMN, ROWS, COLUMNS: a reference's position or size, known when the formula is compiled
 * (no read of the referenced cells). In a column formula a row that moves with the formula is
 * `$index` (the row's position, model-spec `[*]` derivations) plus the sheet row of position 0.
 */
import { Rejection } from './errors.js';
import type { Field } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import type { Compiled } from './references.js';
import { cellKey } from './xlsx.js';

/** A spreadsheet's row count, what a whole-column reference (`A:A`) spans. */
const SHEET_ROWS = 1_048_576;

export interface PositionContext {
  field: Field;
  resolve: (f: Formula) => Formula;
}

/** The sheet row of one end of a reference, as a constant or a JSONata expression over `$index`. */
function rowOf(ref: CellRef, ctx: PositionContext, end: 'from' | 'to'): number | string {
  if (ref.row === 0) return end === 'from' ? 1 : SHEET_ROWS;
  const { field } = ctx;
  if (field.kind !== 'column' || ref.rowAbs) return ref.row;
  const shift = ref.row - field.row + field.table!.firstRow;
  return shift === 0 ? '$index' : `($index ${shift > 0 ? '+' : '-'} ${Math.abs(shift)})`;
}

/** The cell or range an argument names, as [from, to]. */
function span(arg: Formula, name: string, ctx: PositionContext): [CellRef, CellRef] {
  const r = ctx.resolve(arg);
  if (r.kind === 'ref') return [r.ref, r.ref];
  if (r.kind === 'range') return [r.from, r.to];
  throw new Rejection('UNSUPPORTED_REFERENCE', `${name} reads a reference; ${printFormula(arg)} is not one`);
}

const num = (code: number | string): Compiled => ({ code: String(code), type: 'number' });

/**
 * FORMULATEXT of one fixed cell of the formula's own sheet: the text the workbook holds for it, as a
 * constant (a cell's formula is part of the workbook, not of its values). A cell that moves with a
 * column formula, another sheet's cell, or a shared formula's follower (stored without its text) is
 * refused; a wrong text would still be caught by the stored value.
 */
function formulaText(args: Formula[], ctx: PositionContext): Compiled {
  const arg = args.length === 1 ? ctx.resolve(args[0]!) : undefined;
  if (!arg || arg.kind !== 'ref' || arg.sheet !== undefined) {
    throw new Rejection('UNSUPPORTED_REFERENCE', 'FORMULATEXT reads one cell of its own sheet');
  }
  const { field } = ctx;
  if (field.kind === 'column' && !arg.ref.rowAbs) {
    throw new Rejection(
      'UNSUPPORTED_REFERENCE',
      'FORMULATEXT of a cell that moves with the row is not compiled',
    );
  }
  const text = field.sheet.cells.get(cellKey(arg.ref.row, arg.ref.col))?.formula?.text;
  if (text === undefined) {
    throw new Rejection(
      'UNSUPPORTED_REFERENCE',
      `FORMULATEXT of ${printFormula(arg)}: no formula text is stored there`,
    );
  }
  // the file spells newer functions with a prefix a spreadsheet does not show
  const shown = `=${text.replace(/_xl(fn|ws)\./gi, '')}`;
  return { code: JSON.stringify(shown), type: 'string' };
}

/** ROW, COLUMN, ROWS, COLUMNS and FORMULATEXT compiled; undefined for any other name. */
export function compilePosition(name: string, args: Formula[], ctx: PositionContext): Compiled | undefined {
  if (name === 'FORMULATEXT') return formulaText(args, ctx);
  if (name !== 'ROW' && name !== 'COLUMN' && name !== 'ROWS' && name !== 'COLUMNS') return undefined;
  const own = name === 'ROW' || name === 'COLUMN';
  if (args.length > 1 || (!own && args.length === 0)) {
    throw new Rejection('UNSUPPORTED_SYNTAX', `${name} takes ${own ? '0 or 1 arguments' : 'one range'}`);
  }
  const { field } = ctx;
  // no argument: the formula's own cell
  const self: CellRef = { row: field.row, col: field.col, rowAbs: false, colAbs: false };
  const [from, to] = args[0] ? span(args[0], name, ctx) : [self, self];
  switch (name) {
    case 'COLUMN':
      return num(from.col);
    case 'COLUMNS':
      return num(to.col - from.col + 1);
    case 'ROW':
      return num(rowOf(from, ctx, 'from'));
    default: {
      const a = rowOf(from, ctx, 'from');
      const b = rowOf(to, ctx, 'to');
      if (typeof a === 'number' && typeof b === 'number') return num(b - a + 1);
      return num(`(${b} - ${a} + 1)`);
    }
  }
}
