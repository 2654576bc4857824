/**
 * The synth service's error type. `code` is stable and maps to an HTTP status (the Service) or an
 * MCP error result (the tools); `details` carries structured extras such as a validation report.
 */
import { ERROR_CATALOGUE } from '../errors/catalogue.js';

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

export class SynthServiceError extends Error {
  readonly code: SynthServiceErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: SynthServiceErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'SynthServiceError';
    this.code = code;
    this.details = details;
  }

  /** The HTTP status the Service answers with: the product's one catalogue decides it. */
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}
