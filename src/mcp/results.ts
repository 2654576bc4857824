/**
 * Tool results as the product document shapes them: a pretty-printed text block, plus
 * structuredContent when the payload is an object; a size guard; and the structured error shapes.
 */
import { CalcError, isEngineError, publicMessage } from '../calc/index.js';
import { prettyJsonLength } from '../service/json-size.js';

export const RESULT_LIMIT_CHARS = 50_000;

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A successful result; `hint` says how to narrow the call if the result is too large. */
export function okResult(payload: unknown, hint = 'narrow the request'): ToolResult {
  const text = payload === undefined || payload === null ? 'null' : JSON.stringify(payload, null, 2);
  if (text.length > RESULT_LIMIT_CHARS) {
    // withheld: an error so clients do not expect structured content for a declared output schema
    const note = {
      error: 'Result too large',
      resultChars: text.length,
      limitChars: RESULT_LIMIT_CHARS,
      hint,
    };
    return { content: [{ type: 'text', text: JSON.stringify(note, null, 2) }], isError: true };
  }
  const result: ToolResult = { content: [{ type: 'text', text }] };
  if (isPlainObject(payload)) result.structuredContent = payload;
  return result;
}

/**
 * The result of a write that has committed: as okResult, but when the answer is too large the
 * note says the write committed (`committed: true`, the new revision, the count of each list the
 * answer held) and is not an error result: an agent that sees an error retries, and a retried
 * write applies twice. The hint says how to read the outcome narrowly.
 */
export function committedWriteResult(answer: object, hint: string): ToolResult {
  const payload = answer as Record<string, unknown>;
  const result = okResult(payload);
  if (!result.isError) return result;
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(payload)) if (Array.isArray(v)) counts[k] = v.length;
  const note = {
    error: 'Result too large',
    committed: true,
    ...(typeof payload.revision === 'number' ? { revision: payload.revision } : {}),
    counts,
    resultChars: prettyJsonLength(payload),
    limitChars: RESULT_LIMIT_CHARS,
    hint: `the write committed: do not retry it. ${hint}`,
  };
  return { content: [{ type: 'text', text: JSON.stringify(note, null, 2) }], structuredContent: note };
}

function structuredError(shape: Record<string, unknown>): ToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(shape, null, 2) }],
    structuredContent: shape,
    isError: true,
  };
}

export function textError(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Maps a thrown error to the tool-error shape an agent can react to. */
export function errorResult(err: unknown): ToolResult {
  if (err instanceof CalcError) {
    switch (err.code) {
      case 'CONSTRAINT_VIOLATION':
        return structuredError({ error: 'Constraint violation', violations: err.details.violations });
      case 'SCHEMA_VIOLATION':
        return structuredError({ error: 'Schema violation', violations: err.details.violations });
      case 'VERSION_CONFLICT':
        return structuredError({
          error: 'Version conflict',
          expected: err.details.expected,
          actual: err.details.actual,
          message: err.message,
        });
      case 'INVALID_PATCH':
        // a failed `test` operation is the patch's compare-and-swap refusing: data to react to
        if (err.details.op === 'test')
          return structuredError({
            error: 'Test failed',
            index: err.details.index,
            path: err.details.path,
            expected: err.details.expected,
            actual: err.details.actual,
            ...(err.details.absent === true ? { absent: true } : {}),
            message: err.message,
          });
        return textError(err.message);
      case 'SNAPSHOT_MODEL_MISMATCH':
        return structuredError({
          error: 'Snapshot of another model',
          snapshotModelId: err.details.snapshotModelId,
          modelId: err.details.modelId,
          message: err.message,
        });
      case 'IDEMPOTENCY_KEY_REUSED':
        return structuredError({
          error: 'Idempotency key reused',
          idempotencyKey: err.details.idempotencyKey,
          operation: err.details.operation,
          message: err.message,
        });
      case 'MODEL_EXISTS':
        return structuredError({ error: 'Model exists', id: err.details.id, message: err.message });
      case 'SPEC_INVALID':
      case 'EVOLUTION_INVALID': {
        const extra = err.details.errors ?? err.details.incompatibilities;
        return textError(extra ? `${err.message}\n${JSON.stringify(extra, null, 2)}` : err.message);
      }
      case 'STORE_FAILURE':
        // the store's own words may name hosts or files: they go to the server log only
        logInternal(err);
        return textError('the store could not complete the operation (the server log has the details)');
      default:
        return textError(err.message);
    }
  }
  if (isEngineError(err)) logInternal(err);
  return textError(publicMessage(err));
}

/** Details of an internal failure for the operator (stderr: stdout carries protocol messages only). */
function logInternal(err: unknown): void {
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`modelworks: internal error: ${text}\n`);
}
