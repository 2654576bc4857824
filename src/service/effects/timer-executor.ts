/**
 * The `timer` executor: waits until the effect is due, then says so; the runner folds `response.set`
 * back against the state at that moment (`$now`: the fire time, epoch ms). `at` is an epoch ms or an
 * ISO-8601 text; `afterMs` counts from the moment the run started. The due time is stored with the
 * run (the store's effect_runs row), so a timer set before a restart fires after it.
 */
import type { JsonObject, JsonValue } from '../../calc/index.js';
import type { EffectExecutor, ExecutorOutcome, RunContext } from './executor.js';

/** setTimeout's longest wait (about 24.8 days); a longer one is waited in steps. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** An `at` value as epoch ms, or undefined when it is neither a number nor an ISO-8601 text. */
function epochMs(value: JsonValue | undefined): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  // a date-time text: Date.parse alone also accepts loose forms such as "1", so require ISO's shape
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/** The fire time of a timer started at `startedAt`, or undefined when neither `at` nor `afterMs` is usable. */
export function timerDueAt(request: JsonObject, startedAt: number): number | undefined {
  if (request.at !== undefined && request.at !== null) return epochMs(request.at);
  const after = request.afterMs;
  if (typeof after === 'number' && Number.isFinite(after) && after >= 0) return startedAt + after;
  return undefined;
}

/** Resolves at `until` (epoch ms), or early with false when `signal` aborts. */
function waitUntil(until: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    let timer: NodeJS.Timeout;
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const step = (): void => {
      const left = until - Date.now();
      if (left <= 0) {
        signal.removeEventListener('abort', onAbort);
        return resolve(true);
      }
      timer = setTimeout(step, Math.min(left, MAX_TIMEOUT_MS));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    step();
  });
}

export class TimerExecutor implements EffectExecutor {
  readonly name = 'timer';
  readonly judgedWhileWaiting = true;

  dueAt(request: JsonObject, startedAt: number): number {
    return timerDueAt(request, startedAt) ?? startedAt;
  }

  async execute(request: JsonObject, _policy: unknown, context?: RunContext): Promise<ExecutorOutcome> {
    const due = timerDueAt(request, Date.now());
    if (due === undefined) {
      return {
        kind: 'failed',
        code: 'EFFECT_INVALID_REQUEST',
        message:
          "the timer's 'at' is not an epoch ms or an ISO-8601 date-time, or its 'afterMs' is not a number of milliseconds ≥ 0",
      };
    }
    const signal = context?.signal ?? new AbortController().signal;
    const fired = await waitUntil(context?.dueAt ?? due, signal);
    if (!fired) return { kind: 'aborted' };
    const now = Date.now();
    return { kind: 'ok', response: null, status: 0, firedAt: now };
  }
}
