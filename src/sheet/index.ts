/** The spreadsheet compiler's public API: .xlsx bytes in, a verified ModelSpec out. */
export {
  convertWorkbook,
  type ConvertOptions,
  type ConvertProgress,
  type RejectedColumn,
  type SheetConversion,
  type ValueType,
} from './compile.js';
export {
  DEFAULT_LIMITS,
  REJECTION_REASONS,
  SHEET_ERROR_CODES,
  SheetError,
  type RejectionReason,
  type SheetErrorCode,
  type SheetLimits,
} from './errors.js';
export type { ConversionReport, RejectionExample, RejectionGroup, SheetReport } from './report.js';
export { parseFormula, printFormula, type Formula } from './formula.js';
export { readWorkbook, type Worksheet } from './xlsx.js';
