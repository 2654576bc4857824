/** Structured errors of the spreadsheet compiler: a whole-file failure has one of these codes. */

export const SHEET_ERROR_CODES = [
  'UNSUPPORTED_FORMAT',
  'FILE_TOO_LARGE',
  'TOO_MANY_ROWS',
  'TOO_MANY_COLUMNS',
  'TOO_MANY_CELLS',
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
  /** Used columns of the worksheet. */
  maxColumns: number;
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
  maxColumns: 100,
  // above what the row and column limits let through: only a caller's own budget is narrower
  maxCells: 1_200_000,
};
