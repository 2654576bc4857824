/**
 * What lookups read: ranges as lists (cells above a table first, so a lookup follows the table's
 * rows), whole table columns, and the index of a table column (a top-level derived object from
 * each key to its row, built once per evaluation, see LibraryBuilder.index) that an exact lookup
 * from a row formula reads instead of scanning the column: a thousand rows each looking up in a
 * thousand-row list cost one pass over the list, not a million comparisons.
 */
import { Rejection } from './errors.js';
import type { Field, TableModel } from './fields.js';
import { printFormula, type Formula } from './formula.js';
import { LetCompiler } from './let.js';
import { DYNAMIC_FUNCTIONS } from './spill.js';
import { cellKey, cellName } from './xlsx.js';
import type { JsonValue } from '../calc/index.js';

export type Column = { table: TableModel; field: Field; fromRow: number };

/**
 * A top-level index or grouped aggregate a row reads: always an object once built (`{}` for no
 * rows), so anything else (null: the engine's value of a failed derivation) means its derivation
 * failed (a time limit, say). Reading it as "no such key"
 * would give a row the aggregate's zero (SUMIFS 0) where it has no answer: it fails instead.
 */
export const built = (name: string): string =>
  `($type($$.${name}) = "object" ? $$.${name} : $error("${name} has no value: the derivation that builds it failed"))`;

export abstract class ListCompiler extends LetCompiler {
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
      const above = ListCompiler.above(table, r.from.col, r.from.row === 0 ? 1 : r.from.row);
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
  protected columnsOf(arg: Formula | undefined): Column[] | undefined {
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
  protected indexed(key: Formula, col: Column, wild: boolean): string {
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
  protected static offset(col: Column): number {
    return col.fromRow < col.table.firstRow ? 1 : 0;
  }
}
