/**
 * The synth service's error type. `code` is stable and maps to an HTTP status (the Service) or an
 * MCP error result (the tools); `details` carries structured extras such as a validation report.
 */
export type SynthServiceErrorCode =
  | 'BAD_REQUEST' // malformed arguments (count, seed, offset, format...)
  | 'MODEL_INVALID' // the model text does not parse, load or validate
  | 'MODEL_NOT_FOUND' // unknown or evicted m-… registration
  | 'GENERATION_NOT_FOUND' // unknown or evicted g-…/e-… generation
  | 'COMPONENT_NOT_FOUND' // list_components by an unknown name
  | 'TOO_LARGE' // over a size cap (bytes, rows, model text)
  | 'BUSY' // the worker queue is full, or too many registrations
  | 'CANCELLED' // the caller went away mid-run
  | 'GENERATION_FAILED' // the engine failed while generating (e.g. Truncate ran out of attempts)
  | 'CONFIG' // a malformed setting (allowlists file, ...)
  | 'INTERNAL'; // a fault of ours; the message is generic, the detail is in the server log

const STATUS: Record<SynthServiceErrorCode, number> = {
  BAD_REQUEST: 400,
  MODEL_INVALID: 400,
  MODEL_NOT_FOUND: 404,
  GENERATION_NOT_FOUND: 404,
  COMPONENT_NOT_FOUND: 404,
  TOO_LARGE: 413,
  BUSY: 503,
  CANCELLED: 499,
  GENERATION_FAILED: 422,
  CONFIG: 500,
  INTERNAL: 500,
};

export class SynthServiceError extends Error {
  readonly code: SynthServiceErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: SynthServiceErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SynthServiceError';
    this.code = code;
    this.details = details;
  }

  /** The HTTP status the Service answers with. */
  get status(): number {
    return STATUS[this.code];
  }
}
