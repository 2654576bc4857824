/**
 * Aggregate arguments → lists of JSONata items (SUM, AVERAGE, MIN, MAX, COUNT and the like): a
 * whole table column, part of one, the formula's own row, a block of cells outside the tables
 * read cell by cell, or, in a column formula, a block that moves with the row, chosen by row.
 */
import { outsideRowBlocks } from './outside-rows.js';
import { Rejection } from './errors.js';
import type { Field, TableModel } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { columnPart } from './offsets.js';
import { isLoose } from './loose.js';
import { usedPartItems } from './used-part.js';
import type { Worksheet } from './xlsx.js';
import { ReferenceCompiler } from './references.js';

type RangeFormula = Formula & { kind: 'range' };

/** Side-cell blocks up to this size are read cell by cell (`SUM(B3:B8)` of a form). */
export const MAX_SIDE_RANGE = 200;

export abstract class AggregateCompiler extends ReferenceCompiler {
  /** The table the first cell of a range lies in (its data or header rows), or undefined. */
  protected tableOf(f: RangeFormula): TableModel | undefined {
    const sheet = this.scope.sheet(f.sheet, this.field.sheet);
    return sheet && this.scope.tableAt(sheet, f.from.row, f.from.col);
  }

  /** Part of a column as aggregate items, numbers only where the column may hold others. */
  private partList(field: Field, list: string): string[] {
    this.depend(field);
    if (field.type === 'number') return [list];
    if (field.type === 'any') return [`${this.helper('xl_nums')}(${list})`];
    return [];
  }

  /** Items of an aggregate argument: JSONata expressions that each give a number or a list. */
  protected items(arg: Formula, fn: string): string[] {
    const resolved = this.resolveArg(arg);
    if (resolved.kind !== 'range') {
      const c = this.compile(resolved);
      return [fn === 'COUNT' ? c.code : this.num(c)];
    }
    const part = columnPart(this.field, resolved, this.tableOf(resolved), (n) => this.root(n));
    if (part) return this.partList(part.field, part.list);
    // the own row first: in a table of one row, `E8:H8` is also every row of columns E to H
    const ownRow = this.ownRowSpan(resolved);
    if (ownRow) return ownRow;
    const columns = this.wholeColumns(resolved);
    if (columns) return columns.flatMap((c) => this.columnList(c.table, c.field));
    const sheet = this.scope.sheet(resolved.sheet, this.field.sheet);
    const used =
      sheet &&
      usedPartItems(resolved, sheet, this.scope.tables, {
        rowMode: this.rowMode,
        maxCells: MAX_SIDE_RANGE,
        columnList: (t, field) => this.columnList(t, field),
        cellByCell: (g) => this.sideBlock(g, fn),
      });
    return used ?? this.sideBlock(resolved, fn);
  }

  /** A span of the formula's own row (`SUM(B2:D2)`), or undefined. */
  private ownRowSpan(f: RangeFormula): string[] | undefined {
    const { from, to } = f;
    const own = this.field.table;
    if (!this.rowMode || !own || this.scope.sheet(f.sheet, this.field.sheet) !== own.sheet) return undefined;
    if (from.row !== to.row || from.row !== this.field.row || from.rowAbs || to.rowAbs) return undefined;
    if (from.col < own.left || to.col > own.right || from.col > to.col) return undefined;
    for (let c = from.col; c <= to.col; c++) if (isLoose(own, c)) return undefined;
    const out: string[] = [];
    for (let c = from.col; c <= to.col; c++) {
      const field = own.byCol.get(c)!;
      this.depend(field);
      if (field.type === 'number') out.push(`${this.rowVar}.${field.name}`);
      else if (field.type === 'any') out.push(`${this.helper('xl_nums')}(${this.rowVar}.${field.name})`);
    }
    return out;
  }

  /** A block of cells outside the tables, read cell by cell (blank cells skipped, as Excel does). */
  private sideBlock(f: RangeFormula, fn: string): string[] {
    const sheet = this.sheetOf(f.sheet, `the range ${printFormula(f)}`);
    const { from, to } = f;
    const size = (to.row - from.row + 1) * (to.col - from.col + 1);
    const touchesTable = (): TableModel | undefined => {
      for (let r = from.row; r <= to.row; r++) {
        for (let c = from.col; c <= to.col; c++) {
          const t = this.scope.tableAt(sheet, r, c);
          if (t) return t;
        }
      }
      return undefined;
    };
    if (from.row === 0 || to.row < from.row || to.col < from.col || size > MAX_SIDE_RANGE) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the range ${printFormula(f)} is neither a whole table column, a span of the formula's own row, nor a block of at most ${MAX_SIDE_RANGE} cells outside the tables`,
      );
    }
    const table = touchesTable();
    if (table && this.rowMode && !(from.rowAbs && to.rowAbs)) {
      throw new Rejection(
        'CROSS_ROW_REFERENCE',
        `the range ${printFormula(f)} covers part of table '${table.title}'; only whole columns or the formula's own row can be read`,
      );
    }
    if (this.rowMode && !(from.rowAbs && to.rowAbs)) {
      // each row reads its own block outside the tables: a choice by row (outside-rows.ts)
      const byRow = outsideRowBlocks(
        this.field,
        from,
        to,
        (top, bottom) => !this.blockTouchesTable(sheet, top, bottom, from.col, to.col),
        (top, bottom) => this.blockItems(sheet, { ...from, row: top }, { ...to, row: bottom }, fn),
      );
      if (byRow !== undefined) return [byRow];
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the range ${printFormula(f)} moves with the row; a column formula must read cells outside the tables $-locked`,
      );
    }
    return this.blockItems(sheet, from, to, fn);
  }

  private blockTouchesTable(
    sheet: Worksheet,
    top: number,
    bottom: number,
    left: number,
    right: number,
  ): boolean {
    for (let r = top; r <= bottom; r++)
      for (let c = left; c <= right; c++) if (this.scope.tableAt(sheet, r, c)) return true;
    return false;
  }

  /** The cells of a block as aggregate items, row by row. */
  private blockItems(sheet: Worksheet, from: CellRef, to: CellRef, fn: string): string[] {
    const out: string[] = [];
    for (let r = from.row; r <= to.row; r++) {
      for (let c = from.col; c <= to.col; c++) {
        const cell = sheet.cells.get(`${r}:${c}`);
        const target = this.scope.target(sheet, r, c);
        // a table's cell is read even when blank (its row may be filled in); COUNT skips blanks.
        // SUM reads a blank side cell too, as an input: another formula may read it, so it may be
        // edited, and a blank adds nothing to a sum (to an average or a minimum it would)
        const blank = !cell || (cell.value === null && !cell.formula);
        const readBlank = target.kind === 'data' ? fn !== 'COUNT' : fn === 'SUM' && target.kind === 'side';
        if (target.kind === 'header' || (blank && !readBlank)) continue;
        const read =
          target.kind === 'data'
            ? this.tableCell(target.table, target.field, r)
            : this.sideCell(target.kind === 'formula' ? target.field : this.scope.sideInput(sheet, r, c));
        if (read.type === 'number' || fn === 'COUNT') out.push(read.code);
        else if (read.type === 'any') out.push(`${this.helper('xl_nums')}(${read.code})`);
      }
    }
    return out;
  }
}
