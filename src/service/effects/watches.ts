/**
 * Watched read-links (issue 41; valem-parity.md §1.3 "Watch"): after the first fold of a read-link
 * with `target.watch: true`, every later change of the target pushes the target's field into the
 * source through the effect's `response.set`, without running the link again. The watch ends
 * when the source is deleted or an evolution drops the effect or its `watch`, and when the runner
 * stops. A change made by another process reaches it through the store's change feed (the
 * service's `changed` event), like any subscriber's.
 */
import { isObject, type Effect, type JsonValue, type ModelRuntime } from '../../calc/index.js';
import { parseCoordinate } from '../../calc/coordinates.js';
import type { CalcService } from '../calc-service.js';
import { responseValues } from './lifecycle.js';

type SourceWrite = (
  modelId: string,
  decide: (runtime: ModelRuntime) => Promise<Record<string, unknown>>,
) => Promise<void>;

/** Whether an effect is a watched read-link. */
export function isWatch(effect: Effect): boolean {
  const t = effect.target;
  return isObject(t) && t.watch === true && typeof t.read === 'string';
}

export class LinkWatches {
  /** `source#effect` → what ends the watch. */
  private readonly open = new Map<string, () => void>();

  constructor(
    private readonly calc: CalcService,
    private readonly write: SourceWrite,
    private readonly warn: (message: string) => void,
  ) {}

  /** Watches are open now (tests). */
  get size(): number {
    return this.open.size;
  }

  /** Starts following the target of `effect` for model `sourceId`, unless it already is. */
  ensure(sourceId: string, effect: Effect): void {
    const key = `${sourceId}#${effect.id}`;
    if (this.open.has(key) || !isWatch(effect)) return;
    const target = parseCoordinate(effect.target!.ref)?.identity;
    if (target === undefined) return;
    const read = effect.target!.read as string;
    const set = effect.response?.set ?? {};
    let chain = Promise.resolve();
    const push = (): void => {
      chain = chain
        .then(async () => {
          const value: JsonValue = await this.calc.getField(target, read);
          await this.write(sourceId, async (runtime) => {
            const r = await responseValues(runtime, set, { response: value, status: 200 });
            if (!r.ok) throw new Error(r.error.message);
            return r.values;
          });
        })
        .catch((err: unknown) =>
          this.warn(
            `watch ${effect.id} of model '${sourceId}' on '${target}': ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
    };
    const offTarget = this.calc.subscribe(target, (event) => {
      if (event.kind !== 'deleted') push();
    });
    const offSource = this.calc.subscribe(sourceId, (event) => {
      if (event.kind === 'deleted') this.close(key);
      else if (event.kind === 'spec-evolved' || event.kind === 'restored' || event.kind === 'changed')
        void this.stillWatched(sourceId, effect.id).then((yes) => {
          if (!yes) this.close(key);
        });
    });
    this.open.set(key, () => {
      offTarget();
      offSource();
    });
  }

  /** Whether the source still has the effect as a watched read-link. */
  private async stillWatched(sourceId: string, effectId: string): Promise<boolean> {
    try {
      const spec = await this.calc.getSpec(sourceId);
      const effect = spec.effects.find((e) => e.id === effectId);
      return effect !== undefined && isWatch(effect);
    } catch {
      return false;
    }
  }

  private close(key: string): void {
    this.open.get(key)?.();
    this.open.delete(key);
  }

  /** Ends every watch (the runner stops). */
  closeAll(): void {
    for (const key of [...this.open.keys()]) this.close(key);
  }
}
