/**
 * Lookups: MATCH, INDEX, XLOOKUP, XMATCH, VLOOKUP and HLOOKUP, over the lists and indexes of
 * lookup-lists.ts. An exact lookup from a row formula into a whole column of a table reads the
 * column's index instead of scanning it.
 */
import { Rejection } from './errors.js';
import { typeOf } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { ListCompiler, type Column } from './lookup-lists.js';
import { approximate, constantNumber, embedBlock, requireSorted } from './lookup-tables.js';
import type { Compiled } from './references.js';
import { cellKey, type Worksheet } from './xlsx.js';

const num = (code: string): Compiled => ({ code, type: 'number' });

export abstract class LookupCompiler extends ListCompiler {
  protected lookup(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'MATCH':
        this.args(name, args, 2, 3);
        return this.match(args);
      case 'INDEX':
        this.args(name, args, 2, 3);
        return this.index(args);
      case 'XLOOKUP':
        this.args(name, args, 3, 6);
        return this.xlookup(args);
      case 'XMATCH':
        this.args(name, args, 2, 4);
        return this.xmatch(args);
      case 'VLOOKUP':
      case 'HLOOKUP':
        this.args(name, args, 3, 4);
        return this.tableLookup(name, args);
      default:
        return this.letOrLambda(name, args);
    }
  }

  private match(args: Formula[]): Compiled {
    const mode = args[2] === undefined || args[2].kind === 'missing' ? 1 : constantNumber(args[2]);
    if (mode !== 0 && mode !== 1 && mode !== -1)
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        'MATCH is compiled with match type 0, 1 or -1 (a constant)',
      );
    const cols = mode === 0 ? this.columnsOf(args[1]) : undefined;
    if (cols?.length === 1) {
      const m = this.fresh();
      return num(
        `(${m} := ${this.indexed(args[0]!, cols[0]!, true)}; ${m}.i + ${ListCompiler.offset(cols[0]!)})`,
      );
    }
    const key = this.compile(args[0]!).code;
    // MATCH 0 reads a text key's wildcards (XMATCH's and XLOOKUP's exact mode do not)
    if (mode === 0) return num(`${this.helper('xl_wmatch')}(${key}, ${this.list(args[1]!)})`);
    return num(`${this.helper('xl_approx')}(${key}, ${this.list(args[1]!)}, ${mode})`);
  }

  /** XMATCH(key, range, match mode, search mode): the position XLOOKUP would read. */
  private xmatch(args: Formula[]): Compiled {
    const { mode, search } = LookupCompiler.xmodes(args[2], args[3], 'XMATCH');
    const key = this.compile(args[0]!).code;
    if (mode === 0 && search === 1) return num(`${this.helper('xl_match')}(${key}, ${this.list(args[1]!)})`);
    return num(`${this.helper('xl_xmatch')}(${key}, ${this.list(args[1]!)}, ${mode}, ${search})`);
  }

  /** XLOOKUP's and XMATCH's match mode (0, -1, 1) and search mode (1, -1), both constants. */
  private static xmodes(
    modeArg: Formula | undefined,
    searchArg: Formula | undefined,
    name: string,
  ): { mode: number; search: number } {
    const given = (f: Formula | undefined, fallback: number): number | undefined =>
      f === undefined || f.kind === 'missing' ? fallback : constantNumber(f);
    const mode = given(modeArg, 0);
    const search = given(searchArg, 1);
    if (
      mode === undefined ||
      ![0, -1, 1].includes(mode) ||
      search === undefined ||
      ![1, -1].includes(search)
    ) {
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        `${name} is compiled with match mode 0, -1 or 1 and search mode 1 or -1 (constants); wildcards (2) and binary search (2, -2) are not`,
      );
    }
    return { mode, search };
  }

  /** INDEX over one column or row; over table columns side by side when the column number is a constant. */
  private index(args: Formula[]): Compiled {
    const cols = this.columnsOf(args[0]);
    const c = args[2] === undefined ? 1 : this.constantColumn(args[2]);
    if (cols && c !== undefined) {
      const col = cols[c - 1];
      if (!col)
        throw new Rejection('UNSUPPORTED_REFERENCE', `INDEX reads column ${c} of a range of ${cols.length}`);
      this.depend(col.field);
      const pos = args[1]!;
      const matchArgs = pos.kind === 'call' && pos.name === 'MATCH' ? pos.args : undefined;
      const keyCols = matchArgs ? this.exactMatchColumn(matchArgs) : undefined;
      if (matchArgs && keyCols && keyCols.table === col.table && keyCols.fromRow === col.fromRow) {
        const m = this.fresh();
        return {
          code: `(${m} := ${this.indexed(matchArgs[0]!, keyCols, true)}; ${m}.r.${col.field.name})`,
          type: 'any',
        };
      }
    }
    if (args[2] !== undefined && c !== 1) {
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        'INDEX is compiled over one column or row, or over a table by an exact MATCH',
      );
    }
    // the position is bound first: inside [ ] a path would be read from each item
    const e = this.fresh();
    return {
      code: `(${e} := $floor(${this.scalar(args, 1)}); ${this.list(args[0]!)}[${e} - 1])`,
      type: 'any',
    };
  }

  /** The column of `MATCH(key, column, 0)` when it is one whole table column. */
  private exactMatchColumn(args: Formula[]): Column | undefined {
    const mode = args[2];
    if (args.length !== 3 || !(mode?.kind === 'number' && mode.value === 0)) return undefined;
    const cols = this.columnsOf(args[1]);
    return cols?.length === 1 ? cols[0] : undefined;
  }

  /**
   * A column number known when compiling: a number, or `MATCH(h, header row, 0)` where `h` is text
   * or a cell holding text with no formula (a header, a label).
   */
  private constantColumn(f: Formula): number | undefined {
    if (f.kind === 'number') return Math.floor(f.value);
    if (f.kind !== 'call' || f.name !== 'MATCH' || f.args.length !== 3) return undefined;
    const [h, range, mode] = f.args as [Formula, Formula, Formula];
    if (!(mode.kind === 'number' && mode.value === 0)) return undefined;
    const text = this.constantText(h);
    const r = this.resolveArg(range);
    if (text === undefined || r.kind !== 'range' || r.from.row !== r.to.row || r.from.row === 0)
      return undefined;
    const sheet = this.sheetOf(r.sheet, `the range ${printFormula(r)}`);
    for (let col = r.from.col; col <= r.to.col; col++) {
      const v = sheet.cells.get(`${r.from.row}:${col}`);
      if (v?.formula) return undefined;
      if (typeof v?.value === 'string' && v.value.toLowerCase() === text.toLowerCase())
        return col - r.from.col + 1;
    }
    return undefined;
  }

  private constantText(f: Formula): string | undefined {
    if (f.kind === 'string') return f.value;
    if (f.kind !== 'ref') return undefined;
    const sheet = this.sheetOf(f.sheet, printFormula(f));
    const cell = sheet.cells.get(`${f.ref.row}:${f.ref.col}`);
    return cell && !cell.formula && typeof cell.value === 'string' ? cell.value : undefined;
  }

  private xlookup(args: Formula[]): Compiled {
    const { mode, search } = LookupCompiler.xmodes(args[4], args[5], 'XLOOKUP');
    const e = this.fresh();
    const notFound = args[3] && args[3].kind !== 'missing' ? this.compile(args[3]).code : '$nothing';
    const keys = this.columnsOf(args[1]);
    const values = this.columnsOf(args[2]);
    const key = keys?.[0];
    const value = values?.[0];
    if (
      mode === 0 &&
      search === 1 &&
      keys?.length === 1 &&
      values?.length === 1 &&
      key!.table === value!.table &&
      key!.fromRow === value!.fromRow
    ) {
      this.depend(value!.field);
      return {
        code: `(${e} := ${this.indexed(args[0]!, key!, false)}; $exists(${e}) ? ${e}.r.${value!.field.name} : ${notFound})`,
        type: 'any',
      };
    }
    const lookIn = this.listOf(args[1]!);
    const returned = this.listOf(args[2]!);
    if (lookIn.length >= 0 && returned.length >= 0 && lookIn.length !== returned.length) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `XLOOKUP's lookup range has ${lookIn.length} cells and its return range ${returned.length}; a spreadsheet gives #VALUE! then`,
      );
    }
    const wanted = this.compile(args[0]!).code;
    const position =
      mode === 0 && search === 1
        ? `${this.helper('xl_match')}(${wanted}, ${lookIn.code})`
        : `${this.helper('xl_xmatch')}(${wanted}, ${lookIn.code}, ${mode}, ${search})`;
    return {
      code: `(${e} := ${position}; $exists(${e}) ? ${returned.code}[${e} - 1] : ${notFound})`,
      type: 'any',
    };
  }

  /**
   * VLOOKUP / HLOOKUP over a constant side block: the block is checked, embedded as a lookup
   * function of the library (HLOOKUP's block turned so that its rows read as columns), and called
   * with the key. Approximate match (a 4th argument TRUE, non-zero or left out) needs the first
   * column (row) sorted ascending, checked here: the block is constant, so it stays sorted.
   */
  private tableLookup(name: 'VLOOKUP' | 'HLOOKUP', args: Formula[]): Compiled {
    const [keyArg, rangeArg, colArg, modeArg] = args as [Formula, Formula, Formula, Formula | undefined];
    const approx = approximate(name, modeArg);
    // whole columns of one table (`Prices!A:C`): its columns read as lists, the cells above the
    // table first (listOf), so that the lookup follows the table's rows, added ones too
    const whole = name === 'VLOOKUP' ? this.wholeTableBlock(rangeArg) : undefined;
    if (whole !== undefined) {
      indexWithin(name, colArg, whole, false);
      return this.liveTableLookup(name, args, approx);
    }
    const { sheet, from, to } = this.lookupBlock(name, rangeArg);
    const across = name === 'HLOOKUP';
    const width = across ? to.row - from.row + 1 : to.col - from.col + 1;
    indexWithin(name, colArg, width, across);
    if ((to.row - from.row + 1) * (to.col - from.col + 1) > 100_000) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the ${name} table ${printFormula(rangeArg)} is too large to embed`,
      );
    }
    // a block holding formulas (keys counted down `=A4+1`) is read where it lies, as a block
    // holding inputs is, so that the lookup follows what they compute
    if (this.blockHoldsFormulas(sheet, from, to)) return this.liveTableLookup(name, args, approx);
    const { rows, resultValues } = embedBlock(name, sheet, from, to, colArg.value, across);
    if (approx) requireSorted(name, rows);
    // a block holding inputs (a table's data, side cells another formula reads) is read where it
    // lies, so that the lookup follows them; a block of constants is embedded
    if (this.blockIsLive(sheet, from, to)) return this.liveTableLookup(name, args, approx);
    const range = printFormula({ kind: 'range', sheet: sheet.name, from, to });
    const fn = this.lib.table(across ? `${range} across` : range, rows, approx);
    this.field.tables.add(fn);
    const key = this.compile(keyArg);
    return { code: `$${fn}(${key.code}).c${colArg.value}`, type: typeOf(resultValues) };
  }

  /** The width of a lookup table made of whole columns of one model table, else undefined. */
  private wholeTableBlock(rangeArg: Formula): number | undefined {
    const range = this.resolveArg(rangeArg);
    if (range.kind !== 'range' || range.from.row !== 0 || range.to.row !== 0) return undefined;
    return this.wholeColumns(range)?.length;
  }

  /**
   * Whether a cell of the block is an input of the model, so not a constant: a data cell of a
   * model table, or a side cell another formula made an input (compileFields compiles a field
   * with an embedded block again once every formula has been read).
   */
  private blockIsLive(sheet: Worksheet, from: CellRef, to: CellRef): boolean {
    for (let row = from.row; row <= to.row; row++)
      for (let col = from.col; col <= to.col; col++)
        if (this.scope.target(sheet, row, col).kind === 'data' || this.scope.isSideInput(sheet, row, col))
          return true;
    return false;
  }

  /** Whether a cell of the block holds a formula (its value is the model's, not a constant). */
  private blockHoldsFormulas(sheet: Worksheet, from: CellRef, to: CellRef): boolean {
    for (let row = from.row; row <= to.row; row++)
      for (let col = from.col; col <= to.col; col++)
        if (sheet.cells.get(cellKey(row, col))?.formula) return true;
    return false;
  }

  /**
   * VLOOKUP / HLOOKUP over a block holding a model table's cells: embedding its values would keep
   * the workbook's values when the table's inputs change, so the block's first column (row) and
   * its result column (row) are read as lists, like MATCH and INDEX (approximate match gives no
   * value on keys edited out of order, as MATCH 1 does).
   */
  private liveTableLookup(name: 'VLOOKUP' | 'HLOOKUP', args: Formula[], approx: boolean): Compiled {
    const range = this.resolveArg(args[1]!) as Formula & { kind: 'range' };
    const { from, to } = range;
    const n = (args[2] as Formula & { kind: 'number' }).value;
    const line = (at: number): Formula =>
      name === 'VLOOKUP'
        ? { ...range, from: { ...from, col: at }, to: { ...to, col: at } }
        : { ...range, from: { ...from, row: at }, to: { ...to, row: at } };
    const first = name === 'VLOOKUP' ? from.col : from.row;
    // an exact VLOOKUP over a model table's data rows (no header, no cells above) in a column
    // formula reads the key column's index, built once per recalculation: a scan from every row
    // costs rows × table rows (140 rows × 56 columns over a 1,573-row table took minutes)
    const cols = !approx && name === 'VLOOKUP' ? this.columnsOf(args[1]) : undefined;
    if (cols && cols.length >= n && cols[0]!.fromRow === cols[0]!.table.firstRow) {
      const m = this.fresh();
      const result = cols[n - 1]!.field;
      this.depend(result);
      return {
        code: `(${m} := ${this.indexed(args[0]!, cols[0]!, true)}; ${m}.r.${result.name})`,
        type: 'any',
      };
    }
    const keys = this.listOf(line(first)).code;
    const values = this.listOf(line(first + n - 1)).code;
    const key = this.compile(args[0]!).code;
    const position = approx
      ? `${this.helper('xl_approx')}(${key}, ${keys}, 1)`
      : `${this.helper('xl_wmatch')}(${key}, ${keys})`;
    const e = this.fresh();
    return { code: `(${e} := ${position}; $exists(${e}) ? ${values}[${e} - 1] : $nothing)`, type: 'any' };
  }

  /**
   * The lookup table as a block of cells: a range, its rows $-locked in a column formula (else it
   * moves from row to row), bounded, and apart from the formula's own table.
   */
  private lookupBlock(name: string, rangeArg: Formula): { sheet: Worksheet; from: CellRef; to: CellRef } {
    const range = this.resolveArg(rangeArg);
    if (range.kind !== 'range') {
      throw new Rejection('UNSUPPORTED_REFERENCE', `${name}'s table must be a cell range`);
    }
    const sheet = this.sheetOf(range.sheet, `the ${name} table ${printFormula(rangeArg)}`);
    const { from, to } = range;
    // a column formula is filled down: only its rows move, so only they need the `$`
    if (this.rowMode && !(from.rowAbs && to.rowAbs)) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the ${name} table ${printFormula(rangeArg)} is not $-locked, so it moves from row to row`,
      );
    }
    if (from.row === 0 || to.row < from.row || to.col < from.col) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the ${name} table ${printFormula(rangeArg)} is not a bounded block of cells`,
      );
    }
    const own = this.field.table;
    if (
      own &&
      own.sheet === sheet &&
      from.col <= own.right &&
      to.col >= own.left &&
      from.row <= own.lastRow &&
      to.row >= own.firstRow
    ) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the ${name} table ${printFormula(rangeArg)} overlaps the formula's own table`,
      );
    }
    return { sheet, from, to };
  }
}

/** VLOOKUP's column (HLOOKUP's row) index: a whole number from 1 to the table's width. */
function indexWithin(
  name: string,
  index: Formula,
  width: number,
  across: boolean,
): asserts index is Formula & { kind: 'number' } {
  if (index.kind !== 'number' || !Number.isInteger(index.value) || index.value < 1 || index.value > width)
    throw new Rejection(
      'UNSUPPORTED_SYNTAX',
      `${name}'s ${across ? 'row' : 'column'} index must be a whole number from 1 to ${width}`,
    );
}
