/**
 * convert_spreadsheet: an uploaded .xlsx (base64) → a verified ModelSpec, or a structured refusal.
 * Nothing is registered; the caller reviews the spec and creates the model itself. Servers run the
 * conversion in a worker thread (sheet-workers.ts); this module is the conversion itself.
 */
import {
  internalFailure,
  modelIdFromFilename,
  type ConvertSpreadsheetResult,
  type SpreadsheetRequest,
} from './sheet-result.js';
import {
  convertWorkbook,
  DEFAULT_LIMITS,
  type ConvertOptions,
  type ConvertProgress,
  SheetError,
  type SheetLimits,
} from '../sheet/index.js';

export interface ConvertSpreadsheetArgs {
  /** The workbook's bytes, base64-encoded. */
  data: unknown;
  filename?: unknown;
  modelId?: unknown;
}

const MODEL_ID = /^(?:[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)*\/)?[A-Za-z][A-Za-z0-9_-]*$/;

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

export {
  internalFailure,
  modelIdFromFilename,
  SHEET_SERVICE_REASONS,
  type ConvertSpreadsheetResult,
  type SheetServiceReason,
  type SpreadsheetRequest,
} from './sheet-result.js';

/** Converts workbook bytes in this thread; never throws. */
export async function convertSpreadsheetBytes(
  bytes: Uint8Array,
  filename: string,
  modelId: string | undefined,
  limits: SheetLimits = DEFAULT_LIMITS,
  log?: (message: string) => void,
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
