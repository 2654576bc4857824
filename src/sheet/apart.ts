/**
 * A column's compiled code with its rows apart in front (columns.ts: a first row that adds an
 * `IFERROR`, an opening or closing row of a schedule): at such a row the row's own formula,
 * compiled as the workbook holds it there, elsewhere the formula filled down. Then the typed rows
 * (a typed value in front of both). The same code serves a plain column and a fold's step
 * (recurrence.ts), where `$index` is the fold's row.
 */
import { withTypedRows } from './columns.js';
import type { Field } from './fields.js';
import type { Formula } from './formula.js';

/**
 * `compileAt` compiles a formula of the field (its references read relative to `field.row`, which
 * is set to each apart row while it compiles); `rowVar` is the current row (`$parent`, or a fold's
 * row).
 */
export function columnCode(
  field: Field,
  formula: Formula,
  compileAt: (f: Formula) => string,
  rowVar = '$parent',
): string {
  let code = compileAt(formula);
  if (field.apart?.size) {
    const row = field.row;
    const first = field.table!.firstRow;
    // the first apart row outermost, so that the tests read in row order
    const apart = [...field.apart].sort(([a], [b]) => b - a);
    try {
      for (const [r, f] of apart) {
        field.row = r;
        code = `$index = ${r - first} ? (${compileAt(f)}) : (${code})`;
      }
    } finally {
      field.row = row;
    }
  }
  return withTypedRows(field, code, rowVar);
}
