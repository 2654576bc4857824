/** Structured errors of the spreadsheet compiler: a whole-file failure has one of these codes. */

export const SHEET_ERROR_CODES = [
  'UNSUPPORTED_FORMAT',
  'FILE_TOO_LARGE',
  'TOO_MANY_ROWS',
  'TOO_MANY_COLUMNS',
  'TOO_MANY_CELLS',
  'USED_RANGE_TOO_LARGE',
  'PARSE_FAILED',
  'NO_TABLE',
] as const;
export type SheetErrorCode = (typeof SHEET_ERROR_CODES)[number];

/** A file the compiler refuses as a whole (as opposed to one rejected column). */
export class SheetError extends Error {
  constructor(
    readonly code: SheetErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SheetError';
  }
}

/** Why one column (or summary cell) was left out of the spec. */
export const REJECTION_REASONS = [
  'UNSUPPORTED_FUNCTION',
  'UNSUPPORTED_SYNTAX',
  'UNSUPPORTED_REFERENCE',
  'APPROXIMATE_VLOOKUP',
  'CROSS_SHEET_REFERENCE',
  'CROSS_ROW_REFERENCE',
  'ARRAY_FORMULA',
  'NON_UNIFORM_FORMULA',
  'CIRCULAR_REFERENCE',
  'ERROR_VALUE',
  'DEPENDS_ON_REJECTED',
  'VALUE_MISMATCH',
  'SHEET_TOO_LARGE',
  'WHAT_IF_MISMATCH',
  'GOOGLE_SHEETS_FUNCTION',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** Thrown while compiling one formula; the column is rejected with this reason. */
export class Rejection extends Error {
  constructor(
    readonly reason: RejectionReason,
    message: string,
  ) {
    super(message);
    this.name = 'Rejection';
  }
}

/** The limits a workbook must stay within. */
export interface SheetLimits {
  /** Bytes of the .xlsx file itself. */
  maxFileBytes: number;
  /** Bytes the parts we read may inflate to, together (zip-bomb guard). */
  maxUncompressedBytes: number;
  /** Data rows of the table (the header row not counted). */
  maxRows: number;
  /** Columns of the worksheet: a cell past this one is refused (Excel's own last column is XFD). */
  maxColumns: number;
  /**
   * Cells of the grid a sheet's used range may span (its last used row times its last used
   * column): what a wide or sparse sheet costs, since finding its tables walks that grid.
   */
  maxUsedRange: number;
  /** Cells the worksheet holds (its `<c>` elements), counted before the sheet is parsed. */
  maxCells: number;
  /**
   * Wall time the whole conversion may take, seconds (a server's MODELWORKS_SHEET_TIME_LIMIT_SECONDS;
   * none for the CLI): the what-if evaluator's budget follows it (grid/limits.ts, gridLimitsFor).
   */
  timeLimitSeconds?: number;
}

export const DEFAULT_LIMITS: SheetLimits = {
  maxFileBytes: 10 * 1024 * 1024,
  maxUncompressedBytes: 100 * 1024 * 1024,
  maxRows: 10_000,
  // Excel's 16,384 (XFD): a monthly model runs 120+ columns wide; the used range bounds the cost
  maxColumns: 16_384,
  // 10,000 rows by 400 columns; a far stray cell (XFD1048576) is refused, unscanned
  maxUsedRange: 4_000_000,
  // above what the row and column limits let through: only a caller's own budget is narrower
  maxCells: 1_200_000,
};
