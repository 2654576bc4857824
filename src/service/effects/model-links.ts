/**
 * Links between models run in this process (issue 41; valem-parity.md §1.3): a `server` effect
 * whose `target` names another stored model. A write-link mutates the target with
 * `{target.path: body}` and answers the target's whole merged state after that commit as
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
import { CalcError, isObject, type JsonObject, type JsonValue } from '../../calc/index.js';
import { parseCoordinate } from '../../calc/coordinates.js';
import type { CalcService } from '../calc-service.js';
import type { ExecutorOutcome } from './executor.js';

/** Runs a link request (`request.target`, `request.body`). */
export type LinkRunner = (request: JsonObject) => Promise<ExecutorOutcome>;

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

/** The link runner over this process's models. */
export function localLinks(calc: CalcService): LinkRunner {
  return async (request) => {
    const target = isObject(request.target) ? request.target : {};
    const coordinate = parseCoordinate(target.ref);
    if (!coordinate) return failure('target_unresolved', `'${String(target.ref)}' is not a coordinate`);
    const id = coordinate.identity;
    try {
      if (typeof target.path === 'string') {
        const value: JsonValue = request.body === undefined ? null : request.body;
        await calc.mutate(id, { [target.path]: value });
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
