/**
 * A column's compiled code with its blocks of rows apart in front (columns.ts: a first row that
 * adds an `IFERROR`, an opening row of a schedule `=C4` above `=H10` filled down): in such a block
 * its own formula, compiled as the workbook holds it there, elsewhere the formula filled down. Then the
 * typed rows (a typed value in front of both). The same code serves a plain column and a fold's
 * step (recurrence.ts), where `$index` is the fold's row. The formula of a table of one row is
 * one cell's formula too, and is read as such (lockOutside).
 */
import { withTypedRows } from './columns.js';
import type { Field } from './fields.js';
import type { CellRef, Formula } from './formula.js';
import type { WorkbookScope } from './scope.js';

/**
 * `compileAt` compiles a formula of the field (its references read relative to `field.row`, which
 * is set to each apart row while it compiles); `rowVar` is the current row (`$parent`, or a fold's
 * row).
 */
export function columnCode(
  scope: WorkbookScope,
  field: Field,
  formula: Formula,
  compileAt: (f: Formula) => string,
  rowVar = '$parent',
): string {
  // a table of one row (a label and a formula under a two-word header) holds one cell per column
  const table = field.kind === 'column' ? field.table : undefined;
  const oneRow = !!table && table.firstRow === table.lastRow;
  let code = compileAt(oneRow ? lockOutside(scope, field, formula) : formula);
  if (field.apart?.length) {
    const row = field.row;
    const first = field.table!.firstRow;
    // the first block outermost, so that the tests read in row order
    const blocks = [...field.apart].sort((a, b) => b.from - a.from);
    try {
      for (const { from, to, formula: f } of blocks) {
        field.row = from;
        const [a, b] = [from - first, to - first];
        const test = a === b ? `$index = ${a}` : `($index >= ${a} and $index <= ${b})`;
        // a block of one row is one cell's formula (lockOutside)
        const g = a === b ? lockOutside(scope, field, f) : f;
        code = `${test} ? (${compileAt(g)}) : (${code})`;
      }
    } finally {
      field.row = row;
    }
  }
  return withTypedRows(field, code, rowVar);
}

/**
 * A formula that runs in one row only is one cell's formula: a reference of it to a cell outside
 * the tables (`=C4`, the loan amount above a schedule) is that one cell, as if `$`-locked; a
 * column formula must lock such a reference only because filled down it would read another cell
 * in every row. References into tables keep their rows, so the own row and the rows above stay
 * the column's reads.
 */
function lockOutside(scope: WorkbookScope, field: Field, f: Formula): Formula {
  const outside = (sheetName: string | undefined, r: CellRef): boolean => {
    const sheet = scope.sheet(sheetName, field.sheet);
    return r.row > 0 && r.col > 0 && !!sheet && scope.tableAt(sheet, r.row, r.col) === undefined;
  };
  const lock = (r: CellRef): CellRef => ({ ...r, rowAbs: true });
  const walk = (g: Formula): Formula => {
    switch (g.kind) {
      case 'ref':
        return outside(g.sheet, g.ref) ? { ...g, ref: lock(g.ref) } : g;
      case 'range':
        return outside(g.sheet, g.from) && outside(g.sheet, g.to)
          ? { ...g, from: lock(g.from), to: lock(g.to) }
          : g;
      case 'call':
        return { ...g, args: g.args.map(walk) };
      case 'binary':
        return { ...g, left: walk(g.left), right: walk(g.right) };
      case 'unary':
      case 'percent':
        return { ...g, operand: walk(g.operand) };
      default:
        return g;
    }
  };
  return walk(f);
}
