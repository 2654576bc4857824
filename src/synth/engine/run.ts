/** A generation run: seed precedence, one shared RNG, and the root pulled once per observation. */
import type { SynthModel } from '../model/types.js';
import { L64X128MixRandom } from '../random/l64x128-mix-random.js';
import type { Graph } from './loader.js';
import { buildGraph } from './loader.js';
import type { LoadOptions } from './prepare.js';
import { PreparedModel, prepareModel } from './prepare.js';
import { Row } from './row.js';

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
export class SynthRun {
  readonly graph: Graph;
  readonly dimension: number;
  /** The loaded model this run generates from (parallel generation builds its workers' runs from it). */
  readonly prepared: PreparedModel;
  /** The run's one random stream (parallel generation saves and restores its state). */
  readonly random: L64X128MixRandom;
  private readonly row: Row;

  /**
   * A run of a prepared model (see `loadSynthModel`), or of a plain model loaded synchronously
   * with `options` (enough for every model without databases or services).
   * @throws SynthError when the model does not load or validate
   */
  constructor(model: SynthModel | PreparedModel, seed: bigint, options: LoadOptions = {}) {
    const prepared = model instanceof PreparedModel ? model : prepareModel(model, options);
    this.prepared = prepared;
    this.random = new L64X128MixRandom(seed);
    this.graph = buildGraph(prepared.model, this.random, {
      edition: prepared.edition,
      outside: prepared.outside,
      formats: prepared.formats,
      limits: prepared.limits,
      customs: prepared.customs,
      components: prepared.components,
    });
    this.dimension = this.graph.root.dimension;
    this.row = new Row(this.dimension);
  }

  /** Column names: dim0 ... dim{n-1}. */
  header(): string[] {
    return Array.from({ length: this.dimension }, (_, i) => `dim${i}`);
  }

  /** The next observation; the returned row is overwritten by the following call. */
  next(): Row {
    this.graph.root.next(this.row, 0);
    return this.row;
  }
}
