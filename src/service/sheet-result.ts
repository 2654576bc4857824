/**
 * What a spreadsheet conversion answers, and the helpers around it that need no converter: the
 * thread that only starts a conversion's worker (a server, `calc from-xlsx`) imports this module,
 * not the compiler and the calc engine, which load in the worker alone.
 */
import type { ModelSpec } from '../calc/index.js';
import type { ConversionReport, RejectedColumn, RejectionReason, SheetErrorCode } from '../sheet/index.js';

/** Refusals of the service around the compiler (the compiler's own: SheetErrorCode, RejectionReason). */
export const SHEET_SERVICE_REASONS = [
  'INVALID_ARGUMENT',
  'BUSY',
  'RESOURCE_LIMIT',
  'TIME_LIMIT',
  'CANCELLED',
  'INTERNAL_ERROR',
] as const;
export type SheetServiceReason = (typeof SHEET_SERVICE_REASONS)[number];

export type ConvertSpreadsheetResult =
  | { valid: true; spec: ModelSpec; rejectedColumns: RejectedColumn[]; report: ConversionReport }
  | {
      valid: false;
      reason: SheetErrorCode | RejectionReason | SheetServiceReason;
      error: string;
      rejectedColumns?: RejectedColumn[];
      /** When the workbook was read but nothing compiled: what was found and why it was rejected. */
      report?: ConversionReport;
    };

/** A decoded request: the workbook's bytes and the names to give the spec. */
export interface SpreadsheetRequest {
  bytes: Uint8Array;
  filename: string;
  modelId: string;
}

/** A model id from a file name: `Q3 budget.xlsx` → `Q3-budget`. */
export function modelIdFromFilename(filename: string): string {
  const base = filename.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  const id = base.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[^A-Za-z]+|-+$/g, '');
  return id === '' ? 'spreadsheet' : id;
}

/** What a failure the compiler did not foresee becomes: our words for the caller, the details for the log. */
export function internalFailure(
  err: unknown,
  log: (message: string) => void = defaultLog,
): ConvertSpreadsheetResult {
  log(
    `convert_spreadsheet failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );
  return {
    valid: false,
    reason: 'INTERNAL_ERROR',
    error:
      'the converter failed on this workbook in a way it does not expect (a bug on our side; the details are in the server log)',
  };
}

const defaultLog = (message: string): void => {
  process.stderr.write(`modelworks: ${message}\n`);
};
