/** A generation run: seed precedence, and the row loop of graph-run.ts over a model loaded on the spot. */
import type { SynthModel } from '../model/types.js';
import { GraphRun } from './graph-run.js';
import type { LoadOptions } from './prepare.js';
import { PreparedModel, prepareModel } from './prepare.js';

/** Where the effective seed came from. */
export type SeedSource = 'cli' | 'model' | 'random';

/**
 * Seed precedence (§2): an explicit seed, else the model's seed when > 0 (unless ignored), else a
 * fresh one from `fresh`.
 */
export function resolveSeed(
  explicit: bigint | undefined,
  model: SynthModel,
  fresh: () => bigint,
  ignoreModelSeed = false,
): { seed: bigint; seedSource: SeedSource } {
  if (explicit !== undefined) return { seed: explicit, seedSource: 'cli' };
  if (!ignoreModelSeed && model.seed !== undefined && /^\s*[-+]?\d+\s*$/.test(model.seed)) {
    const s = BigInt(model.seed.trim());
    if (s > 0n) return { seed: BigInt.asIntN(64, s), seedSource: 'model' };
  }
  return { seed: fresh(), seedSource: 'random' };
}

/** A loaded model bound to a seed; `next()` yields observations in a reused row. */
export class SynthRun extends GraphRun {
  /**
   * A run of a prepared model (see `loadSynthModel`), or of a plain model loaded synchronously
   * with `options` (enough for every model without databases or services). `firstRow`: see
   * GraphRun (a partition's first row in the whole generation).
   * @throws SynthError when the model does not load or validate
   */
  constructor(model: SynthModel | PreparedModel, seed: bigint, options: LoadOptions = {}, firstRow = 0) {
    super(model instanceof PreparedModel ? model : prepareModel(model, options), seed, firstRow);
  }
}
