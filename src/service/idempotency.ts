/**
 * Idempotency keys for writes (issue 38): a retry carrying the key of a write that already
 * succeeded gets that write's answer back instead of applying it again; the same key on a different
 * request is refused. Keys and answers are kept per model by the store (durable in SQLite and
 * PostgreSQL), for a bounded count and age (IDEMPOTENCY_LIMITS). Keys are data: compared as
 * strings, stored in columns or Map keys, never used as object properties.
 */
import { createHash } from 'node:crypto';
import { CalcError, canonicalJson, type JsonValue } from '../calc/index.js';
import { IDEMPOTENCY_LIMITS, MAX_IDEMPOTENCY_KEY_CHARS, type Store } from '../store/store.js';
import { prettyJsonLength } from './json-size.js';

/** The writes that take a key. */
export type IdempotentOperation = 'mutate' | 'patch_model' | 'evolve_spec' | 'restore';

/** Answers larger than this are kept as a summary (counts, revision) rather than whole. */
export const MAX_KEPT_ANSWER_CHARS = 64_000;

/**
 * A key as given: absent, or 1–200 visible ASCII characters (what an HTTP header carries too).
 * @throws CalcError INVALID_ARGUMENT
 */
export function checkIdempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > MAX_IDEMPOTENCY_KEY_CHARS ||
    !/^[\x21-\x7e]+$/.test(value)
  ) {
    throw new CalcError(
      'INVALID_ARGUMENT',
      `idempotencyKey must be 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters (a UUID is a good choice)`,
      { argument: 'idempotencyKey' },
    );
  }
  return value;
}

/** Identifies a request: the operation and everything that shapes its effect and answer. */
export function requestFingerprint(operation: IdempotentOperation, request: unknown): string {
  return createHash('sha256').update(canonicalJson({ operation, request })).digest('hex');
}

/**
 * The answer as kept: whole when small, else its scalars plus the length of each list (`counts`),
 * marked `keptInFull: false` — enough for a retry to know the write committed and where it left
 * the model.
 */
function keptAnswer(answer: JsonValue): JsonValue {
  if (prettyJsonLength(answer) <= MAX_KEPT_ANSWER_CHARS) return answer;
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return { keptInFull: false };
  const out: Record<string, JsonValue> = {};
  const counts: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(answer)) {
    if (Array.isArray(v)) counts[k] = v.length;
    else if (typeof v !== 'object' || v === null) out[k] = v;
  }
  return { ...out, counts, keptInFull: false };
}

export class IdempotentWrites {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /**
   * Runs `write` once per key: with a key already kept for the same request, answers the kept
   * answer (marked `replayed: true`) without running it; with a key kept for another request,
   * refuses. Only successful writes are kept: a refused write changed nothing and may be retried.
   * Call under the model lock, so two requests with one key do not both run.
   * @throws CalcError IDEMPOTENCY_KEY_REUSED
   */
  async run<T extends object>(
    modelId: string,
    key: string | undefined,
    operation: IdempotentOperation,
    request: unknown,
    write: () => Promise<T>,
  ): Promise<T & { replayed?: true }> {
    if (key === undefined) return write();
    const fingerprint = requestFingerprint(operation, request);
    const kept = await this.store.idempotencyEntry(modelId, key);
    const fresh = kept && Date.parse(kept.createdAt) >= this.now() - IDEMPOTENCY_LIMITS.maxAgeMs;
    if (kept && fresh) {
      if (kept.fingerprint !== fingerprint) {
        throw new CalcError(
          'IDEMPOTENCY_KEY_REUSED',
          `idempotency key '${key}' already answered a different ${operation === 'mutate' ? 'write' : 'request'} on model '${modelId}'; nothing was written. Use a new key for a new request`,
          { idempotencyKey: key, operation },
        );
      }
      return { ...(kept.answer as T), replayed: true };
    }
    const answer = await write();
    try {
      await this.store.saveIdempotencyEntry(modelId, {
        key,
        fingerprint,
        answer: keptAnswer(answer as unknown as JsonValue),
        createdAt: new Date(this.now()).toISOString(),
      });
    } catch (err) {
      // the write is committed: answering an error now would invite the blind retry keys prevent
      process.stderr.write(
        `modelworks: could not keep idempotency key for model '${modelId}': ${(err as Error).message}\n`,
      );
    }
    return answer;
  }
}
