/**
 * Workbook → ModelSpec. The first worksheet's header-row table becomes `rows`: constant columns are
 * writable row fields, each filled-down formula column a `$.rows[*].<field>` derivation reading
 * `$parent`; formula cells outside the table become plain derivations. The spec's tests hold the
 * values the workbook stored, and a column whose computed values differ is rejected.
 */
import {
  normalizeSpec,
  runTests,
  validateSpec,
  type JsonObject,
  type JsonValue,
  type ModelSpec,
} from '../calc/index.js';
import { DEFAULT_LIMITS, Rejection, SheetError, type RejectionReason, type SheetLimits } from './errors.js';
import {
  parseFormula,
  printFormula,
  rowRelativeKey,
  shiftFormula,
  type CellRef,
  type Formula,
} from './formula.js';
import { LibraryBuilder, type HelperName } from './library.js';
import { cellKey, cellName, columnLetter, readWorkbook, type SheetCell, type Worksheet } from './xlsx.js';

export type ValueType = 'number' | 'string' | 'boolean' | 'any';

export interface RejectedColumn {
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
}

export interface SheetConversion {
  spec: ModelSpec;
  rejectedColumns: RejectedColumn[];
  /** Formula columns and cells found, and how many made it into the spec. */
  formulaFields: number;
  compiledFields: number;
}

export interface ConvertOptions {
  modelId: string;
  /** Names the source in the spec's descriptions and test. */
  filename?: string;
  limits?: SheetLimits;
}

interface Field {
  name: string;
  title: string;
  address: string;
  kind: 'input' | 'column' | 'summary';
  col: number;
  row: number;
  type: ValueType;
  formula?: Formula;
  formulaText?: string;
  expr?: string;
  tables: Set<string>;
  deps: Set<Field>;
  rejection?: RejectedColumn;
}

const RESERVED = new Set(['and', 'or', 'in', 'true', 'false', 'null', 'function', 'rows', 'parent', 'const']);

function fieldName(title: string, fallback: string, taken: Set<string>): string {
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

const isBlank = (c: SheetCell | undefined): boolean => !c || (c.value === null && !c.formula);
const isError = (v: unknown): v is { error: string } => typeof v === 'object' && v !== null && 'error' in v;

function typeOf(values: JsonValue[]): ValueType {
  const types = new Set(values.map((v) => typeof v));
  if (types.size === 0) return 'number';
  if (types.size > 1) return 'any';
  const t = [...types][0];
  return t === 'number' || t === 'string' || t === 'boolean' ? t : 'any';
}

const BLANK: Record<ValueType, JsonValue> = { number: 0, string: '', boolean: false, any: 0 };

interface Table {
  sheet: Worksheet;
  columns: number;
  lastRow: number;
  byCol: Map<number, Field>;
  byCell: Map<string, Field>;
}

const SUPPORTED =
  'IF, AND, OR, NOT, ROUND, ABS, SUM, AVERAGE, MIN, MAX, COUNT, CONCATENATE, LEFT, RIGHT, MID, LEN, UPPER, LOWER, TRIM, VLOOKUP (exact), SUMPRODUCT';

interface Compiled {
  code: string;
  type: ValueType;
}

/** Compiles one formula of a field into JSONata. */
class FormulaCompiler {
  constructor(
    private readonly table: Table,
    private readonly field: Field,
    private readonly lib: LibraryBuilder,
  ) {}

  private get rowMode(): boolean {
    return this.field.kind === 'column';
  }

  private helper(name: HelperName): string {
    return this.lib.use(name);
  }

  private checkSheet(sheet: string | undefined, what: string): void {
    if (sheet !== undefined && sheet.toLowerCase() !== this.table.sheet.name.toLowerCase()) {
      throw new Rejection(
        'CROSS_SHEET_REFERENCE',
        `${what} reads sheet '${sheet}'; only the first sheet is compiled`,
      );
    }
  }

  private depend(target: Field): void {
    if (target === this.field) {
      throw new Rejection(
        'CIRCULAR_REFERENCE',
        `the formula reads its own ${this.field.kind === 'column' ? 'column' : 'cell'}`,
      );
    }
    this.field.deps.add(target);
  }

  compile(f: Formula): Compiled {
    switch (f.kind) {
      case 'number':
        return { code: JSON.stringify(f.value), type: 'number' };
      case 'string':
        return { code: JSON.stringify(f.value), type: 'string' };
      case 'boolean':
        return { code: String(f.value), type: 'boolean' };
      case 'error':
        throw new Rejection('UNSUPPORTED_SYNTAX', `the formula contains the error literal ${f.value}`);
      case 'missing':
        throw new Rejection('UNSUPPORTED_SYNTAX', 'the formula leaves an argument empty');
      case 'name':
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `'${f.name}' is a defined name; only cell references are compiled`,
        );
      case 'ref':
        return this.ref(f.ref, f.sheet);
      case 'range':
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `the range ${printFormula(f)} is used as a value; ranges are read only by SUM, AVERAGE, MIN, MAX, COUNT, SUMPRODUCT and VLOOKUP`,
        );
      case 'unary': {
        const e = this.num(this.compile(f.operand));
        return { code: f.op === '-' ? `-(${e})` : e, type: 'number' };
      }
      case 'percent':
        return { code: `(${this.num(this.compile(f.operand))} / 100)`, type: 'number' };
      case 'binary':
        return this.binary(f.op, this.compile(f.left), this.compile(f.right));
      case 'call':
        return this.call(f.name, f.args);
    }
  }

  private num(c: Compiled): string {
    if (c.type === 'boolean') return `(${c.code} ? 1 : 0)`;
    if (c.type === 'string') return `$number(${c.code})`;
    return c.code;
  }
  private text(c: Compiled): string {
    if (c.type === 'string') return c.code;
    if (c.type === 'boolean') return `(${c.code} ? "TRUE" : "FALSE")`;
    if (c.type === 'number') return `$string(${c.code})`;
    return `${this.helper('xl_text')}(${c.code})`;
  }

  private binary(op: string, l: Compiled, r: Compiled): Compiled {
    switch (op) {
      case '+':
      case '-':
      case '*':
      case '/':
        return { code: `(${this.num(l)} ${op} ${this.num(r)})`, type: 'number' };
      case '^':
        return { code: `$power(${this.num(l)}, ${this.num(r)})`, type: 'number' };
      case '&':
        return { code: `(${this.text(l)} & ${this.text(r)})`, type: 'string' };
      default: {
        const jop = op === '<>' ? '!=' : op;
        if (l.type === 'string' && r.type === 'string') {
          return { code: `($lowercase(${l.code}) ${jop} $lowercase(${r.code}))`, type: 'boolean' };
        }
        if ((op === '=' || op === '<>') && (l.type === 'any' || r.type === 'any')) {
          const eq = `${this.helper('xl_eq')}(${l.code}, ${r.code})`;
          return { code: op === '=' ? eq : `$not(${eq})`, type: 'boolean' };
        }
        return { code: `(${l.code} ${jop} ${r.code})`, type: 'boolean' };
      }
    }
  }

  private ref(ref: CellRef, sheet: string | undefined): Compiled {
    const where = cellName(ref.row, ref.col);
    this.checkSheet(sheet, `the reference ${where}`);
    const t = this.table;
    const summary = t.byCell.get(cellKey(ref.row, ref.col));
    if (summary) {
      if (this.rowMode && !(ref.rowAbs && ref.colAbs)) {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `${where} is a formula cell outside the table; a column formula must read it $-locked ($${columnLetter(ref.col)}$${ref.row})`,
        );
      }
      this.depend(summary);
      return { code: summary.name, type: summary.type };
    }
    if (ref.col >= 1 && ref.col <= t.columns && ref.row >= 2 && ref.row <= t.lastRow) {
      const target = t.byCol.get(ref.col)!;
      if (!this.rowMode) {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `${where} is one cell of the table; a formula outside the table may read whole columns only`,
        );
      }
      const sameRow = ref.row === this.field.row && (!ref.rowAbs || t.lastRow === 2);
      if (!sameRow) {
        throw new Rejection(
          'CROSS_ROW_REFERENCE',
          `${where} lies in another row (the formula in row ${this.field.row} reads row ${ref.row})`,
        );
      }
      this.depend(target);
      return { code: `$parent.${target.name}`, type: target.type };
    }
    if (ref.row === 1 && ref.col >= 1 && ref.col <= t.columns) {
      throw new Rejection('UNSUPPORTED_REFERENCE', `${where} is the header row`);
    }
    throw new Rejection(
      'UNSUPPORTED_REFERENCE',
      `${where} lies outside the table; a formula may read its own row, whole $-locked columns, $-locked VLOOKUP tables and formula cells`,
    );
  }

  /** A whole table column (`$B$2:$B$N`, `$B:$B`, or with the header), or undefined. */
  private wholeColumn(f: Formula & { kind: 'range' }): Field | undefined {
    const t = this.table;
    const { from, to } = f;
    if (from.col !== to.col || from.col < 1 || from.col > t.columns) return undefined;
    const whole =
      (from.row === 0 && to.row === 0) || ((from.row === 1 || from.row === 2) && to.row === t.lastRow);
    if (!whole) return undefined;
    if (this.rowMode && !(from.row === 0 || (from.rowAbs && to.rowAbs))) {
      throw new Rejection(
        'CROSS_ROW_REFERENCE',
        `the range ${printFormula(f)} moves with the row; lock it ($${columnLetter(from.col)}$${from.row}:$${columnLetter(to.col)}$${to.row})`,
      );
    }
    return t.byCol.get(from.col);
  }

  /** Items of an aggregate argument: JSONata expressions that each give a number or a list. */
  private items(arg: Formula, fn: string): string[] {
    if (arg.kind !== 'range') {
      const c = this.compile(arg);
      return [fn === 'COUNT' ? c.code : this.num(c)];
    }
    this.checkSheet(arg.sheet, `the range ${printFormula(arg)}`);
    const column = this.wholeColumn(arg);
    if (column) {
      this.depend(column);
      if (column.type === 'number') return [`rows.${column.name}`];
      if (column.type === 'any') return [`${this.helper('xl_nums')}(rows.${column.name})`];
      return [];
    }
    const { from, to } = arg;
    const t = this.table;
    if (
      this.rowMode &&
      from.row === to.row &&
      from.row === this.field.row &&
      !from.rowAbs &&
      !to.rowAbs &&
      from.col >= 1 &&
      to.col <= t.columns &&
      from.col <= to.col
    ) {
      const out: string[] = [];
      for (let c = from.col; c <= to.col; c++) {
        const field = t.byCol.get(c)!;
        this.depend(field);
        if (field.type === 'number') out.push(`$parent.${field.name}`);
        else if (field.type === 'any') out.push(`${this.helper('xl_nums')}($parent.${field.name})`);
      }
      return out;
    }
    if (from.col <= t.columns && from.row <= t.lastRow && to.row >= 2) {
      throw new Rejection(
        'CROSS_ROW_REFERENCE',
        `the range ${printFormula(arg)} reaches other rows of the table; only the formula's own row or whole $-locked columns (rows 2–${t.lastRow}) can be read`,
      );
    }
    throw new Rejection(
      'UNSUPPORTED_REFERENCE',
      `the range ${printFormula(arg)} is neither a whole table column nor a span of the formula's own row`,
    );
  }

  private args(name: string, args: Formula[], min: number, max: number): void {
    if (args.length < min || args.length > max) {
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `${name} takes ${min === max ? min : `${min} to ${max}`} arguments, not ${args.length}`,
      );
    }
  }

  private call(name: string, args: Formula[]): Compiled {
    const scalar = (i: number): Compiled => this.compile(args[i]!);
    switch (name) {
      case 'IF': {
        this.args(name, args, 2, 3);
        const a = scalar(1);
        const b: Compiled = args[2] ? scalar(2) : { code: 'false', type: 'boolean' };
        return {
          code: `(${scalar(0).code} ? ${a.code} : ${b.code})`,
          type: a.type === b.type ? a.type : 'any',
        };
      }
      case 'AND':
      case 'OR': {
        this.args(name, args, 1, 255);
        const parts = args.map((a) => `$boolean(${this.compile(a).code})`);
        return { code: `(${parts.join(name === 'AND' ? ' and ' : ' or ')})`, type: 'boolean' };
      }
      case 'NOT':
        this.args(name, args, 1, 1);
        return { code: `$not(${scalar(0).code})`, type: 'boolean' };
      case 'ROUND':
        this.args(name, args, 2, 2);
        return {
          code: `${this.helper('xl_round')}(${this.num(scalar(0))}, ${this.num(scalar(1))})`,
          type: 'number',
        };
      case 'ABS':
        this.args(name, args, 1, 1);
        return { code: `$abs(${this.num(scalar(0))})`, type: 'number' };
      case 'SUM':
      case 'AVERAGE':
      case 'MIN':
      case 'MAX':
      case 'COUNT': {
        this.args(name, args, 1, 255);
        const list = `[${args.flatMap((a) => this.items(a, name)).join(', ')}]`;
        const fn: Record<string, string> = {
          SUM: '$sum',
          AVERAGE: '$average',
          MIN: this.helper('xl_min'),
          MAX: this.helper('xl_max'),
          COUNT: this.helper('xl_count'),
        };
        return { code: `${fn[name]}(${list})`, type: 'number' };
      }
      case 'SUMPRODUCT': {
        this.args(name, args, 1, 255);
        const fields = args.map((a) => {
          const column =
            a.kind === 'range'
              ? (this.checkSheet(a.sheet, `the range ${printFormula(a)}`), this.wholeColumn(a))
              : undefined;
          if (!column) {
            throw new Rejection(
              'UNSUPPORTED_REFERENCE',
              `SUMPRODUCT is compiled only over whole $-locked table columns; ${printFormula(a)} is not one`,
            );
          }
          if (column.type !== 'number') {
            throw new Rejection(
              'UNSUPPORTED_REFERENCE',
              `SUMPRODUCT reads column '${column.title}', which is not numeric`,
            );
          }
          this.depend(column);
          return column.name;
        });
        return { code: `$sum(rows.(${fields.join(' * ')}))`, type: 'number' };
      }
      case 'CONCATENATE': {
        this.args(name, args, 1, 255);
        const parts = args.map((a) => this.text(this.compile(a)));
        return { code: parts.length === 1 ? `("" & ${parts[0]})` : `(${parts.join(' & ')})`, type: 'string' };
      }
      case 'LEFT':
      case 'RIGHT': {
        this.args(name, args, 1, 2);
        const s = this.text(scalar(0));
        const n = args[1] ? this.num(scalar(1)) : '1';
        return {
          code: name === 'LEFT' ? `$substring(${s}, 0, ${n})` : `${this.helper('xl_right')}(${s}, ${n})`,
          type: 'string',
        };
      }
      case 'MID':
        this.args(name, args, 3, 3);
        return {
          code: `$substring(${this.text(scalar(0))}, ${this.num(scalar(1))} - 1, ${this.num(scalar(2))})`,
          type: 'string',
        };
      case 'LEN':
        this.args(name, args, 1, 1);
        return { code: `$length(${this.text(scalar(0))})`, type: 'number' };
      case 'UPPER':
      case 'LOWER':
        this.args(name, args, 1, 1);
        return { code: `$${name.toLowerCase()}case(${this.text(scalar(0))})`, type: 'string' };
      case 'TRIM':
        this.args(name, args, 1, 1);
        return { code: `${this.helper('xl_trim')}(${this.text(scalar(0))})`, type: 'string' };
      case 'VLOOKUP':
        return this.vlookup(args);
      case 'HLOOKUP':
      case 'INDEX':
      case 'MATCH':
      case 'XLOOKUP':
      case 'LOOKUP':
      case 'OFFSET':
      case 'INDIRECT':
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          `${name} is not compiled; of the lookups only exact-match VLOOKUP is`,
        );
      default:
        throw new Rejection('UNSUPPORTED_FUNCTION', `${name} is not in the supported set (${SUPPORTED})`);
    }
  }

  private vlookup(args: Formula[]): Compiled {
    this.args('VLOOKUP', args, 3, 4);
    const [keyArg, rangeArg, colArg, modeArg] = args as [Formula, Formula, Formula, Formula | undefined];
    const exact =
      modeArg !== undefined &&
      ((modeArg.kind === 'boolean' && !modeArg.value) || (modeArg.kind === 'number' && modeArg.value === 0));
    const approximate =
      modeArg === undefined ||
      (modeArg.kind === 'boolean' && modeArg.value) ||
      (modeArg.kind === 'number' && modeArg.value !== 0);
    if (approximate) {
      throw new Rejection(
        'APPROXIMATE_VLOOKUP',
        'VLOOKUP without FALSE as its 4th argument matches approximately (sorted ranges); only exact match is compiled',
      );
    }
    if (!exact)
      throw new Rejection('UNSUPPORTED_SYNTAX', "VLOOKUP's 4th argument must be the constant FALSE or 0");
    if (rangeArg.kind !== 'range') {
      throw new Rejection('UNSUPPORTED_REFERENCE', "VLOOKUP's table must be a cell range");
    }
    this.checkSheet(rangeArg.sheet, `the VLOOKUP table ${printFormula(rangeArg)}`);
    const { from, to } = rangeArg;
    if (this.rowMode && !(from.rowAbs && from.colAbs && to.rowAbs && to.colAbs)) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the VLOOKUP table ${printFormula(rangeArg)} is not $-locked, so it moves from row to row`,
      );
    }
    if (from.row === 0 || to.row < from.row || to.col < from.col) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the VLOOKUP table ${printFormula(rangeArg)} is not a bounded block of cells`,
      );
    }
    const t = this.table;
    if (from.col <= t.columns && from.row <= t.lastRow) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the VLOOKUP table ${printFormula(rangeArg)} overlaps the main table`,
      );
    }
    const width = to.col - from.col + 1;
    if (
      colArg.kind !== 'number' ||
      !Number.isInteger(colArg.value) ||
      colArg.value < 1 ||
      colArg.value > width
    ) {
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `VLOOKUP's column index must be a whole number from 1 to ${width}`,
      );
    }
    if ((to.row - from.row + 1) * width > 100_000) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the VLOOKUP table ${printFormula(rangeArg)} is too large to embed`,
      );
    }
    const rows: JsonValue[] = [];
    const resultValues: JsonValue[] = [];
    for (let r = from.row; r <= to.row; r++) {
      const row: JsonObject = {};
      for (let c = from.col; c <= to.col; c++) {
        const cell = t.sheet.cells.get(cellKey(r, c));
        if (cell?.formula || isError(cell?.value)) {
          throw new Rejection(
            'UNSUPPORTED_REFERENCE',
            `the VLOOKUP table cell ${cellName(r, c)} holds a formula or an error; side tables must hold constants`,
          );
        }
        const v = (cell?.value ?? null) as JsonValue;
        row[`c${c - from.col + 1}`] = v;
        if (c - from.col + 1 === colArg.value && v !== null) resultValues.push(v);
      }
      rows.push(row);
    }
    const fn = this.lib.table(printFormula({ kind: 'range', from, to }), rows);
    this.field.tables.add(fn);
    const key = this.compile(keyArg);
    return { code: `$${fn}(${key.code}).c${colArg.value}`, type: typeOf(resultValues) };
  }
}

/** Reads the workbook and compiles it; throws SheetError for a file refused as a whole. */
export async function convertWorkbook(bytes: Uint8Array, options: ConvertOptions): Promise<SheetConversion> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const sheet = readWorkbook(bytes, limits);
  return compileWorksheet(sheet, options, limits);
}

function findTable(sheet: Worksheet, limits: SheetLimits): { columns: number; lastRow: number } {
  let columns = 0;
  while (!isBlank(sheet.cells.get(cellKey(1, columns + 1)))) columns++;
  if (columns === 0) {
    throw new SheetError(
      'NO_TABLE',
      `sheet '${sheet.name}' has no header in A1; the table must start at A1 with a header row`,
    );
  }
  if (columns > limits.maxColumns) {
    throw new SheetError(
      'TOO_MANY_COLUMNS',
      `the table has ${columns} columns; the limit is ${limits.maxColumns}`,
    );
  }
  let lastRow = 1;
  const rowUsed = (r: number): boolean => {
    for (let c = 1; c <= columns; c++) if (!isBlank(sheet.cells.get(cellKey(r, c)))) return true;
    return false;
  };
  while (lastRow < sheet.maxRow && rowUsed(lastRow + 1)) {
    lastRow++;
    if (lastRow - 1 > limits.maxRows) {
      throw new SheetError('TOO_MANY_ROWS', `the table has more than ${limits.maxRows} data rows`);
    }
  }
  return { columns, lastRow };
}

function headerText(cell: SheetCell | undefined): string {
  const v = cell?.value;
  if (v === null || v === undefined || isError(v)) return '';
  return String(v).trim();
}

/** Resolves each formula cell to a syntax tree (shared formulas moved to their cell). */
function formulaResolver(sheet: Worksheet): (cell: SheetCell) => Formula {
  const masters = new Map<string, SheetCell>();
  for (const cell of sheet.cells.values()) {
    if (cell.formula?.shared !== undefined && cell.formula.text !== undefined)
      masters.set(cell.formula.shared, cell);
  }
  const parsed = new Map<SheetCell, Formula>();
  const parse = (cell: SheetCell): Formula => {
    let f = parsed.get(cell);
    if (!f) {
      f = parseFormula(cell.formula!.text!);
      parsed.set(cell, f);
    }
    return f;
  };
  return (cell) => {
    const info = cell.formula!;
    if (info.text !== undefined) return parse(cell);
    const master = masters.get(info.shared ?? '');
    if (!master)
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `${cellName(cell.row, cell.col)} shares a formula whose master cell is missing`,
      );
    return shiftFormula(parse(master), cell.row - master.row, cell.col - master.col);
  };
}

/** LibreOffice writes TRUE/FALSE constants as the formulas TRUE()/FALSE(); a literal formula is a constant. */
function literalFormulas(sheet: Worksheet): void {
  for (const cell of sheet.cells.values()) {
    if (!cell.formula?.text || cell.formula.array || cell.formula.shared !== undefined) continue;
    let f: Formula;
    try {
      f = parseFormula(cell.formula.text);
    } catch {
      continue;
    }
    if ((f.kind === 'boolean' || f.kind === 'number' || f.kind === 'string') && !isError(cell.value)) {
      delete cell.formula;
      if (cell.value === null) cell.value = f.value;
    }
  }
}

/** The first reference to another sheet in a formula, if any. */
function foreignSheet(f: Formula, sheetName: string): string | undefined {
  switch (f.kind) {
    case 'ref':
    case 'range':
      return f.sheet !== undefined && f.sheet.toLowerCase() !== sheetName.toLowerCase()
        ? printFormula(f)
        : undefined;
    case 'call':
      for (const a of f.args) {
        const hit = foreignSheet(a, sheetName);
        if (hit) return hit;
      }
      return undefined;
    case 'binary':
      return foreignSheet(f.left, sheetName) ?? foreignSheet(f.right, sheetName);
    case 'unary':
    case 'percent':
      return foreignSheet(f.operand, sheetName);
    default:
      return undefined;
  }
}

function reject(
  field: Field,
  reason: RejectionReason,
  message: string,
  extra: Partial<RejectedColumn> = {},
): void {
  if (field.rejection) return;
  field.rejection = { column: field.title, address: field.address, reason, message, ...extra };
  if (field.formulaText !== undefined && field.rejection.formula === undefined)
    field.rejection.formula = `=${field.formulaText}`;
}

function label(sheet: Worksheet, row: number, col: number): string | undefined {
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

async function compileWorksheet(
  sheet: Worksheet,
  options: ConvertOptions,
  limits: SheetLimits,
): Promise<SheetConversion> {
  literalFormulas(sheet);
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
    };
    fields.push(field);
    table.byCol.set(col, field);
    const cells: (SheetCell | undefined)[] = [];
    for (let r = 2; r <= lastRow; r++) cells.push(sheet.cells.get(cellKey(r, col)));
    const withFormula = cells.filter((c) => c?.formula);
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
    if (!cell.formula) continue;
    const inTable = cell.col <= columns && cell.row <= lastRow;
    if (inTable) continue;
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
    const mismatched = await checkSpec(spec, fields);
    if (!mismatched) {
      return {
        spec,
        rejectedColumns: fields.filter((f) => f.rejection).map((f) => f.rejection!),
        formulaFields: computed.length,
        compiledFields: computed.filter((f) => !f.rejection).length,
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

function rowsOf(sheet: Worksheet, fields: Field[], lastRow: number): JsonObject[] {
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
  if (f.kind !== 'input') {
    s.readOnly = true;
    s.description = `=${f.formulaText ?? ''} (${f.kind === 'column' ? `column ${f.address}` : `cell ${f.address}`})`;
  } else {
    s.description = `column ${f.address}`;
  }
  return s;
}

function buildSpec(
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
  for (const f of live) {
    if (f.kind === 'summary') rootProps[f.name] = schemaOf(f);
    else rowProps[f.name] = schemaOf(f);
    if (f.kind === 'input') {
      defaults[f.name] = BLANK[f.type];
      continue;
    }
    for (const t of f.tables) usedTables.add(t);
    const numeric = f.type === 'number' || f.type === 'any';
    const expr = numeric ? `$xl_num(${f.expr!})` : f.expr!;
    derivations.push({
      path: f.kind === 'column' ? `$.rows[*].${f.name}` : `$.${f.name}`,
      expr,
      description: `${f.title}: =${f.formulaText ?? ''} (${f.kind === 'column' ? `column ${f.address}` : `cell ${f.address}`})`,
    });
    if (f.kind === 'column') {
      for (let r = 2; r <= lastRow; r++) {
        expect[`$.rows[${r - 2}].${f.name}`] = sheet.cells.get(cellKey(r, f.col))!.value;
      }
    } else {
      expect[`$.${f.name}`] = sheet.cells.get(cellKey(f.row, f.col))!.value;
    }
  }
  const libUse = lib.clone();
  // helpers: re-mark those the live expressions call
  const allExpr = derivations.map((d) => String(d.expr)).join('\n');
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
        given: { '$.rows': given },
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
async function checkSpec(spec: ModelSpec, fields: Field[]): Promise<boolean> {
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
