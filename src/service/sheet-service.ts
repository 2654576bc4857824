/**
 * convert_spreadsheet: an uploaded .xlsx (base64) → a verified ModelSpec, or a structured refusal.
 * Nothing is registered; the caller reviews the spec and creates the model itself. Servers run the
 * conversion in a worker thread (sheet-workers.ts); this module is the conversion itself.
 */
import type { ModelSpec } from '../calc/index.js';
import {
  convertWorkbook,
  DEFAULT_LIMITS,
  type ConvertOptions,
  type ConvertProgress,
  SheetError,
  type ConversionReport,
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

/** The spec's id: the one asked for, else from the file name; a refusal when it is not a model id. */
function modelIdFor(filename: string, modelId: string | undefined): string | ConvertSpreadsheetResult {
  const id = modelId ?? modelIdFromFilename(filename);
  if (MODEL_ID.test(id)) return id;
  return invalid(
    `modelId '${id}' is not a model id ([namespace/]name, each part a letter then letters, digits, _ or -)`,
  );
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

/** Converts workbook bytes in this thread; never throws. */
export async function convertSpreadsheetBytes(
  bytes: Uint8Array,
  filename: string,
  modelId: string | undefined,
  limits: SheetLimits = DEFAULT_LIMITS,
  log: (message: string) => void = defaultLog,
  /** Told as the conversion goes (the CLI's progress on stderr). */
  onProgress?: (progress: ConvertProgress) => void,
): Promise<ConvertSpreadsheetResult> {
  const id = modelIdFor(filename, modelId);
  if (typeof id !== 'string') return id;
  try {
    const options: ConvertOptions = { modelId: id, filename, limits };
    if (onProgress) options.onProgress = onProgress;
    const result = await convertWorkbook(bytes, options);
    const { report, rejectedColumns } = result;
    if (report.formulaCells > 0 && report.compiledCells === 0) {
      // the most frequent reason (other than a knock-on) names the refusal; its first example says where
      const top = report.rejected.find((g) => g.reason !== 'DEPENDS_ON_REJECTED') ?? report.rejected[0]!;
      const first = top.examples[0]!;
      return {
        valid: false,
        reason: top.reason,
        error: `none of the ${report.formulaCells} formula cells compiled; the most frequent reason, ${top.reason} (${top.count} cells), e.g. ${first.column} (${first.address}): ${first.message}`,
        rejectedColumns,
        report,
      };
    }
    return { valid: true, spec: result.spec, rejectedColumns, report };
  } catch (err) {
    if (err instanceof SheetError) return { valid: false, reason: err.code, error: err.message };
    return internalFailure(err, log);
  }
}

/**
 * The tool's arguments checked and the base64 decoded within the file-size limit (refused from the
 * text's length, before decoding); a refusal when they do not hold up.
 */
export function decodeSpreadsheetArgs(
  args: ConvertSpreadsheetArgs,
  limits: SheetLimits = DEFAULT_LIMITS,
): SpreadsheetRequest | ConvertSpreadsheetResult {
  if (typeof args.data !== 'string') return invalid('data must be the workbook as a base64 string');
  if (args.filename !== undefined && typeof args.filename !== 'string')
    return invalid('filename must be a string');
  if (args.modelId !== undefined && typeof args.modelId !== 'string')
    return invalid('modelId must be a string');
  const filename = args.filename ?? 'workbook.xlsx';
  const modelId = modelIdFor(filename, args.modelId);
  if (typeof modelId !== 'string') return modelId;
  const data = /\s/.test(args.data) ? args.data.replace(/\s+/g, '') : args.data;
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
  return { bytes: new Uint8Array(Buffer.from(data, 'base64')), filename, modelId };
}

/** The tool's operation in this thread: validates the arguments, decodes, converts. */
export async function convertSpreadsheet(
  args: ConvertSpreadsheetArgs,
  limits: SheetLimits = DEFAULT_LIMITS,
): Promise<ConvertSpreadsheetResult> {
  const request = decodeSpreadsheetArgs(args, limits);
  if (!('bytes' in request)) return request;
  return convertSpreadsheetBytes(request.bytes, request.filename, request.modelId, limits);
}
