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
  | 'EFFECT_APPROVAL_REQUIRED'
  | 'EFFECT_TIMEOUT'
  | 'EFFECT_NETWORK'
  | 'EFFECT_HTTP_STATUS'
  | 'EFFECT_RESPONSE_TOO_LARGE'
  | 'EFFECT_REDIRECT'
  | 'EFFECT_INVALID_REQUEST'
  | 'EFFECT_FOLDBACK_FAILED'
  | 'EFFECT_LLM_FAILED'
  | 'EFFECT_LINK_FAILED';

export type ExecutorOutcome =
  /**
   * `firedAt` (a timer): `response.set` is read against the model's state at that moment with
   * `$now` bound to it, instead of `$response` and `$status`.
   */
  | { kind: 'ok'; response: JsonValue; status: number; firedAt?: number }
  | { kind: 'failed' | 'blocked'; code: EffectErrorCode; message: string }
  /** The runner is stopping: nothing is written; the run is left for the next process to re-drive. */
  | { kind: 'aborted' };

/** What the runner tells an executor beyond the request. */
export interface RunContext {
  /** Epoch ms the run is due (`dueAt` below; the start for executors without one). */
  dueAt: number;
  /** Aborted when the runner stops or the run is cancelled while it waits. */
  signal: AbortSignal;
  /** The effect as the spec declares it (an llm effect's `responseSchema`). */
  effect?: ModelSpec['effects'][number];
  /** The model whose effect this is (a link records it as the origin of its write). */
  modelId?: string;
  /**
   * The run was taken over from a runner that stopped holding it (a killed process): its I/O
   * may have happened already. A link checks its target for its own write before writing.
   */
  redriven?: boolean;
}

export interface EffectExecutor {
  /** The spec's `executor` value this one runs (`server`, `timer`, `llm`). */
  readonly name: string;
  /**
   * Whether a change to the model is judged while the run waits (a timer: a trigger turning false
   * cancels it at once, a new dedupe key restarts it), rather than only when it ends.
   */
  readonly judgedWhileWaiting?: boolean;
  /** When a run started at `startedAt` is due (a timer's fire time); absent: at once. */
  dueAt?(request: JsonObject, startedAt: number): number;
  /** Runs one request; resolves with an outcome (never rejects for the request's own failure). */
  execute(request: JsonObject, policy: EffectPolicy, context?: RunContext): Promise<ExecutorOutcome>;
}
