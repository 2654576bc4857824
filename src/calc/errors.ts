/**
 * The calc engine's error catalogue. Codes are stable: never renamed, never reused.
 * Surfaces map them once: REST status, MCP error shape, CLI exit code.
 */
import type { SchemaViolation } from './schema.js';

export const CALC_ERROR_CODES = {
  SPEC_INVALID: { status: 422, summary: 'the spec failed validation or does not compile' },
  TEMPLATE_UNRESOLVED: { status: 422, summary: "a branch's template ref resolves to no stored model" },
  TEMPLATE_CYCLE: { status: 422, summary: 'the template chain meets a model twice' },
  LINK_TARGET_UNRESOLVED: { status: 422, summary: "a link's target is not a stored model" },
  LINK_CYCLE_UNGUARDED: { status: 422, summary: 'a link on a cycle lacks statusPath or dedupeKey' },
  MODEL_NOT_FOUND: { status: 404, summary: 'no model with that id' },
  MODEL_EXISTS: { status: 409, summary: 'a model with that id already exists' },
  PATH_NOT_FOUND: { status: 404, summary: 'nothing at that address' },
  SCHEMA_VIOLATION: { status: 422, summary: 'a written value breaks the effective schema' },
  CONSTRAINT_VIOLATION: { status: 409, summary: 'a rollback constraint refused the cycle' },
  DERIVED_TARGET_WRITE: { status: 400, summary: 'a mutation wrote a derived field' },
  INDEX_LIMIT: { status: 422, summary: 'an array index beyond the limit' },
  INVALID_PATCH: { status: 422, summary: 'a JSON Patch that cannot be applied' },
  INVALID_ARGUMENT: { status: 400, summary: 'a malformed argument' },
  VERSION_CONFLICT: { status: 409, summary: 'expectedVersion or expectedRevision is not the live one' },
  EVOLUTION_INVALID: { status: 422, summary: 'the evolved spec is invalid or strands live values' },
  SNAPSHOT_MODEL_MISMATCH: { status: 409, summary: 'a snapshot of another model (restore refused)' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, summary: 'an idempotency key reused with a different request' },
  HISTORY_NOT_FOUND: { status: 404, summary: 'no history entry at or before that time' },
  VIEW_NOT_FOUND: { status: 404, summary: 'no such view' },
  LIBRARY_NOT_FOUND: { status: 404, summary: 'the model has no library' },
  BUSY: { status: 429, summary: 'too many queued mutations on one model, or too many models' },
  BLOB_TOO_LARGE: { status: 413, summary: 'a blob over the size limit or the memory budget' },
  BLOB_NOT_FOUND: { status: 404, summary: 'no blob with that id (or not referenced by the model)' },
  STORE_FAILURE: { status: 500, summary: 'the store could not complete the operation' },
  SOLVE_NOT_AN_INPUT: { status: 400, summary: 'solve was asked to vary a computed or read-only field' },
  SOLVE_BAD_BOUNDS: { status: 400, summary: 'a varied input has bounds or a step that leave nothing to try' },
  SOLVE_NOT_NUMERIC: { status: 422, summary: 'a varied input, target or objective is not a number' },
} as const;

export type CalcErrorCode = keyof typeof CALC_ERROR_CODES;

export interface ConstraintViolation {
  constraintId: string;
  message: string;
  policy: 'rollback' | 'flag';
}

/** Any refusal by the engine. Extra structured data rides in `details`. */
export class CalcError extends Error {
  readonly code: CalcErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: CalcErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'CalcError';
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return CALC_ERROR_CODES[this.code].status;
  }
}

export function schemaViolationError(violations: SchemaViolation[]): CalcError {
  const first = violations[0];
  const message =
    violations.length === 1 && first
      ? `Schema violation: ${first.message}`
      : `Schema violation: ${violations.length} problems`;
  return new CalcError('SCHEMA_VIOLATION', message, { violations });
}

export function constraintViolationError(violations: ConstraintViolation[]): CalcError {
  const message =
    violations.length === 1
      ? `Constraint violated: ${violations[0]!.message}`
      : `${violations.length} constraints violated: [${violations.map((v) => v.message).join(', ')}]`;
  return new CalcError('CONSTRAINT_VIOLATION', message, { violations });
}

/** JavaScript's own error classes: their texts describe our code's failure, not the caller's input. */
const ENGINE_ERRORS: readonly (new (...args: never[]) => Error)[] = [
  TypeError,
  RangeError,
  ReferenceError,
  SyntaxError,
  EvalError,
  URIError,
];

/** Message shown for a failure whose own text is the JavaScript engine's (logged, never returned). */
export const INTERNAL_FAILURE_MESSAGE =
  'an internal error stopped this operation (the server log has the details)';
export const TOO_DEEP_MESSAGE = 'the work nested too deeply to finish (the stack limit was reached)';

/** True for an error raised by the JavaScript engine itself (a stack overflow, a property of undefined). */
export function isEngineError(err: unknown): boolean {
  return err instanceof Error && ENGINE_ERRORS.some((kind) => err.constructor === kind);
}

/**
 * The text a caller may see for a failure: our own messages and JSONata's coded errors as they
 * are; the JavaScript engine's texts ("Cannot read properties of undefined", "Maximum call stack
 * size exceeded") replaced by a sentence of ours.
 */
export function publicMessage(err: unknown): string {
  if (err instanceof RangeError && /call stack/i.test(err.message)) return TOO_DEEP_MESSAGE;
  if (isEngineError(err)) return INTERNAL_FAILURE_MESSAGE;
  if (err && typeof err === 'object' && 'message' in err && typeof err.message === 'string')
    return err.message;
  return String(err);
}
