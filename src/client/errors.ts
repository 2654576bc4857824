/**
 * The errors of `modelworks/client`: every refusal of the server becomes a ModelworksError with
 * the HTTP status, the stable `code` of the error catalogue (docs/errors.md) and the body as sent.
 * The refusals a caller reacts to have their own classes: a stale expected revision, a write the
 * schema or a constraint refused, and a rate limit (with the server's Retry-After).
 */

/** A problem body as the server sends it (RFC 7807 fields plus our `code` and details). */
export type ErrorBody = Readonly<Record<string, unknown>>;

export class ModelworksError extends Error {
  override readonly name: string = 'ModelworksError';
  /** The HTTP status (0 when the server could not be reached). */
  readonly status: number;
  /** The stable error code (`VERSION_CONFLICT`, `SCHEMA_VIOLATION`, …), when the server sent one. */
  readonly code: string | undefined;
  /** The error body as the server sent it. */
  readonly body: ErrorBody;

  constructor(message: string, status: number, body: ErrorBody = {}) {
    super(message);
    this.status = status;
    this.body = body;
    this.code = typeof body.code === 'string' ? body.code : undefined;
  }
}

/** The server could not be reached at all (no HTTP answer). */
export class ConnectionError extends ModelworksError {
  override readonly name = 'ConnectionError';
}

/** A write's `expectedRevision` was stale: nothing changed; read again and retry. */
export class VersionConflictError extends ModelworksError {
  override readonly name = 'VersionConflictError';
  readonly expected: unknown;
  readonly actual: unknown;
  constructor(message: string, status: number, body: ErrorBody) {
    super(message, status, body);
    this.expected = body.expected;
    this.actual = body.actual;
  }
}

/** One reason a write was refused, as the server lists it. */
export interface Violation {
  path?: string;
  message?: string;
  constraintId?: string;
  [key: string]: unknown;
}

/** A write the model's schema (422) or one of its constraints (409) refused: nothing changed. */
export class ViolationError extends ModelworksError {
  override readonly name = 'ViolationError';
  readonly violations: Violation[];
  constructor(message: string, status: number, body: ErrorBody) {
    super(message, status, body);
    this.violations = Array.isArray(body.violations) ? (body.violations as Violation[]) : [];
  }
}

/** Too many requests: wait `retryAfterSeconds` (the server's Retry-After) before trying again. */
export class RateLimitError extends ModelworksError {
  override readonly name = 'RateLimitError';
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, status: number, body: ErrorBody, retryAfterSeconds: number | undefined) {
    super(message, status, body);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The words of an error body: its detail, else its error, else its message. */
function wordsOf(body: ErrorBody): string | undefined {
  return [body.detail, body.error, body.message].find((w): w is string => typeof w === 'string');
}

/** The error a non-2xx answer becomes. */
export function errorFromResponse(
  status: number,
  statusText: string,
  body: ErrorBody,
  retryAfter: string | null,
): ModelworksError {
  const words = wordsOf(body) ?? (statusText || `HTTP ${status}`);
  const message = `${words} (${status})`;
  if (body.code === 'VERSION_CONFLICT') return new VersionConflictError(message, status, body);
  if (
    body.code === 'SCHEMA_VIOLATION' ||
    body.code === 'CONSTRAINT_VIOLATION' ||
    ((status === 409 || status === 422) && Array.isArray(body.violations))
  )
    return new ViolationError(message, status, body);
  if (status === 429) return new RateLimitError(message, status, body, retryAfterSeconds(retryAfter));
  return new ModelworksError(message, status, body);
}
