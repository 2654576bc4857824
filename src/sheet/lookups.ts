/**
 * Lookups: MATCH, INDEX and XLOOKUP. An exact lookup from a row formula into a whole column of a
 * table reads an index (a top-level derived object from each key to its row, built once per
 * evaluation, see LibraryBuilder.index) instead of scanning the column: a thousand rows each
 * looking up in a thousand-row list cost one pass over the list, not a million comparisons.
 */
import { Rejection } from './errors.js';
import { typeOf, type Field, type TableModel } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { LetCompiler } from './let.js';
import { approximate, constantNumber, embedBlock, requireSorted } from './lookup-tables.js';
import type { Compiled } from './references.js';
import { DYNAMIC_FUNCTIONS } from './spill.js';
import { cellKey, cellName, type Worksheet } from './xlsx.js';
import type { JsonValue } from '../calc/index.js';

type Column = { table: TableModel; field: Field; fromRow: number };

const num = (code: string): Compiled => ({ code, type: 'number' });

/**
 * A top-level index or grouped aggregate a row reads: always an object once built (`{}` for no
 * rows), so anything else (null: the engine's value of a failed derivation) means its derivation
 * failed (a time limit, say). Reading it as "no such key"
 * would give a row the aggregate's zero (SUMIFS 0) where it has no answer: it fails instead.
 */
export const built = (name: string): string =>
  `($type($$.${name}) = "object" ? $$.${name} : $error("${name} has no value: the derivation that builds it failed"))`;
export abstract class LookupCompiler extends LetCompiler {
  private vars = 0;

  /** A fresh variable name for a block (`$e1`), so nested blocks never shadow each other. */
  protected fresh(): string {
    return `$e${++this.vars}`;
  }

  protected scalar(args: Formula[], i: number, fallback?: string): string {
    const a = args[i];
    if (a === undefined || a.kind === 'missing') {
      if (fallback === undefined)
        throw new Rejection('UNSUPPORTED_SYNTAX', 'an argument the function needs is empty');
      return fallback;
    }
    return this.num(this.compile(a));
  }

  /** An ordered list for a lookup (see `listOf`). */
  protected list(arg: Formula): string {
    return this.listOf(arg).code;
  }

  /**
   * An ordered list for a lookup, and its length: one whole table column (from its header row or
   * its first data row: a range that starts at the header holds the header text first, so a
   * position found in another range counts the same cells a spreadsheet counts), or a row or
   * column of at most 200 cells, each read where it lies (a side cell, a table cell, a header).
   */
  protected listOf(arg: Formula): { code: string; length: number } {
    // a spill (`K3#`) or a dynamic array: its length is known only when it runs (-1)
    const spilled = this.spillArrayOf(arg);
    if (spilled) return { code: `${this.helper('xl_arr')}(${spilled.code})`, length: -1 };
    if (arg.kind === 'call' && DYNAMIC_FUNCTIONS.has(arg.name))
      return { code: `${this.helper('xl_arr')}(${this.compile(arg).code})`, length: -1 };
    const r = this.resolveArg(arg);
    if (r.kind !== 'range') {
      throw new Rejection('UNSUPPORTED_REFERENCE', `a lookup reads a range; ${printFormula(r)} is not one`);
    }
    const columns = this.wholeColumns(r);
    if (columns?.length === 1) {
      const { table, field } = columns[0]!;
      this.depend(field);
      const rows = `${this.helper('xl_arr')}(${this.root(table.name)}.${field.name})`;
      const length = table.lastRow - table.firstRow + 1;
      // a whole column (`B:B`) counts from row 1: the cells above the table come first
      const above = LookupCompiler.above(table, r.from.col, r.from.row === 0 ? 1 : r.from.row);
      if (above.length === 0) return { code: rows, length };
      return { code: `$append(${JSON.stringify(above)}, ${rows})`, length: length + above.length };
    }
    const cells = this.lineCells(r);
    return { code: `[${cells.map((c) => c ?? 'null').join(', ')}]`, length: cells.length };
  }

  /** The constants of a column from `row` down to a table's first data row (its header, notes above it). */
  private static above(table: TableModel, col: number, row: number): JsonValue[] {
    const out: JsonValue[] = [];
    for (let r = row; r < table.firstRow; r++) {
      const cell = table.sheet.cells.get(cellKey(r, col));
      if (cell?.formula) {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `the lookup range reads ${cellName(r, col)} above table '${table.title}', which holds a formula`,
        );
      }
      out.push(cell?.value ?? null);
    }
    return out;
  }

  /** The cells of a one-row or one-column block, each as an expression (undefined for a blank). */
  private lineCells(r: Formula & { kind: 'range' }): (string | undefined)[] {
    const sheet = this.sheetOf(r.sheet, `the range ${printFormula(r)}`);
    const { from, to } = r;
    const size = (to.row - from.row + 1) * (to.col - from.col + 1);
    if (from.row === 0 || (from.row !== to.row && from.col !== to.col) || size > 200) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the lookup range ${printFormula(r)} is neither one whole table column nor a row or column of at most 200 cells`,
      );
    }
    if (this.rowMode && !(from.rowAbs && to.rowAbs)) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the lookup range ${printFormula(r)} moves with the row; lock it with $`,
      );
    }
    const out: (string | undefined)[] = [];
    for (let row = from.row; row <= to.row; row++) {
      for (let col = from.col; col <= to.col; col++) {
        const target = this.scope.target(sheet, row, col);
        const cell = sheet.cells.get(cellKey(row, col));
        if (target.kind === 'data') {
          out.push(this.tableCell(target.table, target.field, row).code);
          continue;
        }
        if (!cell || (cell.value === null && !cell.formula)) {
          out.push(undefined);
          continue;
        }
        if (target.kind === 'header') {
          out.push(JSON.stringify(cell.value));
          continue;
        }
        const field = target.kind === 'formula' ? target.field : this.scope.sideInput(sheet, row, col);
        this.depend(field);
        out.push(this.root(field.name));
      }
    }
    return out;
  }

  /** Whole table columns of a range, with the row it starts at (the header or the first data row). */
  private columnsOf(arg: Formula | undefined): Column[] | undefined {
    if (!this.rowMode || arg === undefined) return undefined;
    const r = this.resolveArg(arg);
    if (r.kind !== 'range' || r.from.row === 0) return undefined;
    return this.wholeColumns(r)?.map((c) => ({ ...c, fromRow: r.from.row }));
  }

  /**
   * The indexed row of `key` in column `col` (an object `{i, r}`: position from 1 and the row), or
   * no value when the key is not there; the caller binds it to a fresh variable. With `wild` (MATCH
   * 0, VLOOKUP FALSE: not XLOOKUP's exact mode), a text key holding wildcards scans the column for
   * the first text it matches instead (xl_wfind), since the index holds whole keys.
   */
  private indexed(key: Formula, col: Column, wild: boolean): string {
    this.depend(col.field);
    const index = this.lib.index(col.table.name, col.field.name, this.scope.taken);
    const k = this.fresh();
    const byIndex = (x: string): string =>
      `(${k} := ${this.helper('xl_key')}(${x}); ${k} = "x" ? $nothing : $lookup(${built(index)}, ${k}))`;
    if (!wild) return byIndex(this.compile(key).code);
    const [x, w] = [this.fresh(), this.fresh()];
    const rows = this.root(col.table.name);
    return (
      `(${x} := ${this.compile(key).code}; ${w} := ${this.helper('xl_wild')}(${x}); $exists(${w}) ? ` +
      `${this.helper('xl_wfind')}(${rows}, ${JSON.stringify(col.field.name)}, ${w}) : ${byIndex(x)})`
    );
  }

  /** The position a MATCH of the header row counts from: 1 past the header when the range includes it. */
  private static offset(col: Column): number {
    return col.fromRow < col.table.firstRow ? 1 : 0;
  }

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
        `(${m} := ${this.indexed(args[0]!, cols[0]!, true)}; ${m}.i + ${LookupCompiler.offset(cols[0]!)})`,
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
