/**
 * The row loop of a loaded model: one random stream, the graph built on it, the root pulled once
 * per observation. `SynthRun` (run.ts) adds seed precedence and loading a plain model; a worker
 * thread of parallel generation builds this alone, so it loads neither the model parsers nor the
 * load phase (see prepared.ts).
 */
import { L64X128MixRandom } from '../random/l64x128-mix-random.js';
import type { Graph } from './loader.js';
import { buildGraph } from './loader.js';
import type { PreparedModel } from './prepared.js';
import { Row } from './row.js';
import { placeAtRow } from './row-identity.js';

/** A prepared model bound to a seed; `next()` yields observations in a reused row. */
export class GraphRun {
  readonly graph: Graph;
  readonly dimension: number;
  /** The run's one random stream (parallel generation saves and restores its state). */
  readonly random: L64X128MixRandom;
  private readonly row: Row;

  /** @throws SynthError when the graph cannot be built */
  constructor(
    /** The loaded model this run generates from (parallel generation builds its workers' runs from it). */
    readonly prepared: PreparedModel,
    seed: bigint,
    /**
     * The index, in the whole generation, of this run's first row (a partition's first row): the
     * nodes that number their observations (Sequence, ...) start where the single stream has
     * them at that row; the random stream is `seed`'s own, wherever the run starts.
     */
    readonly firstRow = 0,
  ) {
    this.random = new L64X128MixRandom(seed);
    // a loaded model carries every graph option (edition, outside data, formats, limits, …)
    this.graph = buildGraph(prepared.model, this.random, prepared);
    placeAtRow(prepared.model, this.graph, firstRow, () =>
      buildGraph(prepared.model, new L64X128MixRandom(seed), prepared),
    );
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
