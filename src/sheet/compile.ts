/**
 * Workbook → ModelSpec. The first worksheet's header-row table becomes `rows`: constant columns are
 * writable row fields, each filled-down formula column a `$.rows[*].<field>` derivation reading
 * `$parent`; formula cells outside the table become plain derivations. The spec's tests hold the
 * values the workbook stored, and a column whose computed values differ is rejected.
 */
import type { ModelSpec } from '../calc/index.js';
import { DEFAULT_LIMITS, Rejection, SheetError, type SheetLimits } from './errors.js';
import {
  fieldName,
  isError,
  label,
  reject,
  typeOf,
  type Field,
  type RejectedColumn,
  type Table,
} from './fields.js';
import { printFormula, rowRelativeKey, type Formula } from './formula.js';
import { LibraryBuilder } from './library.js';
import { buildReport, groupRejections, type ConversionReport } from './report.js';
import { findTable, foreignSheet, formulaResolver, headerText, literalFormulas } from './structure.js';
import { FormulaCompiler } from './translate.js';
import { buildSpec, checkSpec, rowsOf } from './verify.js';
import { cellKey, cellName, columnLetter, readWorkbook, type SheetCell, type Worksheet } from './xlsx.js';

export type { RejectedColumn, ValueType } from './fields.js';

export interface SheetConversion {
  spec: ModelSpec;
  rejectedColumns: RejectedColumn[];
  /** Formula columns and cells found, and how many made it into the spec. */
  formulaFields: number;
  compiledFields: number;
  report: ConversionReport;
}

export interface ConvertOptions {
  modelId: string;
  /** Names the source in the spec's descriptions and test. */
  filename?: string;
  limits?: SheetLimits;
}

/** Reads the workbook and compiles it; throws SheetError for a file refused as a whole. */
export async function convertWorkbook(bytes: Uint8Array, options: ConvertOptions): Promise<SheetConversion> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const sheet = readWorkbook(bytes, limits);
  return compileWorksheet(sheet, options, limits);
}

async function compileWorksheet(
  sheet: Worksheet,
  options: ConvertOptions,
  limits: SheetLimits,
): Promise<SheetConversion> {
  const literals = literalFormulas(sheet);
  const { columns, lastRow } = findTable(sheet, limits);
  const resolve = formulaResolver(sheet);
  const taken = new Set<string>();
  const table: Table = { sheet, columns, lastRow, byCol: new Map(), byCell: new Map() };
  const fields: Field[] = [];
  const formulas = new Map<Field, Formula>();
  // a stored error is reported after compilation, so that a circular reference is named as such
  const storedErrors = new Map<Field, RejectedColumn>();

  // table columns
  for (let col = 1; col <= columns; col++) {
    const title = headerText(sheet.cells.get(cellKey(1, col)));
    const letter = columnLetter(col);
    const field: Field = {
      name: fieldName(title, `col_${letter}`, taken),
      title: title || letter,
      address: letter,
      kind: 'input',
      col,
      row: 2,
      type: 'number',
      tables: new Set(),
      deps: new Set(),
      formulaCells: 0,
    };
    fields.push(field);
    table.byCol.set(col, field);
    const cells: (SheetCell | undefined)[] = [];
    for (let r = 2; r <= lastRow; r++) cells.push(sheet.cells.get(cellKey(r, col)));
    const withFormula = cells.filter((c) => c?.formula);
    field.formulaCells = withFormula.length;
    const values = cells.map((c) => c?.value ?? null);
    const errorCell = cells.find((c) => isError(c?.value));
    if (withFormula.length === 0) {
      field.type = typeOf(values.filter((v) => v !== null && !isError(v)));
      if (errorCell) {
        reject(
          field,
          'ERROR_VALUE',
          `${cellName(errorCell.row, col)} holds the error ${(errorCell.value as { error: string }).error}`,
          {
            cell: cellName(errorCell.row, col),
          },
        );
      }
      continue;
    }
    field.kind = 'column';
    const first = withFormula[0]!;
    field.row = first.row;
    try {
      const f = resolve(first);
      field.formulaText = printFormula(f);
      formulas.set(field, f);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      field.formulaText = first.formula?.text;
      reject(field, err.reason, `${cellName(first.row, col)}: ${err.message}`);
      continue;
    }
    const foreign = foreignSheet(formulas.get(field)!, sheet.name);
    if (foreign) {
      reject(
        field,
        'CROSS_SHEET_REFERENCE',
        `${cellName(first.row, col)} reads ${foreign} on another sheet; only the first sheet is compiled`,
      );
      continue;
    }
    const constant = cells.findIndex((c) => !c?.formula);
    if (constant >= 0) {
      reject(
        field,
        'NON_UNIFORM_FORMULA',
        `${cellName(constant + 2, col)} is blank or holds a constant while ${cellName(first.row, col)} holds a formula; a computed column needs the same formula in every row`,
      );
      continue;
    }
    const arrayCell = cells.find((c) => c?.formula?.array);
    if (arrayCell) {
      reject(
        field,
        'ARRAY_FORMULA',
        `${cellName(arrayCell.row, col)} is a legacy array (Ctrl+Shift+Enter) formula, which is not compiled`,
      );
      continue;
    }
    const key = rowRelativeKey(formulas.get(field)!, first.row);
    for (const c of cells as SheetCell[]) {
      let f: Formula;
      try {
        f = resolve(c);
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        reject(field, err.reason, `${cellName(c.row, col)}: ${err.message}`);
        break;
      }
      if (rowRelativeKey(f, c.row) !== key) {
        reject(
          field,
          'NON_UNIFORM_FORMULA',
          `${cellName(c.row, col)} holds =${printFormula(f)}, which is not ${cellName(first.row, col)}'s =${field.formulaText} filled down`,
        );
        break;
      }
    }
    if (field.rejection) continue;
    if (errorCell) {
      const error = (errorCell.value as { error: string }).error;
      storedErrors.set(field, {
        column: field.title,
        address: field.address,
        reason: 'ERROR_VALUE',
        message: `${cellName(errorCell.row, col)} evaluates to ${error} in the workbook`,
        cell: cellName(errorCell.row, col),
        expected: error,
      });
      continue;
    }
    const missing = cells.find((c) => c!.value === null);
    if (missing) {
      storedErrors.set(field, {
        column: field.title,
        address: field.address,
        reason: 'ERROR_VALUE',
        message: `${cellName(missing.row, col)} has no stored result; recalculate and save the workbook in a spreadsheet program first`,
        cell: cellName(missing.row, col),
      });
      continue;
    }
    field.type = typeOf(values);
  }

  // formula cells outside the table: summary fields
  for (const cell of sheet.cells.values()) {
    const inTable = cell.col <= columns && cell.row <= lastRow;
    if (inTable) continue;
    // a literal formula outside the table (`=125`) is still a formula cell of its own
    const literal = literals.get(cell);
    if (literal) cell.formula = literal;
    if (!cell.formula) continue;
    const address = cellName(cell.row, cell.col);
    const title = label(sheet, cell.row, cell.col) ?? address;
    const field: Field = {
      name: fieldName(title, address, taken),
      title,
      address,
      kind: 'summary',
      col: cell.col,
      row: cell.row,
      type: 'any',
      tables: new Set(),
      deps: new Set(),
      formulaCells: 1,
    };
    fields.push(field);
    table.byCell.set(cellKey(cell.row, cell.col), field);
    try {
      const f = resolve(cell);
      field.formulaText = printFormula(f);
      formulas.set(field, f);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      field.formulaText = cell.formula.text;
      reject(field, err.reason, `${address}: ${err.message}`);
      continue;
    }
    if (cell.formula.array) {
      reject(
        field,
        'ARRAY_FORMULA',
        `${address} is a legacy array (Ctrl+Shift+Enter) formula, which is not compiled`,
      );
    } else if (isError(cell.value)) {
      storedErrors.set(field, {
        column: title,
        address,
        reason: 'ERROR_VALUE',
        message: `${address} evaluates to ${cell.value.error} in the workbook`,
        cell: address,
        expected: cell.value.error,
      });
    } else if (cell.value === null) {
      storedErrors.set(field, {
        column: title,
        address,
        reason: 'ERROR_VALUE',
        message: `${address} has no stored result; recalculate and save the workbook first`,
        cell: address,
      });
    } else {
      field.type = typeOf([cell.value]);
    }
  }

  // compile every formula field once; the library keeps the side tables
  const lib = new LibraryBuilder();
  for (const field of fields) {
    const f = formulas.get(field);
    if (!f || field.rejection) continue;
    try {
      const c = new FormulaCompiler(table, field, lib).compile(f);
      field.expr = c.code;
      field.constant = field.kind === 'summary' && field.deps.size === 0 && field.tables.size === 0;
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      reject(field, err.reason, err.message);
    }
  }
  rejectCycles(fields);
  for (const [field, rejection] of storedErrors) {
    if (field.rejection) continue;
    field.rejection = { ...rejection, formula: `=${field.formulaText ?? ''}` };
  }

  const given = rowsOf(sheet, fields, lastRow);
  const computed = fields.filter((f) => f.kind !== 'input');
  for (let pass = 0; pass <= fields.length; pass++) {
    propagateRejections(fields);
    const spec = buildSpec(fields, given, sheet, lastRow, options, lib);
    const mismatched = await checkSpec(spec, fields, sheet);
    if (!mismatched) {
      let literalCells = 0;
      for (const cell of literals.keys()) if (cell.col <= columns && cell.row <= lastRow) literalCells++;
      return {
        spec,
        rejectedColumns: groupRejections(fields),
        formulaFields: computed.length,
        compiledFields: computed.filter((f) => !f.rejection).length,
        report: buildReport([{ name: sheet.name, tables: ['rows'], fields, literalCells }]),
      };
    }
  }
  throw new SheetError('PARSE_FAILED', 'the compiled spec did not settle; this is a bug in the converter');
}

function propagateRejections(fields: Field[]): void {
  for (let changed = true; changed;) {
    changed = false;
    for (const f of fields) {
      if (f.rejection) continue;
      const bad = [...f.deps].find((d) => d.rejection);
      if (bad) {
        reject(
          f,
          'DEPENDS_ON_REJECTED',
          `reads ${bad.kind === 'summary' ? 'cell' : 'column'} '${bad.title}' (${bad.address}), which was rejected`,
        );
        changed = true;
      }
    }
  }
}

function rejectCycles(fields: Field[]): void {
  const state = new Map<Field, 1 | 2>();
  const stack: Field[] = [];
  const visit = (f: Field): void => {
    if (state.get(f) === 2) return;
    if (state.get(f) === 1) {
      const cycle = stack.slice(stack.indexOf(f));
      const names = cycle.map((c) => `${c.title} (${c.address})`).join(' → ');
      for (const c of cycle) reject(c, 'CIRCULAR_REFERENCE', `circular reference: ${names} → ${f.title}`);
      return;
    }
    state.set(f, 1);
    stack.push(f);
    for (const d of f.deps) visit(d);
    stack.pop();
    state.set(f, 2);
  };
  for (const f of fields) visit(f);
}
