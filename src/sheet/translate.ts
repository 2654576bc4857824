/** One formula → JSONata: references resolved against the table, functions translated. */
import type { JsonObject, JsonValue } from '../calc/index.js';
import { Rejection } from './errors.js';
import { isError, typeOf, type Field, type Table, type ValueType } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import type { HelperName, LibraryBuilder } from './library.js';
import { cellKey, cellName, columnLetter } from './xlsx.js';

const SUPPORTED =
  'IF, AND, OR, NOT, ROUND, ABS, SUM, AVERAGE, MIN, MAX, COUNT, CONCATENATE, LEFT, RIGHT, MID, LEN, UPPER, LOWER, TRIM, VLOOKUP (exact), SUMPRODUCT';

interface Compiled {
  code: string;
  type: ValueType;
}

/** Compiles one formula of a field into JSONata. */
export class FormulaCompiler {
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
