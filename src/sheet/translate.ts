/** One formula → JSONata: operators and functions translated (references: references.ts). */
import { Rejection } from './errors.js';
import type { TableModel } from './fields.js';
import { printFormula, type Formula } from './formula.js';
import { FunctionCompiler, FUNCTIONS } from './functions.js';
import { isLoose } from './loose.js';
import { DUMMY_FUNCTION, googleRejection } from './google.js';
import type { Compiled } from './references.js';

const SUPPORTED = `IF, AND, OR, NOT, ROUND, ABS, SUM, AVERAGE, MIN, MAX, COUNT, CONCATENATE, LEFT, RIGHT, MID, LEN, UPPER, LOWER, TRIM, VLOOKUP, HLOOKUP, XMATCH, CLEAN, SUMPRODUCT, ${FUNCTIONS.join(', ')}`;

/** An error known when compiling (#NAME?): no value, as every Excel error is in the model. */
const NAME_ERROR: Compiled = { code: '$nothing', type: 'any' };
/** Whether a compiled operand is an error whatever the inputs (an operator or IF passes it on). */
const isError = (c: Compiled): boolean => c.code === NAME_ERROR.code;

/** Compiles one formula of a field into JSONata. */
const ARITHMETIC = new Set(['+', '-', '*', '/', '^']);

/** SUMPRODUCT's blocks of cells, at most this many cells each (the code grows with them). */
const MAX_BLOCK_CELLS = 200;

export class FormulaCompiler extends FunctionCompiler {
  /** How many arithmetic operators the node being compiled is inside (see `binary`). */
  private arithmeticDepth = 0;

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
        // a name a LET or LAMBDA around it binds (`_xlpm.x`), else a defined name or table
        return this.boundName(f.name) ?? this.unknownName(f.name) ?? this.named(f, (g) => this.compile(g));
      case 'structured':
        return this.named(f, (g) => this.compile(g));
      case 'ref':
        return this.ref(f.ref, f.sheet);
      case 'range': {
        const own = this.intersection(f);
        if (own) return this.compile(own);
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `the range ${printFormula(f)} is used as a value; ranges are read only by SUM, AVERAGE, MIN, MAX, COUNT, SUMPRODUCT and VLOOKUP`,
        );
      }
      case 'unary': {
        const operand = this.compile(f.operand);
        if (isError(operand)) return operand;
        // a leading + changes nothing, text included (`=+'Inputs'!B1` is the name there), as in
        // Excel and the grid evaluator
        if (f.op === '+') return operand;
        return { code: `-(${this.num(operand)})`, type: 'number' };
      }
      case 'percent': {
        const operand = this.compile(f.operand);
        return isError(operand) ? operand : { code: `(${this.num(operand)} / 100)`, type: 'number' };
      }
      case 'binary': {
        // an operator passes an error on (`A2=Exc` is #NAME?, not FALSE)
        const arithmetic = ARITHMETIC.has(f.op);
        const outermost = this.arithmeticDepth === 0;
        if (arithmetic) this.arithmeticDepth++;
        try {
          const [l, r] = [this.compile(f.left), this.compile(f.right)];
          return isError(l) ? l : isError(r) ? r : this.binary(f.op, l, r, outermost);
        } finally {
          if (arithmetic) this.arithmeticDepth--;
        }
      }
      case 'call':
        return this.call(f.name, f.args);
    }
  }

  /**
   * A name that is neither bound, a table nor a defined name (`IF(I2=Exc, …)`, a string whose
   * quotes were left out) is #NAME? in a spreadsheet, an error only where it is evaluated: no value
   * here, as every Excel error is (a branch of IF that is never taken leaves the rest intact). The
   * file's own prefixes (`_xlfn.`, `_xlpm.`, `_xleta.`) are never such a name: they are rejected.
   */
  private unknownName(name: string): Compiled | undefined {
    if (this.scope.excelTable(name) || this.scope.hasDefinedName(name, this.field.sheet)) return undefined;
    if (/^_xl/i.test(name)) {
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        /^_xleta\./i.test(name)
          ? `${name.slice(7)} passed as a function (an eta-reduced LAMBDA) is not compiled`
          : `'${name}' is a name of Excel's own that is not compiled here`,
      );
    }
    return NAME_ERROR;
  }

  /**
   * Implicit intersection, as a spreadsheet reads a one-column range where one value is expected
   * (`=IF(Pmt_Nbr="",…)` with Pmt_Nbr naming B18:B537): the range's cell in the formula's own row.
   * Only when the range spans every row the formula is in (each row of its table); otherwise the
   * spreadsheet gives #VALUE! in some row, and the range stays rejected.
   */
  private intersection(f: Formula & { kind: 'range' }): Formula | undefined {
    const { from, to } = f;
    if (from.col !== to.col || from.row === 0 || to.row === 0) return undefined;
    const column = this.field.kind === 'column' && this.field.table;
    const [first, last] = column
      ? [this.field.table!.firstRow, this.field.table!.lastRow]
      : [this.field.row, this.field.row];
    if (from.row > first || to.row < last) return undefined;
    return {
      kind: 'ref',
      sheet: f.sheet,
      ref: { row: this.field.row, col: from.col, rowAbs: !column, colAbs: true },
    };
  }

  /**
   * `outermost`: no arithmetic operator around this one. A subtraction there cancels to 0 within
   * the last bits, as the spreadsheet's does (Excel at a formula's last step, LibreOffice at every
   * step; library.ts, xl_add): a check `=H1-SUM(E2:E4)` is 0, and `=IF(A-B=0,…)` sees 0. Every
   * other + and - stays plain JSONata arithmetic, which the calc engine evaluates on its fast path
   * (src/calc/fast-arithmetic.ts): a helper at every + made a 100,000-cell sheet 2-3x slower.
   */
  private binary(op: string, l: Compiled, r: Compiled, outermost = false): Compiled {
    switch (op) {
      case '-':
        if (outermost)
          return { code: `${this.helper('xl_add')}(${this.num(l)}, -(${this.num(r)}))`, type: 'number' };
        return { code: `(${this.num(l)} - ${this.num(r)})`, type: 'number' };
      case '+':
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
        // numbers within the last bits of each other are equal, as the spreadsheet compares them
        // (xl_eqv, xl_ncmp); a number against text is unequal, never an error
        const plain = l.type !== 'number' && r.type !== 'number' && l.type !== 'any' && r.type !== 'any';
        if (plain) return { code: `(${l.code} ${jop} ${r.code})`, type: 'boolean' };
        if (op === '=' || op === '<>') {
          const eq = `${this.helper('xl_eqv')}(${l.code}, ${r.code})`;
          return { code: op === '=' ? eq : `$not(${eq})`, type: 'boolean' };
        }
        return { code: `(${this.helper('xl_ncmp')}(${l.code}, ${r.code}) ${jop} 0)`, type: 'boolean' };
      }
    }
  }

  /** A function call: the core set here, the rest in FunctionCompiler.more. */
  private call(name: string, args: Formula[]): Compiled {
    switch (name) {
      case 'SUMPRODUCT':
        return this.sumproduct(args);
      case DUMMY_FUNCTION:
        throw googleRejection(args);
      case 'OFFSET':
      case 'INDIRECT':
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          `${name} is not compiled; of the lookups VLOOKUP, HLOOKUP, LOOKUP, INDEX, MATCH, XMATCH and XLOOKUP are`,
        );
    }
    const compiled =
      this.coreLogic(name, args) ??
      this.coreMaths(name, args) ??
      this.coreText(name, args) ??
      this.more(name, args);
    if (compiled) return compiled;
    throw new Rejection('UNSUPPORTED_FUNCTION', `${name} is not in the supported set (${SUPPORTED})`);
  }

  /** IF, AND, OR, NOT; undefined for any other name. */
  private coreLogic(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'IF': {
        this.args(name, args, 2, 3);
        // an empty argument (`IF(c, x, )`) is 0 in a spreadsheet; an absent third one is FALSE
        const value = (f: Formula): Compiled =>
          f.kind === 'missing' ? { code: '0', type: 'number' } : this.compile(f);
        const a = value(args[1]!);
        const b: Compiled = args[2] ? value(args[2]) : { code: 'false', type: 'boolean' };
        const condition = this.compile(args[0]!);
        if (isError(condition)) return condition;
        const type = a.type === b.type ? a.type : 'any';
        // a condition that is an error (no value: a lookup that found nothing, a comparison with
        // one) makes the IF that error, as in a spreadsheet, not its FALSE branch; a literal or a
        // comparison of two known texts always has a value
        if (condition.type === 'string' || /^(?:true|false)$/.test(condition.code))
          return { code: `(${condition.code} ? ${a.code} : ${b.code})`, type };
        const c = this.fresh();
        return {
          code: `(${c} := ${condition.code}; $exists(${c}) ? (${c} ? ${a.code} : ${b.code}) : $nothing)`,
          type,
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
        return { code: `$not(${this.compile(args[0]!).code})`, type: 'boolean' };
      default:
        return undefined;
    }
  }

  /** ROUND, ABS and the aggregates SUM, AVERAGE, MIN, MAX, COUNT; undefined for any other name. */
  private coreMaths(name: string, args: Formula[]): Compiled | undefined {
    const scalar = (i: number): string => this.num(this.compile(args[i]!));
    switch (name) {
      case 'ROUND':
        this.args(name, args, 2, 2);
        return { code: `${this.helper('xl_round')}(${scalar(0)}, ${scalar(1)})`, type: 'number' };
      case 'ABS':
        this.args(name, args, 1, 1);
        return { code: `$abs(${scalar(0)})`, type: 'number' };
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
      default:
        return undefined;
    }
  }

  /** CONCATENATE, LEFT, RIGHT, MID, LEN, UPPER, LOWER, TRIM, CLEAN; undefined for any other name. */
  private coreText(name: string, args: Formula[]): Compiled | undefined {
    const text = (i: number): string => this.text(this.compile(args[i]!));
    const num = (i: number): string => this.num(this.compile(args[i]!));
    switch (name) {
      case 'CONCATENATE': {
        this.args(name, args, 1, 255);
        const parts = args.map((a) => this.text(this.compile(a)));
        return { code: parts.length === 1 ? `("" & ${parts[0]})` : `(${parts.join(' & ')})`, type: 'string' };
      }
      case 'LEFT':
      case 'RIGHT': {
        this.args(name, args, 1, 2);
        const s = text(0);
        const n = args[1] ? num(1) : '1';
        return {
          code: name === 'LEFT' ? `$substring(${s}, 0, ${n})` : `${this.helper('xl_right')}(${s}, ${n})`,
          type: 'string',
        };
      }
      case 'MID':
        this.args(name, args, 3, 3);
        return { code: `$substring(${text(0)}, ${num(1)} - 1, ${num(2)})`, type: 'string' };
      case 'LEN':
        this.args(name, args, 1, 1);
        return { code: `$length(${text(0)})`, type: 'number' };
      case 'UPPER':
      case 'LOWER':
        this.args(name, args, 1, 1);
        return { code: `$${name.toLowerCase()}case(${text(0)})`, type: 'string' };
      case 'TRIM':
        this.args(name, args, 1, 1);
        return { code: `${this.helper('xl_trim')}(${text(0)})`, type: 'string' };
      case 'CLEAN':
        this.args(name, args, 1, 1);
        return { code: `${this.helper('xl_clean')}(${text(0)})`, type: 'string' };
      default:
        return undefined;
    }
  }

  /** SUMPRODUCT of whole numeric columns of one table: `$sum(table.(a * b))`; else of blocks. */
  private sumproduct(args: Formula[]): Compiled {
    this.args('SUMPRODUCT', args, 1, 255);
    const resolved = args.map((a) => this.resolveArg(a));
    const first = resolved[0]!;
    if (first.kind === 'range' && first.from.row > 0 && !this.wholeColumn(first))
      return this.blockSumproduct(resolved);
    let table: TableModel | undefined;
    const fields = args.map((arg) => {
      const a = this.resolveArg(arg);
      const column = a.kind === 'range' ? this.wholeColumn(a) : undefined;
      if (!column) {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `SUMPRODUCT is compiled only over whole $-locked table columns; ${printFormula(a)} is not one`,
        );
      }
      if (table && column.table !== table) {
        throw new Rejection('UNSUPPORTED_REFERENCE', 'SUMPRODUCT is compiled only over columns of one table');
      }
      table = column.table;
      if (column.field.type !== 'number') {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `SUMPRODUCT reads column '${column.field.title}', which is not numeric`,
        );
      }
      this.depend(column.field);
      return column.field.name;
    });
    return { code: `$sum(${this.root(table!.name)}.(${fields.join(' * ')}))`, type: 'number' };
  }

  /**
   * SUMPRODUCT of blocks of one shape (`SUMPRODUCT(D37:D41,$C$37:$C$41)`, a row's span times a
   * locked row `SUMPRODUCT(E4:G4,$E$2:$G$2)`): the cells multiplied position by position, what is
   * not a number counted as 0 as in a spreadsheet, the products summed in order. A block that
   * moves with the row is read only as the formula's own row.
   */
  private blockSumproduct(ranges: Formula[]): Compiled {
    const blocks = ranges.map((r) => {
      if (r.kind !== 'range' || r.from.row === 0 || r.from.col === 0)
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `SUMPRODUCT is compiled over whole table columns or blocks of cells; ${printFormula(r)} is not one`,
        );
      return r;
    });
    const rows = blocks[0]!.to.row - blocks[0]!.from.row + 1;
    const cols = blocks[0]!.to.col - blocks[0]!.from.col + 1;
    if (blocks.some((b) => b.to.row - b.from.row + 1 !== rows || b.to.col - b.from.col + 1 !== cols))
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        'SUMPRODUCT reads blocks of different shapes (#VALUE! in a spreadsheet)',
      );
    if (rows < 1 || cols < 1 || rows * cols > MAX_BLOCK_CELLS)
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `SUMPRODUCT is compiled over blocks of at most ${MAX_BLOCK_CELLS} cells`,
      );
    const cells = blocks.map((b) => this.blockCells(b));
    const num0 = this.helper('xl_num0');
    const products = Array.from({ length: rows * cols }, (_, i) =>
      cells.map((c) => `${num0}(${c[i]})`).join(' * '),
    );
    // a cell holding an error gives no product: the sum is then the error, as in a spreadsheet
    const p = this.fresh();
    return {
      code: `(${p} := [${products.join(', ')}]; $count(${p}) = ${products.length} ? $sum(${p}) : $nothing)`,
      type: 'number',
    };
  }

  /** A block's cells in order, row by row: each read where it lies, a blank as null. */
  private blockCells(b: Formula & { kind: 'range' }): string[] {
    const sheet = this.sheetOf(b.sheet, `the range ${printFormula(b)}`);
    const own = this.field.table;
    const moves = this.rowMode && !(b.from.rowAbs && b.to.rowAbs);
    if (
      moves &&
      !(own && own.sheet === sheet && b.from.row === this.field.row && b.to.row === this.field.row)
    )
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `SUMPRODUCT's block ${printFormula(b)} moves with the row and is not the formula's own row`,
      );
    const out: string[] = [];
    for (let r = b.from.row; r <= b.to.row; r++) {
      for (let c = b.from.col; c <= b.to.col; c++) {
        const target = this.scope.target(sheet, r, c);
        if (moves) {
          // the formula's own row: its table's field in this row
          if (target.kind !== 'data' || target.table !== own || isLoose(own, c))
            throw new Rejection(
              'UNSUPPORTED_REFERENCE',
              `SUMPRODUCT's block ${printFormula(b)} reaches past the formula's own table`,
            );
          this.depend(target.field);
          out.push(`${this.rowVar}.${target.field.name}`);
          continue;
        }
        const cell = sheet.cells.get(`${r}:${c}`);
        const blank = !cell || (cell.value === null && !cell.formula);
        if (
          target.kind === 'header' ||
          (target.kind === 'side' && blank && !this.scope.isSideInput(sheet, r, c))
        ) {
          out.push('null');
          continue;
        }
        const read =
          target.kind === 'data'
            ? this.tableCell(target.table, target.field, r)
            : this.sideCell(target.kind === 'formula' ? target.field : this.scope.sideInput(sheet, r, c));
        out.push(read.code);
      }
    }
    return out;
  }
}
