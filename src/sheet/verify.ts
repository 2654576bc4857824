/** The spec built from the compiled fields, and the check that it reproduces the workbook's values. */
import {
  evalExpression,
  jsonEqual,
  normalizeSpec,
  runTests,
  validateSpec,
  type JsonObject,
  type JsonValue,
  type ModelSpec,
} from '../calc/index.js';
import { SheetError } from './errors.js';
import { BLANK, excelNumber, isError, reject, type Field } from './fields.js';
import type { LibraryBuilder } from './library.js';
import { cellKey, cellName, type Worksheet } from './xlsx.js';
import type { ConvertOptions } from './compile.js';

export function rowsOf(sheet: Worksheet, fields: Field[], lastRow: number): JsonObject[] {
  const rows: JsonObject[] = [];
  for (let r = 2; r <= lastRow; r++) {
    const row: JsonObject = {};
    for (const f of fields) {
      if (f.kind !== 'input' || f.rejection) continue;
      const v = sheet.cells.get(cellKey(r, f.col))?.value ?? null;
      row[f.name] = v === null || isError(v) ? BLANK[f.type] : v;
    }
    rows.push(row);
  }
  return rows;
}

function schemaOf(f: Field): JsonObject {
  const s: JsonObject = { title: f.title };
  if (f.type !== 'any') s.type = f.type;
  if (f.constant) {
    s.description = `=${f.formulaText ?? ''} (cell ${f.address}), a formula of constants: its value`;
  } else if (f.kind !== 'input') {
    s.readOnly = true;
    s.description = `=${f.formulaText ?? ''} (${f.kind === 'column' ? `column ${f.address}` : `cell ${f.address}`})`;
  } else {
    s.description = `column ${f.address}`;
  }
  return s;
}

/** A numeric result is kept to 15 significant digits, as a spreadsheet keeps it. */
const keptExpr = (f: Field): string =>
  f.type === 'number' || f.type === 'any' ? `$xl_num(${f.expr!})` : f.expr!;

const storedValue = (sheet: Worksheet, f: Field): JsonValue => sheet.cells.get(cellKey(f.row, f.col))!.value;

export function buildSpec(
  fields: Field[],
  given: JsonObject[],
  sheet: Worksheet,
  lastRow: number,
  options: ConvertOptions,
  lib: LibraryBuilder,
): ModelSpec {
  const live = fields.filter((f) => !f.rejection);
  const rowProps: JsonObject = {};
  const rootProps: JsonObject = {};
  const defaults: JsonObject = {};
  const derivations: JsonObject[] = [];
  const expect: JsonObject = {};
  const usedTables = new Set<string>();
  const source = options.filename ?? 'the workbook';
  const givenRoot: JsonObject = { '$.rows': given };
  const keptExprs: string[] = [];
  for (const f of live) {
    if (f.kind === 'summary') rootProps[f.name] = schemaOf(f);
    else rowProps[f.name] = schemaOf(f);
    if (f.kind === 'input') {
      defaults[f.name] = BLANK[f.type];
      continue;
    }
    if (f.constant) {
      givenRoot[`$.${f.name}`] = storedValue(sheet, f);
      keptExprs.push(keptExpr(f));
      continue;
    }
    for (const t of f.tables) usedTables.add(t);
    const expr = keptExpr(f);
    derivations.push({
      path: f.kind === 'column' ? `$.rows[*].${f.name}` : `$.${f.name}`,
      expr,
      description: `${f.title}: =${f.formulaText ?? ''} (${f.kind === 'column' ? `column ${f.address}` : `cell ${f.address}`})`,
    });
    if (f.kind === 'column') {
      for (let r = 2; r <= lastRow; r++) {
        expect[`$.rows[${r - 2}].${f.name}`] = excelNumber(sheet.cells.get(cellKey(r, f.col))!.value);
      }
    } else {
      expect[`$.${f.name}`] = excelNumber(storedValue(sheet, f));
    }
  }
  const libUse = lib.clone();
  // helpers: re-mark those the live expressions call
  const allExpr = [...derivations.map((d) => String(d.expr)), ...keptExprs].join('\n');
  for (const name of [
    'xl_num',
    'xl_round',
    'xl_eq',
    'xl_text',
    'xl_trim',
    'xl_right',
    'xl_nums',
    'xl_count',
    'xl_min',
    'xl_max',
  ] as const) {
    if (allExpr.includes(`$${name}(`)) libUse.use(name);
  }
  if (usedTables.size > 0) libUse.use('xl_eq');
  const define = libUse.define(usedTables);
  const raw: JsonObject = {
    id: options.modelId,
    version: '1.0.0',
    schema: {
      type: 'object',
      description: `Compiled from sheet '${sheet.name}' of ${source}`,
      properties: {
        rows: {
          type: 'array',
          description: `The table of sheet '${sheet.name}', one object per row`,
          items: { type: 'object', properties: rowProps },
        },
        ...rootProps,
      },
    },
    defaultValues: [
      { path: '$.rows[*]', expr: JSON.stringify(defaults), description: 'blank cells of a new row' },
    ],
    derivations,
    tests: [
      {
        description: `the values ${source} stored for its ${given.length} rows`,
        given: givenRoot,
        expect,
      },
    ],
  };
  if (define !== undefined) {
    raw.library = {
      description: 'Spreadsheet semantics and side tables, compiled from the workbook',
      define,
    };
  }
  return normalizeSpec(raw).spec;
}

/** Validates and runs the spec; rejects the fields that fail. Returns true when something was rejected. */
export async function checkSpec(spec: ModelSpec, fields: Field[], sheet: Worksheet): Promise<boolean> {
  const byName = new Map(fields.filter((f) => !f.rejection).map((f) => [f.name, f]));
  const derived = spec.derivations.map((d) => byName.get(d.path.replace(/^\$\.(rows\[\*\]\.)?/, '')));
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
  if (rejected) return true;
  if (await checkConstants(spec, fields, sheet)) return true;
  const result = await runTests(spec);
  const mismatches = new Map<
    Field,
    { cell: string; expected: JsonValue; actual: JsonValue; count: number }
  >();
  for (const r of result.results) {
    for (const failure of r.failures ?? []) {
      const m = /^\$\.(?:rows\[(\d+)\]\.)?([A-Za-z_][\w]*)$/.exec(failure.path);
      const field = m ? byName.get(m[2]!) : undefined;
      if (!field) throw new SheetError('PARSE_FAILED', `the compiled spec does not run: ${failure.message}`);
      const cell = m![1] !== undefined ? cellName(Number(m![1]) + 2, field.col) : field.address;
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
    rejected = true;
  }
  return rejected;
}

/**
 * A formula of constants is given to the spec as its value, so the spec's test cannot check it:
 * its expression is evaluated here, with the spec's library, and compared with the stored value.
 */
async function checkConstants(spec: ModelSpec, fields: Field[], sheet: Worksheet): Promise<boolean> {
  let rejected = false;
  for (const f of fields) {
    if (!f.constant || f.rejection) continue;
    const out = await evalExpression(keptExpr(f), {}, spec.library);
    const expected = excelNumber(storedValue(sheet, f));
    const actual = out.ok ? excelNumber(out.result) : null;
    if (out.ok && jsonEqual(expected, actual)) continue;
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
