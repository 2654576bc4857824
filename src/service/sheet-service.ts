/**
 * convert_spreadsheet: an uploaded .xlsx (base64) → a verified ModelSpec, or a structured refusal.
 * Nothing is registered; the caller reviews the spec and creates the model itself.
 */
import type { ModelSpec } from '../calc/index.js';
import {
  convertWorkbook,
  DEFAULT_LIMITS,
  SheetError,
  type RejectedColumn,
  type RejectionReason,
  type SheetErrorCode,
  type SheetLimits,
} from '../sheet/index.js';

export interface ConvertSpreadsheetArgs {
  /** The workbook's bytes, base64-encoded. */
  data: unknown;
  filename?: unknown;
  modelId?: unknown;
}

export type ConvertSpreadsheetResult =
  | { valid: true; spec: ModelSpec; rejectedColumns: RejectedColumn[] }
  | {
      valid: false;
      reason: SheetErrorCode | RejectionReason | 'INVALID_ARGUMENT';
      error: string;
      rejectedColumns?: RejectedColumn[];
    };

const MODEL_ID = /^(?:[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*\/)?[A-Za-z][A-Za-z0-9_-]*$/;

/** A model id from a file name: `Q3 budget.xlsx` → `Q3-budget`. */
export function modelIdFromFilename(filename: string): string {
  const base = filename.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '');
  const id = base.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[^A-Za-z]+|-+$/g, '');
  return id === '' ? 'spreadsheet' : id;
}

const invalid = (error: string): ConvertSpreadsheetResult => ({
  valid: false,
  reason: 'INVALID_ARGUMENT',
  error,
});

/** Converts workbook bytes; never throws for bad input. */
export async function convertSpreadsheetBytes(
  bytes: Uint8Array,
  filename: string,
  modelId: string | undefined,
  limits: SheetLimits = DEFAULT_LIMITS,
): Promise<ConvertSpreadsheetResult> {
  const id = modelId ?? modelIdFromFilename(filename);
  if (!MODEL_ID.test(id)) {
    return invalid(
      `modelId '${id}' is not a model id ([namespace/]name, each part a letter then letters, digits, _ or -)`,
    );
  }
  try {
    const result = await convertWorkbook(bytes, { modelId: id, filename, limits });
    if (result.formulaFields > 0 && result.compiledFields === 0) {
      const first =
        result.rejectedColumns.find((r) => r.reason !== 'DEPENDS_ON_REJECTED') ?? result.rejectedColumns[0]!;
      return {
        valid: false,
        reason: first.reason,
        error: `every formula column was rejected; the first: ${first.column} (${first.address}): ${first.message}`,
        rejectedColumns: result.rejectedColumns,
      };
    }
    return { valid: true, spec: result.spec, rejectedColumns: result.rejectedColumns };
  } catch (err) {
    if (err instanceof SheetError) return { valid: false, reason: err.code, error: err.message };
    return {
      valid: false,
      reason: 'PARSE_FAILED',
      error: `the workbook could not be read: ${(err as Error).message}`,
    };
  }
}

/** The tool's operation: validates the arguments, decodes base64 within the size limit, converts. */
export async function convertSpreadsheet(
  args: ConvertSpreadsheetArgs,
  limits: SheetLimits = DEFAULT_LIMITS,
): Promise<ConvertSpreadsheetResult> {
  if (typeof args.data !== 'string') return invalid('data must be the workbook as a base64 string');
  if (args.filename !== undefined && typeof args.filename !== 'string')
    return invalid('filename must be a string');
  if (args.modelId !== undefined && typeof args.modelId !== 'string')
    return invalid('modelId must be a string');
  const filename = args.filename ?? 'workbook.xlsx';
  const data = args.data.replace(/\s+/g, '');
  // refuse before decoding: 4 base64 characters carry 3 bytes
  const approxBytes = Math.floor((data.length * 3) / 4);
  if (approxBytes > limits.maxFileBytes + 2) {
    return {
      valid: false,
      reason: 'FILE_TOO_LARGE',
      error: `the file has about ${approxBytes} bytes; the limit is ${limits.maxFileBytes} bytes`,
    };
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 === 1) {
    return invalid('data is not valid base64');
  }
  const bytes = new Uint8Array(Buffer.from(data, 'base64'));
  return convertSpreadsheetBytes(bytes, filename, args.modelId, limits);
}
