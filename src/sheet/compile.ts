/**
 * Workbook → ModelSpec. Every sheet is read; each table (an Excel Table, or a block under a header
 * row) becomes an array of rows: constant columns are writable row fields, each filled-down formula
 * column a `$.<table>[*].<field>` derivation reading `$parent`. Formula cells outside the tables
 * become top-level derivations, and the side cells they read top-level inputs. The spec's tests
 * hold the values the workbook stored, and a field whose computed values differ is rejected.
 */
import type { ModelSpec } from '../calc/index.js';
import { columnCode } from './apart.js';
import { summaryFields, tableFields, type FieldSet } from './columns.js';
import { DEFAULT_LIMITS, Rejection, SheetError, type SheetLimits } from './errors.js';
import {
  fieldName,
  reject,
  type ConvertOptions,
  type Field,
  type RejectedColumn,
  type TableModel,
} from './fields.js';
import { LibraryBuilder } from './library.js';
import { compileRecurrences } from './recurrence.js';
import { looseTitle, loosenColumns } from './loose.js';
import { buildReport, groupRejections, type ConversionReport, type SheetOutcome } from './report.js';
import { WorkbookScope } from './scope.js';
import { findTables, formulaResolver, literalFormulas, type TableRegion } from './structure.js';
import { FormulaCompiler } from './translate.js';
import { usedPartReader } from './whole.js';
import { buildSpec, checkSpec, liveParts } from './verify.js';
import { WhatIfVerifier } from './whatif.js';
import { gridLimitsFor } from './grid/limits.js';
import { buildCellMap } from './cellmap.js';
import { cellName, isOwnSheet, readWorkbookParts, type Workbook, type Worksheet } from './xlsx.js';
import { bindClock } from './volatile.js';
import { cancellationOf } from './cancellation.js';
import { rewriteGoogleSheetsCells } from './google.js';

export type { ConvertOptions, ConvertProgress, RejectedColumn, ValueType } from './fields.js';

export interface SheetConversion {
  spec: ModelSpec;
  rejectedColumns: RejectedColumn[];
  /** Formula columns and cells found, and how many made it into the spec. */
  formulaFields: number;
  compiledFields: number;
  report: ConversionReport;
}

/** Reads the workbook and compiles it; throws SheetError for a file refused as a whole. */
export async function convertWorkbook(bytes: Uint8Array, options: ConvertOptions): Promise<SheetConversion> {
  const started = Date.now();
  const limits = options.limits ?? DEFAULT_LIMITS;
  const onSheet =
    options.onProgress &&
    ((done: number, total: number): void => options.onProgress!({ stage: 'read', done, total }));
  return compileWorkbook(
    readWorkbookParts(bytes, limits, onSheet, rewriteGoogleSheetsCells),
    options,
    limits,
    started,
  );
}

/** The tables of every sheet, named for the spec: `rows` for a table at A1 of the first sheet. */
function tablesOf(book: Workbook, limits: SheetLimits, taken: Set<string>): TableModel[] {
  const tables: TableModel[] = [];
  book.sheets.forEach((sheet, i) => {
    // a linked workbook's cached values hold no tables: only the cells formulas read (external.ts);
    // nor does the clock (volatile.ts)
    if (!isOwnSheet(sheet)) return;
    let regions: TableRegion[];
    try {
      regions = findTables(sheet, limits);
    } catch (err) {
      // a table past the row budget leaves its sheet out alone, as the reader does (xlsx.ts)
      if (!(err instanceof SheetError) || err.code !== 'TOO_MANY_ROWS') throw err;
      leaveOut(sheet, err.message);
      return;
    }
    for (const [n, region] of regions.entries()) {
      const legacy = i === 0 && n === 0 && region.headerRow === 1 && region.left === 1 && !region.excel;
      const base = region.excel?.name ?? (regions.length === 1 ? sheet.name : `${sheet.name} ${n + 1}`);
      const name = legacy ? 'rows' : fieldName(base, `table_${tables.length + 1}`, taken);
      if (legacy) taken.add('rows');
      tables.push({ ...regionOf(region), sheet, name, title: titleOf(sheet, region), byCol: new Map() });
    }
  });
  return tables;
}

/** Empties a sheet past a budget; its formula cells are counted for the report (SHEET_TOO_LARGE). */
function leaveOut(sheet: Worksheet, message: string): void {
  let formulaCells = 0;
  for (const c of sheet.cells.values()) if (c.formula) formulaCells++;
  Object.assign(sheet, {
    cells: new Map(),
    maxRow: 0,
    maxCol: 0,
    tables: [],
    tooLarge: { message, formulaCells },
  });
}

/** A sheet left out as SHEET_TOO_LARGE, as the result lists it: one entry for all its formula cells. */
function tooLargeEntry(sheet: Worksheet): RejectedColumn | undefined {
  const t = sheet.tooLarge;
  if (!t) return undefined;
  return {
    sheet: sheet.name,
    column: `sheet '${sheet.name}'`,
    address: sheet.name,
    reason: 'SHEET_TOO_LARGE',
    message: `${t.message}; the sheet is left out (its ${t.formulaCells} formula cells are not compiled) and the other sheets convert`,
    cells: t.formulaCells,
  };
}

const regionOf = (r: TableRegion): Omit<TableRegion, 'excel'> & Pick<TableModel, 'excel'> => r;

function titleOf(sheet: Worksheet, r: TableRegion): string {
  return (
    r.excel?.name ??
    `${sheet.name}!${cellName(r.headerRow || r.firstRow, r.left)}:${cellName(r.lastRow, r.right)}`
  );
}

async function compileWorkbook(
  book: Workbook,
  options: ConvertOptions,
  limits: SheetLimits,
  started: number,
): Promise<SheetConversion> {
  const taken = new Set<string>();
  const set: FieldSet = { fields: [], formulas: new Map(), storedErrors: new Map() };
  // TODAY() and NOW() read as inputs, where what they gave can be found (volatile.ts)
  bindClock(book);
  const literals = book.sheets.map(literalFormulas);
  const tables = tablesOf(book, limits, taken);
  const leftOut = book.sheets.filter((s) => s.tooLarge);
  if (leftOut.length === book.sheets.filter(isOwnSheet).length) {
    throw new SheetError('TOO_MANY_ROWS', leftOut[0]!.tooLarge!.message);
  }
  const scope = new WorkbookScope(book.sheets, tables, set.fields, taken, book.names);
  const resolvers = book.sheets.map((s) => formulaResolver(s, usedPartReader(s, scope), true));
  for (const table of tables) tableFields(table, set, resolvers[book.sheets.indexOf(table.sheet)]!);
  loosenColumns(tables, set);
  book.sheets.forEach((sheet, i) => {
    const inTable = (row: number, col: number): boolean => scope.tableAt(sheet, row, col) !== undefined;
    const titleOf = (row: number, col: number): string | undefined =>
      totalsTitle(tables, sheet, row, col) ?? looseTitle(tables, sheet, row, col);
    const found = summaryFields(sheet, inTable, titleOf, literals[i]!, taken, set, resolvers[i]!);
    for (const f of found) scope.addFormulaCell(f);
  });
  if (tables.length === 0 && set.fields.length === 0) {
    throw new SheetError(
      'NO_TABLE',
      'no sheet of the workbook holds a table (a header row with rows below it) or a formula',
    );
  }
  const lib = new LibraryBuilder(cancellationOf(book));
  compileFields(scope, set, lib, options.onProgress);
  rejectCycles(set.fields);
  compileRecurrences(scope, set.fields, set.formulas, lib, taken);
  for (const [field, rejection] of set.storedErrors) {
    if (field.rejection) continue;
    field.rejection = { ...rejection, formula: `=${field.formulaText ?? ''}` };
  }
  const fields = set.fields;
  const formulaCells = fields.reduce((n, f) => n + f.formulaCells, 0);
  // the stored values' run, then the what-if rounds: each told per slice of rows (slices.ts)
  const verifying = (stage: 'verify' | 'what-if', fraction: number): void =>
    options.onProgress?.({ stage, done: Math.round(fraction * formulaCells), total: formulaCells });
  // the independent evaluation of the workbook's own formulas, for the what-if check (whatif.ts)
  // its budget follows the conversion's time limit unless the caller set one (grid/limits.ts)
  const verifier =
    options.whatIf === false
      ? undefined
      : new WhatIfVerifier(book, {
          ...options.whatIf,
          limits: options.whatIf?.limits ?? gridLimitsFor(limits.timeLimitSeconds, started),
        });
  for (let pass = 0; pass <= fields.length; pass++) {
    propagateRejections(fields);
    const spec = buildSpec(fields, tables, options, lib);
    verifying('verify', 0);
    if (!(await checkSpec(spec, fields, liveParts(fields, tables), verifier, verifying))) {
      const computed = fields.filter((f) => f.kind === 'column' || f.kind === 'summary');
      const sheetsLeftOut = leftOut.flatMap((s) => tooLargeEntry(s) ?? []);
      return {
        spec,
        rejectedColumns: [...sheetsLeftOut, ...groupRejections(fields)],
        formulaFields: computed.length,
        compiledFields: computed.filter((f) => !f.rejection).length,
        report: buildReport(
          outcomes(book, tables, fields, literals, scope),
          verifier?.checks ?? new Map(),
          buildCellMap(liveParts(fields, tables).live),
        ),
      };
    }
  }
  throw new SheetError('PARSE_FAILED', 'the compiled spec did not settle; this is a bug in the converter');
}

/** A cell of a table's totals row (or right under a table) is titled after its column: `Amount total`. */
function totalsTitle(tables: TableModel[], sheet: Worksheet, row: number, col: number): string | undefined {
  const t = tables.find(
    (t) => t.sheet === sheet && col >= t.left && col <= t.right && row === (t.totalsRow ?? t.lastRow + 1),
  );
  return t ? `${t.byCol.get(col)!.title} total` : undefined;
}

/** Compiles every formula field once; side inputs are added to the fields as formulas read them. */
function compileFields(
  scope: WorkbookScope,
  set: FieldSet,
  lib: LibraryBuilder,
  onProgress?: ConvertOptions['onProgress'],
): void {
  const fields = [...set.fields];
  const total = fields.reduce((n, f) => n + f.formulaCells, 0);
  let done = 0;
  let told = -Infinity;
  for (const field of fields) {
    done += field.formulaCells;
    // told every 1% or so: a workbook of many small cells does not call back per cell
    if (onProgress && (done - told >= total / 100 || done === total)) {
      onProgress({ stage: 'compile', done, total });
      told = done;
    }
    const element = field.spillElement;
    if (element) {
      // a cell of a spill: the array's item there (blank past its end), as the sheet shows it
      if (!field.rejection) field.expr = `${element.of.name}[${element.index}]`;
      continue;
    }
    const f = set.formulas.get(field);
    if (!f || field.rejection) continue;
    try {
      field.expr = columnCode(scope, field, f, (g) => new FormulaCompiler(scope, field, lib).compile(g).code);
      field.constant = field.kind === 'summary' && field.deps.size === 0 && field.tables.size === 0;
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      reject(field, err.reason, err.message);
      // a spill's cells are rejected for the array's own reason, not as reading it (spill.ts)
      for (const e of field.spillArray?.elements ?? []) {
        if (!e.rejection) reject(e, err.reason, `${field.address}#: ${err.message}`);
      }
    }
  }
  // a VLOOKUP/HLOOKUP block embedded as constants whose cells a later formula made inputs must
  // follow those inputs: such fields are compiled again, now that every side input is known
  for (const field of fields) {
    const f = set.formulas.get(field);
    const embedded = [...field.tables].filter((t) => t.startsWith('vlookup_'));
    if (!f || field.rejection || embedded.length === 0) continue;
    for (const t of embedded) field.tables.delete(t);
    try {
      field.expr = columnCode(scope, field, f, (g) => new FormulaCompiler(scope, field, lib).compile(g).code);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      reject(field, err.reason, err.message);
    }
  }
}

function outcomes(
  book: Workbook,
  tables: TableModel[],
  fields: Field[],
  literals: ReturnType<typeof literalFormulas>[],
  scope: WorkbookScope,
): SheetOutcome[] {
  const own = book.sheets.filter(isOwnSheet);
  return own.map((sheet, i) => {
    let literalCells = 0;
    for (const cell of literals[i]!.keys()) if (scope.tableAt(sheet, cell.row, cell.col)) literalCells++;
    const outcome: SheetOutcome = {
      name: sheet.name,
      tables: tables.filter((t) => t.sheet === sheet).map((t) => t.name),
      fields: fields.filter((f) => f.sheet === sheet),
      literalCells,
    };
    const left = tooLargeEntry(sheet);
    if (left) outcome.unreached = { count: sheet.tooLarge!.formulaCells, rejection: left };
    return outcome;
  });
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
