/** The compiler's shared vocabulary: fields (columns, summary cells), names, types and rejections. */
import type { JsonValue } from '../calc/index.js';
import type { RejectionReason, SheetLimits } from './errors.js';
import type { Formula } from './formula.js';
import type { WhatIfOptions } from './grid/limits.js';
import { cellKey, type ExcelTable, type SheetCell, type Worksheet } from './xlsx.js';

/** A longer column stays one rejected column: a field per cell would be too many, and a long column is a real table column (a schedule, a recurrence) better compiled whole. (loose.ts) */
export const MAX_LOOSE_CELLS = 200;

export type ValueType = 'number' | 'string' | 'boolean' | 'any';

/**
 * How far a conversion is: sheets read, formula cells compiled, formula cells verified at the
 * stored values (the spec's test run), then checked after the what-if edits (all rounds together);
 * once per pass: a pass that rejects something runs again without it.
 */
export interface ConvertProgress {
  stage: 'read' | 'compile' | 'verify' | 'what-if';
  done: number;
  total: number;
}

export interface ConvertOptions {
  modelId: string;
  /** Names the source in the spec's descriptions and test. */
  filename?: string;
  limits?: SheetLimits;
  /** Told as the conversion goes (synchronously, from inside it): for a progress display. */
  onProgress?: (progress: ConvertProgress) => void;
  /**
   * The what-if verification's edits, seed and evaluator budgets (whatif.ts has the defaults);
   * false checks the stored values only (every compiled cell is then `stored-only`).
   */
  whatIf?: WhatIfOptions | false;
}

export interface RejectedColumn {
  /** The sheet the column or cell is on. */
  sheet?: string;
  /** The column's header (or a summary cell's label). */
  column: string;
  /** Column letter, or the cell of a summary formula. */
  address: string;
  reason: RejectionReason;
  message: string;
  formula?: string;
  /** For VALUE_MISMATCH and ERROR_VALUE: the first cell concerned, and the values. */
  cell?: string;
  expected?: JsonValue;
  actual?: JsonValue;
  /** For WHAT_IF_MISMATCH: the edit after which the values differ (`Sheet1!B10 104 → 102`). */
  edit?: string;
  /** Formula cells this entry stands for, when more than one (a column, or summary cells grouped by column). */
  cells?: number;
}

export interface Field {
  name: string;
  title: string;
  address: string;
  /**
   * input: a constant column of a table; column: a filled-down formula column; summary: a formula
   * cell outside the tables; side: a constant cell outside the tables that a formula reads (a
   * top-level input, like a rate or a named constant).
   */
  kind: 'input' | 'column' | 'summary' | 'side';
  sheet: Worksheet;
  /** The table of an input or column field. */
  table?: TableModel;
  col: number;
  row: number;
  type: ValueType;
  formula?: Formula;
  formulaText?: string;
  expr?: string;
  tables: Set<string>;
  deps: Set<Field>;
  rejection?: RejectedColumn;
  /**
   * A summary cell whose formula reads no cell (`=100+20+5`): kept as a top-level input holding
   * its value, since a derivation that reads nothing would never run in the spec's tests.
   */
  constant?: boolean;
  /** Formula cells of the workbook this field covers. */
  formulaCells: number;
  /** A side input's value (the cell's constant; a blank reads as 0). */
  value?: JsonValue;
  /** Columns of its own table this column reads in an earlier row: a recurrence when they read it back. */
  back?: Set<Field>;
  /**
   * Blocks of rows (sheet rows, `from` to `to`) holding a formula of their own beside the one
   * filled down (columns.ts): each is compiled at its own first row (apart.ts).
   */
  apart?: { from: number; to: number; formula: Formula }[];
  /** A column with typed rows (columns.ts): the input column holding its typed values. */
  typed?: Field;
  /** That input column's rows (sheet rows) that hold a typed value; it is blank at the others. */
  typedRows?: Set<number>;
  /** What a blank cell of this input is given, when not BLANK[type] (a typed column's blank row). */
  blank?: JsonValue;
  /**
   * An Excel 365 spill (spill.ts): the anchor's whole result, an array derivation that stands for
   * no cell of its own (`formulaCells` 0); its cells are `elements`, one field per cell.
   */
  spillArray?: { top: number; bottom: number; left: number; right: number; elements: Field[] };
  /** A cell of a spill: the array's item at `index` (from 0), as the sheet shows it. */
  spillElement?: { of: Field; index: number };
  /** The fold (recurrence.ts) that computes this column with the others it reads back and forth. */
  fold?: { name: string; expr: string; members: Field[] };
}

const RESERVED = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function', 'rows', 'parent', 'const']);

export function fieldName(title: string, fallback: string, taken: Set<string>): string {
  let base = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  if (base === '') base = fallback.toLowerCase();
  if (/^\d/.test(base)) base = `c_${base}`;
  if (RESERVED.has(base)) base = `${base}_`;
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

export const isBlank = (c: SheetCell | undefined): boolean => !c || (c.value === null && !c.formula);
export const isError = (v: unknown): v is { error: string } =>
  typeof v === 'object' && v !== null && 'error' in v;

export function typeOf(values: JsonValue[]): ValueType {
  const types = new Set(values.map((v) => typeof v));
  if (types.size === 0) return 'number';
  if (types.size > 1) return 'any';
  const t = [...types][0];
  return t === 'number' || t === 'string' || t === 'boolean' ? t : 'any';
}

export const BLANK: Record<ValueType, JsonValue> = { number: 0, string: '', boolean: false, any: 0 };

/** What a blank cell of an input field is given in the model's rows: 0, "" in a text column. */
export const blankOf = (f: Field): JsonValue => f.blank ?? BLANK[f.type];

/** A table of the workbook: an Excel Table, or a block found under a header row. */
export interface TableModel {
  sheet: Worksheet;
  /** Its array in the spec (`$.<name>`). */
  name: string;
  /** For people: the Excel Table's name, or the sheet and range. */
  title: string;
  /** The header row (0 when the table has none). */
  headerRow: number;
  firstRow: number;
  lastRow: number;
  left: number;
  right: number;
  /** The totals row of an Excel Table that has one. */
  totalsRow?: number;
  /** The Excel Table, when the table is one (its name and column names for structured references). */
  excel?: ExcelTable;
  byCol: Map<number, Field>;
  /** Columns taken out of the table (their rows hold different formulas): their cells stand alone. */
  loose?: Set<number>;
}

export function reject(
  field: Field,
  reason: RejectionReason,
  message: string,
  extra: Partial<RejectedColumn> = {},
): void {
  if (field.rejection) return;
  field.rejection = {
    sheet: field.sheet.name,
    column: field.title,
    address: field.address,
    reason,
    message,
    ...extra,
  };
  if (field.formulaText !== undefined && field.rejection.formula === undefined)
    field.rejection.formula = `=${field.formulaText}`;
}

export function label(sheet: Worksheet, row: number, col: number): string | undefined {
  for (const [r, c] of [
    [row, col - 1],
    [row - 1, col],
  ] as const) {
    const cell = sheet.cells.get(cellKey(r, c));
    if (cell && !cell.formula && typeof cell.value === 'string' && cell.value.trim() !== '')
      return cell.value.trim();
  }
  return undefined;
}
