/** What the reader makes of an .xlsx (xlsx.ts): workbooks, sheets, cells and their formulas. */
import type { ExternalSource } from './external.js';
import type { DefinedName, ExcelTable } from './workbook-parts.js';

export type CellValue = number | string | boolean | { error: string } | null;

/** A rewrite of a sheet's cells as read (readWorkbookParts' `rewriteCells`). */
export type CellRewrite = (cells: Map<string, SheetCell>) => void;

export interface FormulaInfo {
  /** Formula text without the leading `=`; absent on a shared-formula follower. */
  text?: string;
  /** Shared-formula group id (`si`), when the formula is shared. */
  shared?: string;
  /** A legacy array (CSE) formula. */
  array: boolean;
  /**
   * A cell inside an array formula's result range other than its anchor (a legacy multi-cell
   * array, or an Excel 365 spill): it holds the anchor's result, not a constant (its anchor's
   * address).
   */
  spillOf?: string;
  /** The anchor's result range (`D2:D10`), on an array formula spanning more than its cell. */
  spill?: string;
  /** Excel 365's dynamic array (the cell carries `cm=`, its metadata): a spill, not a legacy array. */
  dynamic?: boolean;
  /**
   * Set by the compiler's resolver (never read by the grid evaluator): the cell is compiled as its
   * element of an element-wise array formula (elementwise.ts), a plain formula.
   */
  elementwise?: boolean;
}

export interface SheetCell {
  row: number;
  col: number;
  /** The constant, or for a formula cell the value the workbook stored as its result. */
  value: CellValue;
  formula?: FormulaInfo;
  /** The cell's number format code (`0.00%`), when its style names one other than General. */
  format?: string;
}

export interface Worksheet {
  name: string;
  sheetNames: string[];
  cells: Map<string, SheetCell>;
  maxRow: number;
  maxCol: number;
  /** The sheet's Excel Tables (from its table parts). */
  tables: ExcelTable[];
  /** Rows hidden (`<row hidden="1">`: by hand or by a filter), which SUBTOTAL may skip. */
  hiddenRows?: Set<number>;
  /**
   * A sheet past the row, column, cell or used-range budget: not read (no cells, no tables), its formula cells
   * counted so that the report names them; the workbook's other sheets still convert.
   */
  tooLarge?: { message: string; formulaCells: number };
  /**
   * A sheet of another workbook a formula links to (`[1]WACC`, external.ts): the values this file
   * cached for it, no formulas; its cells a formula reads are inputs. Listed after the file's own.
   */
  external?: ExternalSource;
  /**
   * The clock sheet (volatile.ts): TODAY() and NOW() as inputs, holding what they gave when the
   * workbook was last computed, and how that was found. Listed after every other sheet.
   */
  clock?: ClockSource;
  /** On the workbook's own sheets: the volatile calls read from the clock sheet (`TODAY`, `NOW`). */
  clockCalls?: ReadonlyMap<string, { row: number }>;
}

/** Where the clock sheet's values come from, for the spec's descriptions. */
export interface ClockSource {
  /** Per clock cell row: how its value was found, in words. */
  found: ReadonlyMap<number, string>;
}

/** A sheet of the workbook itself, not a linked workbook's cached values nor the clock. */
export const isOwnSheet = (s: Worksheet): boolean => !s.external && !s.clock;

export interface Workbook {
  sheets: Worksheet[];
  names: DefinedName[];
  /** When the file was last saved (`docProps/core.xml`'s `dcterms:modified`, ISO 8601 UTC), if it says. */
  savedAt?: string;
  /** The workbook counts dates from 1904 (`<workbookPr date1904="1"/>`), not 1900. */
  date1904?: boolean;
  /** The program that wrote it (`docProps/app.xml`'s `Application`: `Microsoft Excel`), if it says. */
  writer?: string;
}
