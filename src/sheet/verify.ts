/** The spec built from the compiled fields, and the check that it reproduces the workbook's values. */
import { sheetViewDefinition } from './view-emission.js';
import {
  evalExpression,
  jsonEqual,
  normalizeSpec,
  validateSpec,
  type JsonObject,
  type JsonValue,
  type ModelSpec,
} from '../calc/index.js';
import { SheetError } from './errors.js';
import {
  BLANK,
  blankOf,
  isError,
  reject,
  type ConvertOptions,
  type Field,
  type TableModel,
} from './fields.js';
import { cellsOf } from './cellmap.js';
import { spilledValues } from './spill.js';
import { approxEqual } from './grid/values.js';
import { sameAtDigits, storedDigits } from './stored-digits.js';
import { HELPER_NAMES, type Derived, type LibraryBuilder } from './library.js';
import { SpecRunner } from './slices.js';
import type { LiveParts, WhatIfVerifier } from './whatif.js';
import { cellKey, cellName, isOwnSheet } from './xlsx.js';

/**
 * The workbook's rows of a table as the spec gives them. Each row is made by Object.fromEntries:
 * a row built by assigning its fields one by one falls into V8's dictionary mode past a dozen
 * fields (about 60 bytes a value: 60 MB for 10,000 rows × 90 columns), one made whole is a compact
 * object (about 8 MB).
 */
function rowsOf(table: TableModel, fields: Field[]): JsonObject[] {
  const columns = fields.filter((f) => f.table === table && f.kind === 'input' && !f.rejection);
  const rows: JsonObject[] = [];
  for (let r = table.firstRow; r <= table.lastRow; r++) {
    rows.push(
      Object.fromEntries<JsonValue>(
        columns.map((f): [string, JsonValue] => {
          // the typed values of a column with typed rows (columns.ts): blank at the formula's rows
          if (f.typedRows && !f.typedRows.has(r)) return [f.name, null];
          const v = table.sheet.cells.get(cellKey(r, f.col))?.value ?? null;
          return [f.name, v === null || isError(v) ? blankOf(f) : v];
        }),
      ),
    );
  }
  return rows;
}

/** Where a field comes from, for people: `column F`, `cell E4`, with the sheet when there are several. */
function origin(f: Field): string {
  const clock = f.sheet.clock;
  if (clock) {
    return `what ${f.title} gave when the workbook was last computed: ${clock.found.get(f.row) ?? 'as stored'}; set it to recompute for another moment`;
  }
  const link = f.sheet.external;
  if (link) {
    return `cell ${f.address} of sheet '${link.sheet}' of the linked workbook '${link.file}' (${f.sheet.name}; the value this file cached for the link)`;
  }
  const where = f.kind === 'column' || f.kind === 'input' ? `column ${f.address}` : `cell ${f.address}`;
  return f.sheet.sheetNames.length > 1 ? `${where} of sheet '${f.sheet.name}'` : where;
}

function schemaOf(f: Field): JsonObject {
  const s: JsonObject = { title: f.title };
  if (f.type !== 'any') s.type = f.type;
  // the cell map in the field itself (cellmap.ts): a column's range, a top-level field's cell
  s[f.table ? 'x-cells' : 'x-cell'] = cellsOf(f);
  // a top-level input starts as the workbook has it (a table's rows are its array's default)
  if (f.kind === 'side') s.default = f.value ?? BLANK[f.type];
  else if (f.constant) s.default = storedValue(f);
  if (f.constant) {
    s.description = `=${f.formulaText ?? ''} (${origin(f)}), a formula of constants: its value`;
  } else if (f.kind === 'side') {
    s.description = `${origin(f)}, read by formulas`;
  } else if (f.kind !== 'input') {
    s.readOnly = true;
    s.description = `=${f.formulaText ?? ''} (${origin(f)})`;
  } else {
    s.description = origin(f);
  }
  return s;
}

/**
 * A compiled expression as the spec holds it: the plain IEEE double, which is what the
 * spreadsheet computes and writes to the file (its 15 digits are a display format only; rounding
 * each step of a recurrence to them drifted from the stored values).
 */
const keptExpr = (f: Field): string => f.expr!;

/** A formula cell's stored value; a spill's array, its cells' values in order (spill.ts). */
const storedValue = (f: Field): JsonValue =>
  f.spillArray ? spilledValues(f) : f.sheet.cells.get(cellKey(f.row, f.col))!.value;

/**
 * What goes into the spec: fields not rejected; of the tables, those with a computed column or
 * read by a compiled formula (all of them when none is); of the side inputs, those a formula reads.
 */
export function liveParts(fields: Field[], tables: TableModel[]): { live: Field[]; used: TableModel[] } {
  const ok = fields.filter((f) => !f.rejection);
  const read = new Set<Field>();
  for (const f of ok) for (const d of f.deps) read.add(d);
  const reached = tables.filter((t) => ok.some((f) => f.table === t && (f.kind === 'column' || read.has(f))));
  // a workbook whose tables neither compute nor are read keeps them all: it is a data model
  const used = reached.length > 0 ? reached : tables;
  const live = ok.filter((f) => (f.table ? used.includes(f.table) : f.kind !== 'side' || read.has(f)));
  return { live, used };
}

/** The test's `given` and `expect`: the workbook's inputs and every value it stored for a live formula. */
function testOf(
  live: Field[],
  used: TableModel[],
  rows: Map<TableModel, JsonObject[]>,
): { given: JsonObject; expect: JsonObject } {
  const given: JsonObject = {};
  const expect: JsonObject = {};
  for (const t of used) given[`$.${t.name}`] = rows.get(t)!;
  for (const f of live) {
    if (f.kind === 'side') given[`$.${f.name}`] = f.value ?? null;
    else if (f.constant) given[`$.${f.name}`] = storedValue(f);
    else if (f.kind === 'column') {
      const t = f.table!;
      for (let r = t.firstRow; r <= t.lastRow; r++) {
        const stored = t.sheet.cells.get(cellKey(r, f.col))?.value ?? null;
        // a blank typed row (columns.ts) is the blank its typed input is given
        const blankTyped = stored === null && f.typed?.typedRows?.has(r);
        expect[`$.${t.name}[${r - t.firstRow}].${f.name}`] = blankTyped ? blankOf(f.typed!) : stored;
      }
    } else if (f.kind === 'summary') expect[`$.${f.name}`] = storedValue(f);
  }
  return { given, expect };
}

function schemaProperties(
  live: Field[],
  used: TableModel[],
  rows: Map<TableModel, JsonObject[]>,
): JsonObject {
  const props: JsonObject = {};
  for (const t of used) {
    const rowProps: JsonObject = {};
    for (const f of live) if (f.table === t) rowProps[f.name] = schemaOf(f);
    props[t.name] = {
      type: 'array',
      description: `The table ${t.title} of sheet '${t.sheet.name}', one object per row`,
      items: { type: 'object', properties: rowProps },
      // a new model starts where the workbook is: its rows, as the workbook holds them (the same
      // rows as the test's given: one copy in memory, written out twice)
      default: rows.get(t)!,
    };
  }
  for (const f of live) if (!f.table) props[f.name] = schemaOf(f);
  return props;
}

/** A recurrence (recurrence.ts): the fold that builds its columns, once, before them. */
function foldOnce(f: Field, folds: Set<string>, exprs: string[], derivations: JsonObject[]): void {
  if (!f.fold || folds.has(f.fold.name)) return;
  folds.add(f.fold.name);
  exprs.push(f.fold.expr);
  derivations.push({
    path: `$.${f.fold.name}`,
    expr: f.fold.expr,
    description: `the rows of ${f.fold.members.map((m) => m.title).join(', ')}, each from the row before`,
  });
}

export function buildSpec(
  fields: Field[],
  tables: TableModel[],
  options: ConvertOptions,
  lib: LibraryBuilder,
): ModelSpec {
  const { live, used } = liveParts(fields, tables);
  const derivations: JsonObject[] = [];
  const usedTables = new Set<string>();
  const exprs: string[] = [];
  const source = options.filename ?? 'the workbook';
  const folds = new Set<string>();
  for (const f of live) {
    if (f.kind === 'input' || f.kind === 'side') continue;
    for (const t of f.tables) usedTables.add(t);
    foldOnce(f, folds, exprs, derivations);
    exprs.push(keptExpr(f));
    if (f.constant) continue;
    derivations.push({
      path: f.kind === 'column' ? `$.${f.table!.name}[*].${f.name}` : `$.${f.name}`,
      expr: keptExpr(f),
      description: `${f.title}: =${f.formulaText ?? ''} (${origin(f)})`,
    });
  }
  const libUse = lib.clone();
  // helpers: re-mark those the live expressions call
  const allExpr = exprs.join('\n');
  for (const name of HELPER_NAMES) if (allExpr.includes(`$${name}(`)) libUse.use(name);
  if (usedTables.size > 0) libUse.use('xl_eq');
  const indexes = lib.indexDerivations(allExpr);
  for (const x of indexes) derivations.unshift(derivedField(x, libUse));
  const define = libUse.define(usedTables);
  const tableRows = new Map(used.map((t) => [t, rowsOf(t, live)]));
  const { given, expect } = testOf(live, used, tableRows);
  const sheets = [...new Set(fields.filter((f) => isOwnSheet(f.sheet)).map((f) => f.sheet.name))];
  const rows = used.reduce((n, t) => n + t.lastRow - t.firstRow + 1, 0);
  const raw: JsonObject = {
    id: options.modelId,
    version: '1.0.0',
    schema: {
      type: 'object',
      description: `Compiled from ${sheets.length === 1 ? `sheet '${sheets[0]}'` : `sheets ${sheets.map((s) => `'${s}'`).join(', ')}`} of ${source}`,
      properties: {
        ...schemaProperties(live, used, tableRows),
        ...Object.fromEntries(
          indexes.map((x) => [
            x.name,
            {
              type: x.type ?? 'object',
              readOnly: true,
              description: x.description ?? `lookup index of ${x.table}.${x.column}`,
            },
          ]),
        ),
      },
    },
    defaultValues: used.map((t) => ({
      path: `$.${t.name}[*]`,
      expr: JSON.stringify(
        Object.fromEntries(
          live.filter((f) => f.table === t && f.kind === 'input').map((f) => [f.name, BLANK[f.type]]),
        ),
      ),
      description: 'blank cells of a new row',
    })),
    derivations,
    tests: [{ description: `the values ${source} stored for its ${rows} rows`, given, expect }],
    viewDefinition: sheetViewDefinition(live, used, source),
  };
  if (define !== undefined) {
    raw.library = {
      description: 'Spreadsheet semantics and side tables, compiled from the workbook',
      define,
    };
  }
  return normalizeSpec(raw).spec;
}

/** The derivation of a lookup index or aggregate (criteria.ts), marking the helpers it calls. */
function derivedField(x: Derived, libUse: LibraryBuilder): JsonObject {
  for (const name of HELPER_NAMES) if (x.expr.includes(`$${name}(`)) libUse.use(name);
  return {
    path: `$.${x.name}`,
    expr: x.expr,
    description: x.description ?? `lookup index of ${x.table}.${x.column}: each value to its first row`,
  };
}

/**
 * The stored double and the compiled one are equal when they are the same double, or differ only in
 * the last bits as Excel's and LibreOffice's own `=` allows (relative 2^-48, approxEqual): the file
 * holds the full double, so nothing is rounded to 15 digits; a function computed in another order
 * (PMT, FV) may end a bit or two apart.
 */
const sameNumber = (a: JsonValue | undefined, b: JsonValue | undefined, digits?: number): boolean =>
  typeof a === 'number' && typeof b === 'number' && (approxEqual(a, b) || sameAtDigits(a, b, digits));

/**
 * A compiled number past the stored one's last bits that is the stored one carried down a chain:
 * a loan schedule's balance takes a payment (PMT) that Excel, LibreOffice and the model each round
 * in their own last bit, and carries it down every row, to a final balance of rounding only, so
 * no relative bound holds there. Such a cell passes when the independent evaluator vouches for
 * both halves (WhatIfVerifier.carriedDrift): the cell's own formula, on the workbook's stored
 * values of what it reads, gives the stored value to its last bits, and the model gives what the
 * evaluator's recalculation of the whole chain gives (the what-if bound). A wrong formula fails
 * the first half; a wrong compilation of a right one, the second. Without the evaluator, no cell
 * passes so.
 */
function carried(
  verifier: WhatIfVerifier | undefined,
  field: Field,
  row: number,
  stored: JsonValue | undefined,
  model: JsonValue | undefined,
): boolean {
  if (!verifier || typeof stored !== 'number' || typeof model !== 'number' || field.spillArray) return false;
  return verifier.carriedDrift(field, row, field.col, stored, model);
}

/** A live field's key in the spec: `table.field` for a row field, the name for a top-level one. */
const keyOf = (f: Field): string => (f.table ? `${f.table.name}.${f.name}` : f.name);

/** How far the check is: the stored values' run, then the what-if edits' runs (a fraction of each). */
export type CheckProgress = (stage: 'verify' | 'what-if', fraction: number) => void;

/** The spec's runner (slices.ts): its tables with their rows, and the top-level inputs its test gives. */
function specRunner(spec: ModelSpec, parts: LiveParts): Promise<SpecRunner> {
  const tables = parts.used.map((t) => ({ name: t.name, rows: t.lastRow - t.firstRow + 1 }));
  const inputs = new Set(
    parts.live.filter((f) => !f.table && (f.kind === 'side' || f.constant)).map((f) => f.name),
  );
  return SpecRunner.open(spec, tables, inputs);
}

/**
 * Validates and runs the spec; rejects the fields that fail: first against the values the workbook
 * stored (VALUE_MISMATCH), then, when `verifier` is given, against the workbook's own formulas after
 * seeded edits of the inputs (WHAT_IF_MISMATCH). Returns true when something was rejected. The runs
 * go a slice of rows at a time where the spec allows it (slices.ts): every cell is still checked.
 */
export async function checkSpec(
  spec: ModelSpec,
  fields: Field[],
  parts: LiveParts,
  verifier?: WhatIfVerifier,
  progress?: CheckProgress,
): Promise<boolean> {
  const byKey = new Map(fields.filter((f) => !f.rejection).map((f) => [keyOf(f), f]));
  for (const f of fields) if (f.fold && !f.rejection && !byKey.has(f.fold.name)) byKey.set(f.fold.name, f);
  if (await rejectInvalid(spec, fields, byKey)) return true;
  if (await checkConstants(spec, fields)) return true;
  const runner = await specRunner(spec, parts);
  const result: { results: Awaited<ReturnType<SpecRunner['run']>>['results'] } = { results: [] };
  for (const test of spec.tests) {
    const report = await runner.run(test, (done) => progress?.('verify', done / runner.plan.runs));
    result.results.push(...report.results);
  }
  // a writer that rounds what it stores (Google Sheets: 10 digits) is compared at its digits
  const digits = storedDigits(new Set(fields.map((f) => f.sheet)));
  const mismatches = new Map<
    Field,
    { cell: string; expected: JsonValue; actual: JsonValue; count: number }
  >();
  for (const r of result.results) {
    for (const failure of r.failures ?? []) {
      if (sameNumber(failure.expected, failure.actual, digits)) {
        // the spec's own test then holds the compiled double (equal to the stored one for Excel)
        spec.tests[0]!.expect[failure.path] = failure.actual;
        continue;
      }
      const m = /^\$\.(?:([A-Za-z_]\w*)\[(\d+)\]\.)?([A-Za-z_]\w*)$/.exec(failure.path);
      const field = m ? byKey.get(m[1] !== undefined ? `${m[1]}.${m[3]}` : m[3]!) : undefined;
      if (!field) throw new SheetError('PARSE_FAILED', `the compiled spec does not run: ${failure.message}`);
      const row = field.table ? Number(m![2]) + field.table.firstRow : field.row;
      if (carried(verifier, field, row, failure.expected, failure.actual)) {
        spec.tests[0]!.expect[failure.path] = failure.actual;
        continue;
      }
      const cell = field.table ? cellName(row, field.col) : field.address;
      const seen = mismatches.get(field);
      if (seen) seen.count++;
      else mismatches.set(field, { cell, expected: failure.expected, actual: failure.actual, count: 1 });
    }
  }
  for (const [field, m] of mismatches) {
    const more = m.count > 1 ? ` (and ${m.count - 1} more cell${m.count > 2 ? 's' : ''})` : '';
    reject(
      field,
      'VALUE_MISMATCH',
      `${m.cell}: the workbook stored ${JSON.stringify(m.expected)}, the compiled formula gives ${JSON.stringify(m.actual)}${more}`,
      { cell: m.cell, expected: m.expected, actual: m.actual },
    );
  }
  if (mismatches.size > 0) return true;
  return verifier
    ? verifier.check(runner, parts, byKey, (fraction) => progress?.('what-if', fraction))
    : false;
}

/** Rejects the fields whose compiled expressions the validator refuses; true when any was. */
async function rejectInvalid(spec: ModelSpec, fields: Field[], byKey: Map<string, Field>): Promise<boolean> {
  const derived = spec.derivations.map((d) => byKey.get(d.path.replace(/^\$\./, '').replace(/\[\*\]/, '')));
  const report = await validateSpec(spec, { runTests: false });
  let rejected = false;
  for (const e of report.errors) {
    const m = /derivations\[(\d+)\]/.exec(e.location);
    const field = m ? derived[Number(m[1])] : undefined;
    if (field) {
      reject(field, 'UNSUPPORTED_SYNTAX', `the compiled expression does not validate: ${e.message}`);
      rejected = true;
      continue;
    }
    // the library refused (e.g. side tables past its size limit): drop the lookups
    const lookups = e.location.startsWith('library')
      ? fields.filter((f) => !f.rejection && f.tables.size > 0)
      : [];
    if (lookups.length === 0) {
      throw new SheetError('PARSE_FAILED', `the compiled spec is invalid at ${e.location}: ${e.message}`);
    }
    for (const f of lookups) {
      reject(f, 'UNSUPPORTED_REFERENCE', `the VLOOKUP table cannot be embedded in the library: ${e.message}`);
    }
    rejected = true;
  }
  return rejected;
}

/**
 * A formula of constants is given to the spec as its value, so the spec's test cannot check it:
 * its expression is evaluated here, with the spec's library, and compared with the stored value.
 */
async function checkConstants(spec: ModelSpec, fields: Field[]): Promise<boolean> {
  let rejected = false;
  const digits = storedDigits(new Set(fields.map((f) => f.sheet)));
  for (const f of fields) {
    if (!f.constant || f.rejection) continue;
    const out = await evalExpression(keptExpr(f), {}, spec.library);
    const expected = storedValue(f);
    const actual = out.ok ? out.result : null;
    if (out.ok && (jsonEqual(expected, actual) || sameNumber(expected, actual, digits))) continue;
    reject(
      f,
      'VALUE_MISMATCH',
      `${f.address}: the workbook stored ${JSON.stringify(expected)}, the compiled formula gives ${out.ok ? JSON.stringify(actual) : `an error (${out.message})`}`,
      { cell: f.address, expected, actual },
    );
    rejected = true;
  }
  return rejected;
}
