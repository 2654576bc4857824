/**
 * Error bodies of the REST API. Most are RFC 7807 problem details; a few refusals keep the shapes
 * agents already know from MCP (Schema violation, Constraint violation, Version conflict, Test
 * failed, the validation report).
 * Every body carries the stable `code`, so a remote client can rebuild the CalcError.
 */
import { CALC_ERROR_CODES, type CalcError } from '../calc/index.js';
import { violationDetails, type InputLimitViolation } from '../service/input-limits.js';

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  /** application/problem+json or application/json. */
  contentType: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** The catalogue code a refusal carries when its caller names none (every error body has a code). */
const CODE_OF_STATUS = new Map<number, string>([
  [400, 'BAD_REQUEST'],
  [401, 'UNAUTHORIZED'],
  [403, 'FORBIDDEN'],
  [404, 'NOT_FOUND'],
  [413, 'TOO_LARGE'],
  [415, 'UNSUPPORTED_MEDIA_TYPE'],
  [429, 'RATE_LIMITED'],
  [500, 'INTERNAL'],
]);

export function problem(status: number, detail: string, extra: Record<string, unknown> = {}): ErrorReply {
  const code = CODE_OF_STATUS.get(status);
  return {
    status,
    contentType: 'application/problem+json',
    body: {
      type: 'about:blank',
      title: TITLES[status] ?? 'Error',
      status,
      detail,
      ...(code !== undefined ? { code } : {}),
      ...extra,
    },
  };
}

const plain = (status: number, body: Record<string, unknown>): ErrorReply => ({
  status,
  contentType: 'application/json',
  body,
});

/** The reply for a CalcError raised by a service call. */
export function calcErrorReply(err: CalcError): ErrorReply {
  const status = CALC_ERROR_CODES[err.code].status;
  const code = err.code;
  const detail = err.message;
  switch (code) {
    case 'SPEC_INVALID':
      if (Array.isArray(err.details.errors))
        return plain(status, {
          message: 'Model spec validation failed',
          errors: err.details.errors,
          warnings: err.details.warnings ?? [],
          code,
          detail,
        });
      return problem(status, detail, { code });
    case 'MODEL_EXISTS':
      return plain(status, {
        error: `Model with id '${String(err.details.id)}' already exists`,
        id: err.details.id,
        code,
        detail,
      });
    case 'SCHEMA_VIOLATION':
      return plain(status, { error: 'Schema violation', violations: err.details.violations, code, detail });
    case 'CONSTRAINT_VIOLATION':
      return plain(status, {
        error: 'Constraint violation',
        violations: err.details.violations,
        code,
        detail,
      });
    case 'VERSION_CONFLICT':
      // a stale expectedRevision (or an evolution's expectedVersion): the MCP shape, plus the code
      return plain(status, {
        error: 'Version conflict',
        expected: err.details.expected,
        actual: err.details.actual,
        code,
        detail,
      });
    case 'INVALID_PATCH':
      // a failed `test` operation is data to react to, as over MCP; `op` lets a client rebuild it
      if (err.details.op === 'test')
        return plain(status, {
          error: 'Test failed',
          op: 'test',
          index: err.details.index,
          path: err.details.path,
          expected: err.details.expected,
          actual: err.details.actual,
          ...(err.details.absent === true ? { absent: true } : {}),
          code,
          detail,
        });
      return problem(status, detail, { code, ...err.details });
    case 'STORE_FAILURE':
      // the store's own words may name hosts or files: keep them in the server log only
      return problem(500, 'Internal server error', { code });
    default:
      return problem(status, detail, { code, ...err.details });
  }
}

/** The refusal of a request over an input limit (REST and MCP give the same code and details). */
export function inputLimitReply(v: InputLimitViolation): ErrorReply {
  return problem(413, v.message, { code: 'INPUT_LIMIT', ...violationDetails(v) });
}
