/**
 * Links between models run in this process (issue 41; valem-parity.md §1.3): a `server` effect
 * whose `target` names another stored model. A write-link mutates the target with
 * `{target.path: body}` (one cycle in the target, audited with source `link` and the source
 * model and effect as its origin) and answers the target's whole merged state after that commit as
 * `$response`; a read-link reads the target's field with no write, no audit record and no
 * history entry on the target, and answers the value (or null). The source's lock is not held:
 * links fire after the source's commit, so each hop takes only its target's lock and a guarded
 * ping⇄pong settles instead of deadlocking.
 *
 * Failures are `failed` outcomes whose message starts with the reference product's code:
 *   target_rejected    the target's schema or a rollback constraint refused the value
 *   target_busy        the target's queue is full
 *   target_unresolved  the target is not a stored model (any more)
 *   transport_error    anything else
 */
import { createHash } from 'node:crypto';
import { CalcError, canonicalJson, isObject, type JsonObject, type JsonValue } from '../../calc/index.js';
import { parseCoordinate } from '../../calc/coordinates.js';
import type { CalcService } from '../calc-service.js';
import type { ExecutorOutcome, RunContext } from './executor.js';

/** Runs a link request (`request.target`, `request.body`) of the effect `context` names. */
export type LinkRunner = (request: JsonObject, context?: RunContext) => Promise<ExecutorOutcome>;

function failure(code: string, message: string): ExecutorOutcome {
  return { kind: 'failed', code: 'EFFECT_LINK_FAILED', message: `${code}: ${message}` };
}

/** What a CalcError from the target means for the link. */
function linkFailure(target: string, err: unknown): ExecutorOutcome {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof CalcError) {
    if (
      err.code === 'SCHEMA_VIOLATION' ||
      err.code === 'CONSTRAINT_VIOLATION' ||
      err.code === 'DERIVED_TARGET_WRITE'
    )
      return failure('target_rejected', `model '${target}' refused the value: ${message}`);
    if (err.code === 'BUSY') return failure('target_busy', `model '${target}' is busy: ${message}`);
    if (err.code === 'MODEL_NOT_FOUND')
      return failure('target_unresolved', `model '${target}' is not stored`);
  }
  return failure('transport_error', `the link to model '${target}' failed: ${message}`);
}

/**
 * The run's identity, the same when another process re-drives it: the source model, the effect,
 * the moment the run started (kept with the run's lease) and the request.
 */
function runId(request: JsonObject, context: RunContext | undefined): string {
  const identity = [context?.modelId ?? null, context?.effect?.id ?? null, context?.dueAt ?? null, request];
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 32);
}

/**
 * Whether the target's trail already has this run's write: a re-driven run whose first runner
 * was killed after the target committed, before the source heard back. The write and its audit
 * record commit together, so the trail is the truth; only re-driven runs pay for reading it.
 */
async function alreadyWritten(calc: CalcService, target: string, run: string): Promise<boolean> {
  const trail = await calc.store.auditRecords(target);
  for (let i = trail.length - 1; i >= 0; i--) {
    const r = trail[i]!;
    if (r.source === 'link' && r.origin?.run === run) return true;
  }
  return false;
}

/** The link runner over this process's models. */
export function localLinks(calc: CalcService): LinkRunner {
  return async (request, context) => {
    const target = isObject(request.target) ? request.target : {};
    const coordinate = parseCoordinate(target.ref);
    if (!coordinate) return failure('target_unresolved', `'${String(target.ref)}' is not a coordinate`);
    const id = coordinate.identity;
    try {
      if (typeof target.path === 'string') {
        const value: JsonValue = request.body === undefined ? null : request.body;
        // one cycle in the target, its audit record naming the link (and run) that wrote it;
        // exactly once: a re-driven run whose write is in the trail only reads the answer
        const run = runId(request, context);
        const origin: JsonObject = {
          model: context?.modelId ?? null,
          link: context?.effect?.id ?? null,
          run,
        };
        if (!(context?.redriven && (await alreadyWritten(calc, id, run))))
          await calc.mutate(id, { [target.path]: value }, { source: 'link', origin });
        return { kind: 'ok', response: await calc.getState(id), status: 200 };
      }
      if (typeof target.read === 'string')
        return { kind: 'ok', response: await calc.getField(id, target.read), status: 200 };
      return failure('transport_error', 'the target has neither path nor read');
    } catch (err) {
      return linkFailure(id, err);
    }
  };
}
