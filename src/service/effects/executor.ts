/**
 * What an effect executor is: given one dispatched request (the engine has evaluated its trigger,
 * dedupe key and `{expr}` segments), do it and say how it went. Executors never touch the model;
 * the runner writes statuses and folds results back (runner.ts).
 */
import type { JsonObject, JsonValue, ModelSpec } from '../../calc/index.js';

export type EffectPolicy = ModelSpec['effects'][number]['policy'];

/** A stable code on every outcome that is not a success (written into the status as `code`). */
export type EffectErrorCode =
  | 'EFFECT_BLOCKED'
  | 'EFFECT_TIMEOUT'
  | 'EFFECT_NETWORK'
  | 'EFFECT_HTTP_STATUS'
  | 'EFFECT_RESPONSE_TOO_LARGE'
  | 'EFFECT_REDIRECT'
  | 'EFFECT_INVALID_REQUEST'
  | 'EFFECT_FOLDBACK_FAILED';

export type ExecutorOutcome =
  | { kind: 'ok'; response: JsonValue; status: number }
  | { kind: 'failed' | 'blocked'; code: EffectErrorCode; message: string };

export interface EffectExecutor {
  /** The spec's `executor` value this one runs (`server`, later `timer`, `llm`). */
  readonly name: string;
  /** Runs one request; resolves with an outcome (never rejects for the request's own failure). */
  execute(request: JsonObject, policy: EffectPolicy): Promise<ExecutorOutcome>;
}
