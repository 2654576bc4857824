/**
 * The runs of a model not settled yet, as `get_model_info` shows them (issue 23): read from the
 * store's effect runs, so a run held by another process sharing the store shows too.
 */
import { isObject, type JsonValue } from '../../calc/index.js';
import type { Store } from '../../store/store.js';
import type { CalcModelApi, ModelStatus } from '../calc-api.js';
import type { CompositionInfo } from '../calc-composition.js';
import { CalcService } from '../calc-service.js';
import { effectLeasesOf } from './runner.js';

export interface PendingEffect {
  effectId: string;
  statusPath: string | null;
  key: JsonValue;
  /** When it is due (a timer's fire time), ISO-8601. */
  dueAt: string;
  /** Whether a live process holds it now (false: waiting to be taken up again). */
  leased: boolean;
}

export async function pendingEffects(store: Store, modelId: string): Promise<PendingEffect[]> {
  const rows = await effectLeasesOf(store).pending(modelId);
  const now = Date.now();
  const out: PendingEffect[] = [];
  for (const row of rows) {
    let job: unknown;
    try {
      job = JSON.parse(row.job);
    } catch {
      continue;
    }
    if (!isObject(job) || typeof job.effectId !== 'string') continue;
    out.push({
      effectId: job.effectId,
      statusPath: typeof job.statusPath === 'string' ? job.statusPath : null,
      key: (job.key ?? null) as JsonValue,
      dueAt: new Date(row.dueAt).toISOString(),
      leased: row.owner !== null && row.expiresAt >= now,
    });
  }
  return out;
}

/**
 * A model's info (`get_model_info`, `GET /models/{id}`) with, beside it, the effect runs not settled
 * yet and its composition (lineage, links, inherited effects awaiting approval) — each only when
 * there is some, and only where this process sees the store. A client of another server
 * (`mcp --url`) passes on what that server answered, all of these included.
 */
export async function modelInfoWithPendingEffects(
  service: CalcModelApi,
  id: string,
): Promise<ModelStatus & { pendingEffects?: PendingEffect[] } & CompositionInfo> {
  const info = await service.getModelInfo(id);
  if (!(service instanceof CalcService)) return info;
  const pending = await pendingEffects(service.store, id);
  const composition = await service.compositionInfo(id);
  return pending.length > 0
    ? { ...info, pendingEffects: pending, ...composition }
    : { ...info, ...composition };
}
