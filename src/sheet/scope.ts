/**
 * The workbook as formulas see it: which table, formula cell or side cell a reference lands on, the
 * side cells read so far (each a top-level input), and the defined names.
 */
import { Rejection } from './errors.js';
import { BLANK, fieldName, isError, label, typeOf, type Field, type TableModel } from './fields.js';
import { parseFormula, type Formula } from './formula.js';
import { cellKey, cellName, type DefinedName, type Worksheet } from './xlsx.js';
import { clockFunction } from './clock-calls.js';

/** What a cell of the workbook is to a formula. */
export type CellTarget =
  | { kind: 'data'; table: TableModel; field: Field }
  | { kind: 'header'; table: TableModel }
  | { kind: 'formula'; field: Field }
  | { kind: 'side' };

export class WorkbookScope {
  /** Summary fields and side inputs by sheet and cell. */
  private readonly cells = new Map<string, Field>();
  private readonly names = new Map<string, Formula | Rejection>();
  /** Spill anchors' arrays by sheet and cell (spill.ts). */
  private readonly spills = new Map<string, Field>();

  constructor(
    readonly sheets: Worksheet[],
    readonly tables: TableModel[],
    /** Every field; side inputs are appended as formulas read them. */
    readonly fields: Field[],
    /** Top-level names in use (tables, summary cells, side inputs). */
    readonly taken: Set<string>,
    private readonly definedNames: DefinedName[],
  ) {}

  private key(sheet: Worksheet, row: number, col: number): string {
    return `${this.sheets.indexOf(sheet)}:${cellKey(row, col)}`;
  }

  addFormulaCell(field: Field): void {
    // a spill's array stands for no cell: its anchor's cell is its first element (spill.ts)
    if (field.spillArray) this.spills.set(this.key(field.sheet, field.row, field.col), field);
    else this.cells.set(this.key(field.sheet, field.row, field.col), field);
  }

  /** The array of the spill anchored at a cell (spill.ts), if one is compiled there. */
  spillAt(sheet: Worksheet, row: number, col: number): Field | undefined {
    return this.spills.get(this.key(sheet, row, col));
  }

  /** A sheet by the name a reference uses (case-insensitive, as in Excel). */
  sheet(name: string | undefined, from: Worksheet): Worksheet | undefined {
    if (name === undefined) return from;
    const lower = name.toLowerCase();
    return this.sheets.find((s) => s.name.toLowerCase() === lower);
  }

  /** An Excel Table by its name (case-insensitive, as in Excel). */
  excelTable(name: string): TableModel | undefined {
    const lower = name.toLowerCase();
    return this.tables.find((t) => t.excel?.name.toLowerCase() === lower);
  }

  tableAt(sheet: Worksheet, row: number, col: number): TableModel | undefined {
    return this.tables.find(
      (t) =>
        t.sheet === sheet &&
        !t.loose?.has(col) &&
        col >= t.left &&
        col <= t.right &&
        row >= (t.headerRow || t.firstRow) &&
        row <= t.lastRow,
    );
  }

  /** The table whose block holds the cell, loose columns included. */
  tableAround(sheet: Worksheet, row: number, col: number): TableModel | undefined {
    return this.tables.find(
      (t) => t.sheet === sheet && col >= t.left && col <= t.right && row >= t.firstRow && row <= t.lastRow,
    );
  }

  target(sheet: Worksheet, row: number, col: number): CellTarget {
    const formula = this.cells.get(this.key(sheet, row, col));
    if (formula && formula.kind === 'summary') return { kind: 'formula', field: formula };
    const table = this.tableAt(sheet, row, col);
    if (table && row >= table.firstRow) return { kind: 'data', table, field: table.byCol.get(col)! };
    if (table) return { kind: 'header', table };
    return { kind: 'side' };
  }

  /** Whether a formula has already made the side cell an input (see `sideInput`). */
  isSideInput(sheet: Worksheet, row: number, col: number): boolean {
    return this.cells.get(this.key(sheet, row, col))?.kind === 'side';
  }

  /** The top-level input a side cell becomes (made the first time a formula reads it). */
  sideInput(sheet: Worksheet, row: number, col: number): Field {
    const k = this.key(sheet, row, col);
    const seen = this.cells.get(k);
    if (seen) return seen;
    const cell = sheet.cells.get(cellKey(row, col));
    const address = cellName(row, col);
    if (isError(cell?.value)) {
      throw new Rejection(
        'ERROR_VALUE',
        `${sheet.name}!${address}, which the formula reads, holds the error ${cell.value.error}`,
      );
    }
    // a linked workbook's cell (external.ts) is named as linked: `Linked WACC!D22`
    // a clock cell (volatile.ts) is named after its function: `TODAY()`
    const clockFn = sheet.clock ? clockFunction(row) : undefined;
    const title = clockFn
      ? `${clockFn}()`
      : sheet.external
        ? `Linked ${sheet.external.sheet}!${address}`
        : (label(sheet, row, col) ?? `${this.sheets.length > 1 ? `${sheet.name} ` : ''}${address}`);
    const value = cell?.value ?? null;
    const type = value === null ? 'number' : typeOf([value]);
    const field: Field = {
      name: fieldName(title, address, this.taken),
      title,
      address,
      kind: 'side',
      sheet,
      col,
      row,
      type,
      tables: new Set(),
      deps: new Set(),
      formulaCells: 0,
      value: value ?? BLANK[type],
    };
    this.cells.set(k, field);
    this.fields.push(field);
    return field;
  }

  /** Whether `name` is a defined name the sheet sees (its own or the workbook's). */
  hasDefinedName(name: string, from: Worksheet): boolean {
    const index = this.sheets.indexOf(from);
    const lower = name.toLowerCase();
    return this.definedNames.some(
      (d) => (d.sheet === undefined || d.sheet === index) && d.name.toLowerCase() === lower,
    );
  }

  /**
   * A defined name's formula (`TaxRate` → `Inputs!$B$2`), local to the sheet first; a name that
   * is not defined, or whose text cannot be read, is a rejection.
   */
  definedName(name: string, from: Worksheet): Formula {
    const index = this.sheets.indexOf(from);
    const lower = name.toLowerCase();
    const def =
      this.definedNames.find((d) => d.sheet === index && d.name.toLowerCase() === lower) ??
      this.definedNames.find((d) => d.sheet === undefined && d.name.toLowerCase() === lower);
    if (!def) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `'${name}' is neither a defined name nor a table of the workbook`,
      );
    }
    const k = `${def.sheet ?? ''}:${lower}`;
    let parsed = this.names.get(k);
    if (parsed === undefined) {
      try {
        parsed = parseFormula(def.text.replace(/^=/, ''));
      } catch (err) {
        if (!(err instanceof Rejection)) throw err;
        parsed = new Rejection(
          'UNSUPPORTED_REFERENCE',
          `the defined name '${name}' (${def.text}): ${err.message}`,
        );
      }
      this.names.set(k, parsed);
    }
    if (parsed instanceof Rejection) throw parsed;
    return parsed;
  }
}
