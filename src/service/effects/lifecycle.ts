/**
 * The effect lifecycle of §7, decided on the model's current state under its lock: whether a
 * dispatched effect may start, and what its outcome writes — CURRENT (fold back `response.set` and
 * `applied`), SUPERSEDED (the dedupe key moved on: re-fire for the current value) or CANCELLED (the
 * trigger no longer holds). Only reads the runtime; the writes are the runner's to commit.
 */
import {
  cloneJson,
  evalExpression,
  isObject,
  jsonEqual,
  type DispatchedEffect,
  type JsonObject,
  type JsonValue,
  type ModelRuntime,
  type ModelSpec,
} from '../../calc/index.js';
import type { EffectErrorCode, ExecutorOutcome } from './executor.js';

type Effect = ModelSpec['effects'][number];
type EffectNode = ModelRuntime['model']['effects'][number];
type Expr = NonNullable<EffectNode['trigger']>;

/** One dispatched request the runner carries through its lifecycle. */
export interface EffectJob {
  modelId: string;
  effect: Effect;
  /** The executor's input: the engine's payload (method, url, headers, body or a descriptor). */
  request: JsonObject;
  /**
   * The dedupe key the request was made for (null without one). Undefined until the job starts
   * for a fan-out descriptor without its own key: it carries the effect's, which the payload omits.
   */
  key: JsonValue | undefined;
  /** Where its status object lives; null: no status, no guard. */
  statusPath: string | null;
  /** `response.set`: address → JSONata over `$response` and `$status`. */
  set: Record<string, string>;
  /** One descriptor of a `requests` fan-out. */
  fanOut: boolean;
  /** Epoch ms the run is due (a timer's fire time), once it has started. */
  dueAt?: number;
}

/** What the store keeps of a job to re-drive it (the effect itself is read from the spec then). */
export function jobText(job: EffectJob): string {
  const { effect, modelId: _modelId, ...rest } = job;
  return JSON.stringify({ effectId: effect.id, ...rest });
}

/** A stored job, for the model's spec as it is now; undefined when the effect is gone or the text is not a job. */
export function jobFromText(text: string, modelId: string, spec: ModelSpec): EffectJob | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(parsed) || typeof parsed.effectId !== 'string' || !isObject(parsed.request)) return undefined;
  const effect = spec.effects.find((e) => e.id === parsed.effectId);
  if (!effect) return undefined;
  return {
    modelId,
    effect,
    request: parsed.request as JsonObject,
    key: parsed.key as JsonValue | undefined,
    statusPath: typeof parsed.statusPath === 'string' ? parsed.statusPath : null,
    set: stringMap(parsed.set) ?? {},
    fanOut: parsed.fanOut === true,
    ...(typeof parsed.dueAt === 'number' ? { dueAt: parsed.dueAt } : {}),
  };
}

export type SettledPhase = 'applied' | 'failed' | 'blocked' | 'cancelled' | 'superseded';

export interface FoldBack {
  writes: Record<string, unknown>;
  phase: SettledPhase;
  /** SUPERSEDED: the request for the current value, already marked in flight by `writes`. */
  refire?: EffectJob;
  error?: { code: EffectErrorCode; message: string };
}

/** The status object written at `statusPath` (§7 shells). */
export function statusObject(
  phase: 'in_flight' | SettledPhase,
  key: JsonValue,
  error?: { code: EffectErrorCode; message: string },
): JsonObject {
  const status: JsonObject = { phase, key, at: new Date().toISOString(), error: error?.message ?? null };
  if (error) status.code = error.code;
  return status;
}

/** Truthiness of a trigger, as the engine judges it (§6): true, a non-zero number, a non-empty string. */
function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  return false;
}

/** An expression of the compiled model on the state; undefined when it fails (as the engine treats it). */
async function run(runtime: ModelRuntime, expr: Expr, state: JsonObject): Promise<unknown> {
  try {
    return await expr.evaluate(state, runtime.model.bindings);
  } catch {
    return undefined;
  }
}

const toJson = (v: unknown): JsonValue => (v === undefined ? null : ((cloneJson(v) ?? null) as JsonValue));

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The job for an effect the engine dispatched, or undefined when its spec has no such effect. */
export function jobOf(modelId: string, spec: ModelSpec, dispatched: DispatchedEffect): EffectJob | undefined {
  const effect = spec.effects.find((e) => e.id === dispatched.effectId);
  if (!effect || !isObject(dispatched.payload)) return undefined;
  const request = dispatched.payload;
  const fanOut = effect.requests !== undefined;
  const ownPath = fanOut && typeof request.statusPath === 'string' ? request.statusPath : undefined;
  return {
    modelId,
    effect,
    request,
    key: fanOut ? request.dedupeKey : (request.dedupeKey ?? null),
    statusPath: ownPath ?? effect.statusPath ?? null,
    set: (fanOut ? stringMap(request.set) : undefined) ?? effect.response?.set ?? {},
    fanOut,
  };
}

type Judgement =
  | { now: 'cancelled' }
  | { now: 'current'; key: JsonValue }
  | { now: 'superseded'; key: JsonValue; request: JsonObject };

/** What the current state says of a job: its trigger, and its dedupe key now. */
async function judge(runtime: ModelRuntime, job: EffectJob): Promise<Judgement> {
  const node = runtime.model.effects.find((n) => n.spec.id === job.effect.id);
  if (!node) return { now: 'cancelled' }; // evolved away
  const state = await runtime.getState();
  if (node.trigger && !truthy(await run(runtime, node.trigger, state))) return { now: 'cancelled' };
  const effectKey = node.dedupeKey ? toJson(await run(runtime, node.dedupeKey, state)) : null;
  const matches = (key: JsonValue): boolean => job.key === undefined || jsonEqual(key, job.key);
  if (job.fanOut) {
    const listed = node.requests ? toJson(await run(runtime, node.requests, state)) : null;
    const all = (Array.isArray(listed) ? listed : listed === null ? [] : [listed]).filter(
      (d): d is JsonObject => isObject(d),
    );
    const keyOf = (d: JsonObject): JsonValue => (d.dedupeKey !== undefined ? d.dedupeKey : effectKey);
    // a descriptor is the same request when it writes the same status (else: has the same key)
    const same = all.find((d) =>
      job.statusPath !== null
        ? (typeof d.statusPath === 'string' ? d.statusPath : (node.spec.statusPath ?? null)) ===
          job.statusPath
        : matches(keyOf(d)),
    );
    if (!same) return { now: 'cancelled' };
    const key = keyOf(same);
    return matches(key)
      ? { now: 'current', key }
      : { now: 'superseded', key, request: { method: 'GET', ...same } };
  }
  if (matches(effectKey)) return { now: 'current', key: effectKey };
  return { now: 'superseded', key: effectKey, request: await requestFor(runtime, node, state, effectKey) };
}

/** The `request` form for the current state: what the engine's dispatch would send now. */
async function requestFor(
  runtime: ModelRuntime,
  node: EffectNode,
  state: JsonObject,
  key: JsonValue,
): Promise<JsonObject> {
  const out: JsonObject = {};
  const req = node.spec.request;
  if (isObject(req)) {
    out.method = req.method ?? 'GET';
    if (typeof req.url === 'string') out.url = await interpolate(runtime, req.url, state);
    if (isObject(req.headers)) {
      const headers: JsonObject = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = typeof v === 'string' ? await interpolate(runtime, v, state) : v;
      out.headers = headers;
    }
    if (req.body !== undefined) out.body = req.body;
  } else if (node.spec.target) {
    out.target = node.spec.target;
    // a write-link's value, as the engine's dispatch computes it
    if (typeof node.spec.body === 'string') {
      const { library, constants } = runtime.model.spec;
      const r = await evalExpression(node.spec.body, state, library, constants);
      out.body = r.ok ? r.result : null;
    }
  }
  if (key !== null) out.dedupeKey = key;
  return out;
}

/** `{ expr }` segments as the engine fills them: null → "", objects → JSON text. */
async function interpolate(runtime: ModelRuntime, template: string, state: JsonObject): Promise<string> {
  const { library, constants } = runtime.model.spec;
  let out = '';
  let last = 0;
  for (const m of template.matchAll(/\{([^{}]+)\}/g)) {
    out += template.slice(last, m.index);
    last = (m.index ?? 0) + m[0].length;
    const r = await evalExpression(m[1]!.trim(), state, library, constants);
    const value = r.ok ? r.result : null;
    out += value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return out + template.slice(last);
}

/**
 * The `response.set` values. The engine's public one-off evaluation binds only `$const`, so the
 * reply rides in as the input and a block binds `$response` and `$status` from it.
 */
export async function responseValues(
  runtime: ModelRuntime,
  set: Record<string, string>,
  outcome: { response: JsonValue; status: number; firedAt?: number },
): Promise<
  | { ok: true; values: Record<string, JsonValue> }
  | { ok: false; error: { code: EffectErrorCode; message: string } }
> {
  const { library, constants } = runtime.model.spec;
  const values: Record<string, JsonValue> = {};
  // a timer's values are read from the state at fire time, `$now` its epoch ms (§7)
  const timer = outcome.firedAt !== undefined;
  const input = timer ? await runtime.getState() : { response: outcome.response, status: outcome.status };
  for (const [address, expr] of Object.entries(set)) {
    const wrapped = timer
      ? `($now := ${Math.floor(outcome.firedAt ?? 0)}; (${expr}))`
      : `($response := $$.response; $status := $$.status; (${expr}))`;
    const r = await evalExpression(wrapped, input, library, constants);
    if (!r.ok)
      return {
        ok: false,
        error: { code: 'EFFECT_FOLDBACK_FAILED', message: `response.set ${address}: ${r.message}` },
      };
    values[address] = r.result;
  }
  return { ok: true, values };
}

/**
 * Whether a dispatched job starts: its trigger still holds, its key is still the current one and
 * no run of it is in flight. If so, the `in_flight` status to write (nothing without a statusPath).
 */
export async function startWrites(
  runtime: ModelRuntime,
  job: EffectJob,
): Promise<{ start: boolean; job: EffectJob; writes: Record<string, unknown> }> {
  if (job.statusPath !== null) {
    const status = await runtime.getValue(job.statusPath);
    if (isObject(status) && (status.phase === 'in_flight' || status.phase === 'pending'))
      return { start: false, job, writes: {} };
  }
  // not current: cancelled, or a later cycle dispatched the current value itself
  const j = await judge(runtime, job);
  if (j.now !== 'current') return { start: false, job, writes: {} };
  const started = { ...job, key: j.key };
  const writes = job.statusPath !== null ? { [job.statusPath]: statusObject('in_flight', j.key) } : {};
  return { start: true, job: started, writes };
}

/** CANCELLED or SUPERSEDED as the current state says, or undefined while the job is CURRENT. */
export async function notCurrent(runtime: ModelRuntime, job: EffectJob): Promise<FoldBack | undefined> {
  const at = job.statusPath;
  const j = await judge(runtime, job);
  if (j.now === 'cancelled')
    return { phase: 'cancelled', writes: at !== null ? { [at]: statusObject('cancelled', null) } : {} };
  if (j.now === 'superseded') {
    const { dueAt: _dueAt, ...rest } = job; // the re-fired run is due afresh
    const refire: EffectJob = { ...rest, request: j.request, key: j.key };
    return {
      phase: 'superseded',
      refire,
      writes: at !== null ? { [at]: statusObject('in_flight', j.key) } : {},
    };
  }
  return undefined;
}

/**
 * Whether a run left by a process that stopped (its row's lease expired) is taken up again: not if
 * its status already says how it ended (the process stopped after the fold-back, before letting go
 * of the row); CANCELLED writes `cancelled`; SUPERSEDED starts the current value; else it resumes,
 * marked `in_flight` unless it already is.
 */
export async function resumeWrites(
  runtime: ModelRuntime,
  job: EffectJob,
): Promise<{ start: boolean; job: EffectJob; writes: Record<string, unknown> }> {
  const at = job.statusPath;
  const status = at !== null ? await runtime.getValue(at) : undefined;
  const inFlight = isObject(status) && (status.phase === 'in_flight' || status.phase === 'pending');
  if (isObject(status) && !inFlight && job.key !== undefined && jsonEqual(status.key ?? null, job.key))
    return { start: false, job, writes: {} };
  const early = await notCurrent(runtime, job);
  if (early?.phase === 'cancelled') return { start: false, job, writes: inFlight ? early.writes : {} };
  if (early?.refire) return { start: true, job: early.refire, writes: early.writes };
  const key = job.key ?? null;
  const marked = inFlight && jsonEqual(status.key ?? null, key);
  return { start: true, job, writes: at !== null && !marked ? { [at]: statusObject('in_flight', key) } : {} };
}

/** The fold-back of an executor's outcome (§7 CURRENT / SUPERSEDED / CANCELLED). */
export async function foldBackWrites(
  runtime: ModelRuntime,
  job: EffectJob,
  outcome: Exclude<ExecutorOutcome, { kind: 'aborted' }>,
): Promise<FoldBack> {
  const at = job.statusPath;
  const early = await notCurrent(runtime, job);
  if (early) return early;
  if (outcome.kind !== 'ok') {
    const error = { code: outcome.code, message: outcome.message };
    return {
      phase: outcome.kind,
      error,
      writes: at !== null ? { [at]: statusObject(outcome.kind, job.key ?? null, error) } : {},
    };
  }
  const folded = await responseValues(runtime, job.set, outcome);
  if (!folded.ok) {
    const error = folded.error;
    return {
      phase: 'failed',
      error,
      writes: at !== null ? { [at]: statusObject('failed', job.key ?? null, error) } : {},
    };
  }
  return {
    phase: 'applied',
    writes: { ...folded.values, ...(at !== null ? { [at]: statusObject('applied', job.key ?? null) } : {}) },
  };
}
