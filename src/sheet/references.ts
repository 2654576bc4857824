/**
 * References → JSONata. A cell of the formula's own row is `$parent.<field>`; a whole table column
 * is `<table>.<field>`; a formula cell or side cell outside the tables is a top-level field. From a
 * row formula every top-level read is `$$`-rooted, so it means the same in any scope.
 */
import { outsideRowRead, spillRowRead, type RowReads } from './outside-rows.js';
import { Rejection } from './errors.js';
import type { Field, TableModel, ValueType } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { otherRowRead } from './offsets.js';
import type { StructuredRef } from './structured.js';
import type { HelperName, LibraryBuilder } from './library.js';
import { isLoose } from './loose.js';
import type { WorkbookScope } from './scope.js';
import { cellName, columnLetter, type Worksheet } from './xlsx.js';

export interface Compiled {
  code: string;
  type: ValueType;
  /** A dynamic array's result (spill.ts): a list, read whole by aggregates and lookups. */
  array?: boolean;
}

type RangeFormula = Formula & { kind: 'range' };

/** Defined names that name names: deeper than this is taken for a loop. */
const MAX_NAME_DEPTH = 16;

export abstract class ReferenceCompiler {
  private nameDepth = 0;
  /** Set when compiling inside a fold (recurrence.ts): its columns, and the current row's variable. */
  foldMembers?: Set<Field>;
  rowVar = '$parent';

  constructor(
    protected readonly scope: WorkbookScope,
    protected readonly field: Field,
    protected readonly lib: LibraryBuilder,
  ) {}

  abstract compile(f: Formula): Compiled;

  protected get rowMode(): boolean {
    return this.field.kind === 'column';
  }

  protected helper(name: HelperName): string {
    return this.lib.use(name);
  }

  /** A top-level field or table as this formula reads it. */
  protected root(name: string): string {
    return this.rowMode ? `$$.${name}` : name;
  }

  protected depend(target: Field): void {
    if (target === this.field) {
      throw new Rejection(
        'CIRCULAR_REFERENCE',
        `the formula reads its own ${this.field.kind === 'column' ? 'column' : 'cell'}`,
      );
    }
    this.field.deps.add(target);
  }

  protected sheetOf(name: string | undefined, what: string): Worksheet {
    const sheet = this.scope.sheet(name, this.field.sheet);
    if (!sheet) {
      throw new Rejection(
        'CROSS_SHEET_REFERENCE',
        `${what} reads sheet '${name}', which is not in this workbook (a link to another file, or a deleted sheet)`,
      );
    }
    if (sheet.tooLarge) {
      throw new Rejection(
        'SHEET_TOO_LARGE',
        `${what} reads sheet '${sheet.name}', which was left out: ${sheet.tooLarge.message}`,
      );
    }
    return sheet;
  }

  /** A defined name, table name or structured reference, compiled as what it stands for. */
  protected named(f: Formula, use: (f: Formula) => Compiled): Compiled {
    if (++this.nameDepth > MAX_NAME_DEPTH) {
      throw new Rejection(
        'CIRCULAR_REFERENCE',
        `the defined name '${printFormula(f)}' refers back to itself`,
      );
    }
    try {
      return use(this.resolveArg(f));
    } finally {
      this.nameDepth--;
    }
  }

  /** A formula argument with a name or structured reference replaced by what it stands for. */
  protected resolveArg(f: Formula): Formula {
    if (f.kind === 'structured') return this.structured(f);
    if (f.kind !== 'name') return f;
    const table = this.scope.excelTable(f.name);
    if (table) return this.structured({ kind: 'structured', table: f.name, area: 'data', text: f.name });
    return this.scope.definedName(f.name, this.field.sheet);
  }

  /** A structured reference as the cell or range it covers (absolute, on the table's sheet). */
  private structured(f: StructuredRef): Formula {
    const { field } = this;
    const around = field.table ?? this.scope.tableAround(field.sheet, field.row, field.col);
    const table = f.table === undefined ? around : this.scope.excelTable(f.table);
    if (!table) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `${f.text} names '${f.table ?? ''}', which is not a table of the workbook`,
      );
    }
    const left = f.from === undefined ? table.left : this.tableColumn(table, f.from, f.text);
    const right = f.to === undefined ? table.right : this.tableColumn(table, f.to, f.text);
    let top: number;
    let bottom: number;
    switch (f.area) {
      case 'thisRow':
        // a cell of a loose column reads its own row of its table as single cells; from outside
        // the table, Excel reads the table's cell in the formula's own row (implicit intersection)
        if (table !== (this.rowMode ? field.table : around)) this.rowOfOtherTable(table, f);
        top = bottom = this.field.row;
        break;
      case 'totals':
        if (table.totalsRow === undefined) {
          throw new Rejection('UNSUPPORTED_REFERENCE', `${f.text}: table '${table.title}' has no totals row`);
        }
        top = bottom = table.totalsRow;
        break;
      case 'headers':
        top = bottom = table.headerRow;
        break;
      case 'all':
        top = table.headerRow || table.firstRow;
        bottom = table.totalsRow ?? table.lastRow;
        break;
      default:
        top = table.firstRow;
        bottom = table.lastRow;
    }
    // a column formula's own row moves with the row; one cell's is that cell's row
    const abs = f.area !== 'thisRow' || !this.rowMode;
    const cell = (row: number, col: number): CellRef => ({ row, col, rowAbs: abs, colAbs: true });
    const sheet = table.sheet.name;
    if (top === bottom && left === right) return { kind: 'ref', sheet, ref: cell(top, left) };
    return { kind: 'range', sheet, from: cell(top, left), to: cell(bottom, right) };
  }

  /**
   * `Tbl[[#This Row],[Col]]` (`Tbl[@Col]`) from outside table `Tbl`: the cell of its column in the
   * formula's own row, which must be a data row of `Tbl` (every row of a column formula's table);
   * in another row a spreadsheet gives #VALUE!.
   */
  private rowOfOtherTable(table: TableModel, f: StructuredRef): void {
    const own = this.rowMode ? this.field.table : undefined;
    const [first, last] = own ? [own.firstRow, own.lastRow] : [this.field.row, this.field.row];
    if (first < table.firstRow || last > table.lastRow) {
      const rows = first === last ? `row ${first}` : `rows ${first} to ${last}`;
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `${f.text} reads table '${table.title}' in the formula's own ${rows}, outside its data rows ${table.firstRow} to ${table.lastRow} (a spreadsheet gives #VALUE!)`,
      );
    }
  }

  private tableColumn(table: TableModel, name: string, text: string): number {
    const names: string[] = [];
    for (let c = table.left; c <= table.right; c++)
      names.push(table.excel?.columns[c - table.left] ?? table.byCol.get(c)!.title);
    // Excel compares names without case; spaces and line breaks count (`Amount ` is not `Amount`)
    const exact = names.findIndex((own) => own.toLowerCase() === name.toLowerCase());
    if (exact >= 0) return table.left + exact;
    // a name that differs only in its spacing (a header found without a table part is trimmed),
    // when one column alone has it
    const loose = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
    const near = names.flatMap((own, i) => (loose(own) === loose(name) ? [i] : []));
    if (near.length === 1) return table.left + near[0]!;
    throw new Rejection('UNSUPPORTED_REFERENCE', `${text}: table '${table.title}' has no column '${name}'`);
  }

  private where(sheet: Worksheet, row: number, col: number): string {
    return sheet === this.field.sheet ? cellName(row, col) : `${sheet.name}!${cellName(row, col)}`;
  }

  protected ref(ref: CellRef, sheetName: string | undefined): Compiled {
    const sheet = this.sheetOf(sheetName, `the reference ${cellName(ref.row, ref.col)}`);
    const where = this.where(sheet, ref.row, ref.col);
    const target = this.scope.target(sheet, ref.row, ref.col);
    switch (target.kind) {
      case 'formula':
      case 'side': {
        if (this.rowMode && !ref.rowAbs) {
          const reads: RowReads = {
            depend: (f) => this.depend(f),
            root: (n) => this.root(n),
            helper: (n) => this.helper(n),
          };
          const moving =
            (target.kind === 'formula' ? spillRowRead(this.field, target.field, ref, reads) : undefined) ??
            outsideRowRead(this.scope, this.field, sheet, ref, reads);
          if (moving) return moving;
          throw new Rejection(
            'UNSUPPORTED_REFERENCE',
            `${where} is a cell outside the tables; a column formula must read it $-locked ($${columnLetter(ref.col)}$${ref.row})`,
          );
        }
        const field =
          target.kind === 'formula' ? target.field : this.scope.sideInput(sheet, ref.row, ref.col);
        this.depend(field);
        return { code: this.root(field.name), type: field.type };
      }
      case 'header':
        // the row above a column formula's first row (`=IF(A2="m1",0,B1)`) is read by position
        if (this.rowMode && !ref.rowAbs && target.table.firstRow > target.table.headerRow) {
          return this.dataCell(target.table, target.table.byCol.get(ref.col)!, ref, where);
        }
        // one cell's read of a header cell is the constant it holds, a side input (a block of
        // labels beside values read as a table: `Payment Frequency | Monthly` taken for its header)
        if (!this.rowMode || ref.rowAbs) return this.sideCell(this.scope.sideInput(sheet, ref.row, ref.col));
        throw new Rejection('UNSUPPORTED_REFERENCE', `${where} is the header row of a table`);
      case 'data':
        return this.dataCell(target.table, target.field, ref, where);
    }
  }

  /** A cell inside a table: the formula's own row is `$parent`, any other row is read by position. */
  private dataCell(table: TableModel, target: Field, ref: CellRef, where: string): Compiled {
    const own = this.field.table;
    const sameRow =
      this.rowMode &&
      table === own &&
      ref.row === this.field.row &&
      (!ref.rowAbs || own.lastRow === own.firstRow);
    if (!sameRow) {
      if (this.recurrent(table, target, ref)) return this.backRead(table, target, ref, where);
      const read = otherRowRead(this.field, table, target, ref, where, (n) => this.root(n));
      this.depend(target);
      return read;
    }
    this.depend(target);
    return { code: `${this.rowVar}.${target.name}`, type: target.type };
  }

  /**
   * Whether a read of another row may be part of a recurrence: a computed column of the own table,
   * or of a table beside it with the same rows, in an earlier row (or, in a fold, the same row).
   */
  private recurrent(table: TableModel, target: Field, ref: CellRef): boolean {
    const own = this.field.table;
    if (!this.rowMode || !own || ref.rowAbs || target.kind !== 'column') return false;
    if (table.sheet !== own.sheet || table.firstRow !== own.firstRow || table.lastRow !== own.lastRow)
      return false;
    return ref.row < this.field.row || (ref.row === this.field.row && !!this.foldMembers?.has(target));
  }

  /**
   * An earlier row of a computed column of the own table (or one beside it). Outside a fold it is noted as a possible
   * recurrence (not a dependency, so that a cycle through it is not circular); inside one, a
   * column of the fold reads the rows the fold built so far (`$acc`).
   */
  private backRead(table: TableModel, target: Field, ref: CellRef, where: string): Compiled {
    const inFold = this.foldMembers?.has(target);
    if (inFold && ref.row === this.field.row)
      return { code: `$r_${table.name}.${target.name}`, type: target.type };
    const root = (n: string): string => (inFold && n === table.name ? `($acc.${table.name})` : this.root(n));
    if (inFold) {
      // the row k rows up is `$acc[-k]`: a literal index, which JSONata reads directly
      const k = this.field.row - ref.row;
      const edge = otherRowRead(this.field, table, target, ref, where, root, true);
      return {
        code: `($index >= ${k} ? $acc[-${k}].${table.name}.${target.name} : ${edge.code})`,
        type: edge.type,
      };
    }
    if (!this.foldMembers) {
      (this.field.back ??= new Set()).add(target);
      if (target === this.field) return { code: 'null', type: target.type };
    } else if (!inFold) this.depend(target);
    return otherRowRead(this.field, table, target, ref, where, root, true);
  }

  /** The array of the spill `_xlfn.ANCHORARRAY(K3)` (`K3#`) reads, or undefined for any other argument. */
  protected spillArrayOf(f: Formula): Compiled | undefined {
    if (f.kind !== 'call' || f.name !== 'ANCHORARRAY' || f.args.length !== 1) return undefined;
    const a = f.args[0]!;
    if (a.kind !== 'ref') return undefined;
    const sheet = this.sheetOf(a.sheet, `the spill ${printFormula(a)}#`);
    const array = this.scope.spillAt(sheet, a.ref.row, a.ref.col);
    if (!array) return undefined;
    this.depend(array);
    return { code: this.root(array.name), type: 'any', array: true };
  }

  protected sideCell(field: Field): Compiled {
    this.depend(field);
    return { code: this.root(field.name), type: field.type };
  }

  /** One row's field of a table, read from anywhere: `$$.<table>[<i>].<field>`. */
  protected tableCell(table: TableModel, target: Field, row: number): Compiled {
    this.depend(target);
    return { code: `${this.root(table.name)}[${row - table.firstRow}].${target.name}`, type: target.type };
  }

  /** A whole table column (`$B$2:$B$N`, `$B:$B`, or with the header), or undefined. */
  protected wholeColumn(f: RangeFormula): { table: TableModel; field: Field } | undefined {
    const { from, to } = f;
    if (from.col !== to.col) return undefined;
    const sheet = this.sheetOf(f.sheet, `the range ${printFormula(f)}`);
    const table = this.scope.tables.find(
      (t) => t.sheet === sheet && from.col >= t.left && from.col <= t.right,
    );
    if (!table || isLoose(table, from.col)) return undefined;
    const top = table.headerRow || table.firstRow;
    const whole =
      (from.row === 0 && to.row === 0) ||
      ((from.row === top || from.row === table.firstRow) && to.row === table.lastRow);
    if (!whole) return undefined;
    if (this.rowMode && !(from.row === 0 || (from.rowAbs && to.rowAbs))) {
      throw new Rejection(
        'CROSS_ROW_REFERENCE',
        `the range ${printFormula(f)} moves with the row; lock it ($${columnLetter(from.col)}$${from.row}:$${columnLetter(to.col)}$${to.row})`,
      );
    }
    return { table, field: table.byCol.get(from.col)! };
  }

  /** Whole columns of one table side by side (`Table1[[Jan]:[Mar]]`, `$B$2:$D$9`), or undefined. */
  protected wholeColumns(f: RangeFormula): { table: TableModel; field: Field }[] | undefined {
    const out: { table: TableModel; field: Field }[] = [];
    for (let col = f.from.col; col <= f.to.col; col++) {
      const one = this.wholeColumn({ ...f, from: { ...f.from, col }, to: { ...f.to, col } });
      if (!one || (out[0] && one.table !== out[0].table)) return undefined;
      out.push(one);
    }
    return out.length > 0 ? out : undefined;
  }

  /** A whole column as a list expression, numbers only where the column may hold others. */
  protected columnList(table: TableModel, field: Field): string[] {
    this.depend(field);
    const list = `${this.root(table.name)}.${field.name}`;
    if (field.type === 'number') return [list];
    if (field.type === 'any') return [`${this.helper('xl_nums')}(${list})`];
    return [];
  }

  protected text(c: Compiled): string {
    if (c.type === 'string') return c.code;
    if (c.type === 'boolean') return `(${c.code} ? "TRUE" : "FALSE")`;
    if (c.type === 'number') return `$string(${c.code})`;
    return `${this.helper('xl_text')}(${c.code})`;
  }

  protected args(name: string, args: Formula[], min: number, max: number): void {
    if (args.length < min || args.length > max) {
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `${name} takes ${min === max ? min : `${min} to ${max}`} arguments, not ${args.length}`,
      );
    }
  }

  protected num(c: Compiled): string {
    if (c.type === 'boolean') return `(${c.code} ? 1 : 0)`;
    if (c.type === 'string') return `$number(${c.code})`;
    return c.code;
  }
}
