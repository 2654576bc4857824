/**
 * @module synth/compare
 * A sample table against a model's output: findings per column and table-wide, each with a
 * severity judged from a test's p-value (Bonferroni over all tests of the report) and the size of
 * the difference. Pure: tables in, a report out (docs/compare.md explains every finding).
 */
import { compareColumn } from './columns.js';
import { isNumericKey, rowIndexOf } from '../fit/keys.js';
import { CompareError } from './errors.js';
import { Findings } from './findings.js';
import { type Profile, dominantKind, profile } from './profile.js';
import { compareCorrelations, compareRows } from './table.js';
import type { ColumnReport, CompareOptions, CompareReport, Table } from './types.js';

export type * from './types.js';
export { renderReport } from './render.js';
export { CompareError } from './errors.js';
export type { CompareErrorCode } from './errors.js';
export { parseSampleCsv } from './csv.js';
export type { HeaderChoice } from './csv.js';

export const COMPARE_DEFAULTS = {
  highP: 1e-6,
  mediumP: 1e-3,
  lowP: 1e-2,
  maxCategories: 50,
  maxRows: 1_000_000,
  maxColumns: 500,
  maxCorrelationColumns: 30,
} as const;

function checkTable(t: Table, which: string, maxRows: number, maxColumns: number): void {
  if (t.header.length > maxColumns)
    throw new CompareError(
      'COMPARE_LIMIT',
      `the ${which} has ${t.header.length} columns; at most ${maxColumns} are compared`,
    );
  if (t.rows.length > maxRows)
    throw new CompareError(
      'COMPARE_LIMIT',
      `the ${which} has ${t.rows.length} rows; at most ${maxRows} are compared`,
    );
  t.rows.forEach((row, i) => {
    if (row.length !== t.header.length)
      throw new CompareError(
        'COMPARE_INPUT',
        `row ${i + 1} of the ${which} has ${row.length} cells; the header has ${t.header.length}`,
      );
  });
}

/** Which output column each sample column is compared with: by name when every name matches, else by position. */
function pairColumns(sample: Table, generated: Table): [number, number][] {
  const byName = new Map(generated.header.map((h, i) => [h.trim(), i]));
  if (
    sample.header.every((h) => byName.has(h.trim())) &&
    new Set(sample.header).size === sample.header.length
  )
    return sample.header.map((h, i) => [i, byName.get(h.trim())!]);
  const k = Math.min(sample.header.length, generated.header.length);
  return Array.from({ length: k }, (_, i) => [i, i]);
}

/**
 * A row index: distinct whole numbers at one constant step (1, 2, 3… or 1000, 1010…), whatever
 * their order. A model's Sequence writes the same ones, so finding them in the output is no copy.
 */
export function isRowIndex(p: Profile): boolean {
  const filled = p.count - p.kinds.get('empty')!;
  if (filled < 10 || p.numbers.length !== filled) return false;
  return rowIndexOf(Array.from(p.numbers)) !== undefined;
}

/**
 * Columns whose copies the identifier test looks for: mostly distinct sample values, but not a
 * row index and not dates (a daily column has each day once, and any model of it draws days the
 * sample has). `identifierColumns` names them outright.
 */
function identifierLike(s: Profile): boolean {
  const filled = s.count - s.kinds.get('empty')!;
  if (filled < 10 || s.values.size < 0.5 * filled) return false;
  return dominantKind(s) !== 'date' && !isRowIndex(s);
}

function project(t: Table, keep: readonly number[]): Table {
  return { header: keep.map((i) => t.header[i]!), rows: t.rows.map((r) => keep.map((i) => r[i]!)) };
}

function column(t: Table, i: number): string[] {
  return t.rows.map((row) => row[i]!);
}

/** Compares a sample with a model's output (same row count and seed, by the caller's choice). */
export function compareTables(sample: Table, generated: Table, options: CompareOptions = {}): CompareReport {
  const o = { ...COMPARE_DEFAULTS, ...options };
  checkTable(sample, 'sample', o.maxRows, o.maxColumns);
  checkTable(generated, 'output', o.maxRows, o.maxColumns);
  if (sample.rows.length === 0) throw new CompareError('COMPARE_INPUT', 'the sample has no rows');
  const f = new Findings();
  if (sample.header.length !== generated.header.length)
    f.add(
      'high',
      'shape',
      undefined,
      `the sample has ${sample.header.length} columns, the output ${generated.header.length}`,
    );
  const ignored = new Set(o.ignore ?? []);
  const unknown = [...ignored].filter((n) => !sample.header.includes(n));
  if (unknown.length > 0)
    throw new CompareError(
      'COMPARE_INPUT',
      `no sample column is named ${unknown.map((n) => JSON.stringify(n)).join(', ')} (ignore)`,
    );
  const pairs = pairColumns(sample, generated).filter(([si]) => !ignored.has(sample.header[si]!));
  const idNames =
    o.identifierColumns === 'auto' || o.identifierColumns === undefined
      ? undefined
      : new Set(o.identifierColumns);
  const columns: ColumnReport[] = [];
  const numeric: { name: string; s: Profile; g: Profile }[] = [];
  const indexColumns = new Set<number>();
  for (const [k, [si, gi]] of pairs.entries()) {
    const name = sample.header[si]!;
    const s = profile(column(sample, si));
    const g = profile(column(generated, gi));
    const rowIndex = isRowIndex(s);
    if (rowIndex) indexColumns.add(k);
    const checkIdentifiers = idNames === undefined ? identifierLike(s) : idNames.has(name);
    const report = compareColumn(
      name,
      generated.header[gi]!,
      s,
      g,
      { maxCategories: o.maxCategories, checkIdentifiers, key: isNumericKey(column(sample, si)) },
      f,
    );
    columns.push(report);
    // a row index follows the sample's row order, not its values: its correlations say how the
    // file was sorted (mall customers by income), which no model of the rows reproduces
    if (report.ks !== undefined && numeric.length < o.maxCorrelationColumns && !rowIndex)
      numeric.push({ name, s, g });
  }
  const correlation = compareCorrelations(
    numeric.map((c) => c.name),
    numeric.map((c) => c.s),
    numeric.map((c) => c.g),
    f,
  );
  // whole rows without the ignored columns and without row indexes: a running number makes every
  // row distinct (no duplicate could show) and a Sequence writes the sample's own numbers
  const rowPairs = pairs.filter((_, k) => !indexColumns.has(k));
  const duplicateRate =
    rowPairs.length === 0
      ? { sample: 0, generated: 0, sampleRowsInOutput: 0 }
      : compareRows(
          project(
            sample,
            rowPairs.map(([si]) => si),
          ),
          project(
            generated,
            rowPairs.map(([, gi]) => gi),
          ),
          f,
        );
  const findings = f.judge(o);
  const count = (sev: string): number => findings.filter((x) => x.severity === sev).length;
  return {
    sampleRows: sample.rows.length,
    generatedRows: generated.rows.length,
    tests: f.tests,
    findings,
    columns,
    correlation,
    duplicateRate,
    highCount: count('high'),
    mediumCount: count('medium'),
    lowCount: count('low'),
    ignored: [...ignored],
  };
}
export { outputTable } from './generate.js';
