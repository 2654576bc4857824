/**
 * What a simulation keeps of its runs, in memory that does not grow with them: exact count, mean,
 * standard deviation (Welford's update), min and max; percentiles from a DDSketch (relative error
 * bound, @datadog/sketches-js); and a uniform reservoir of at most SAMPLE_SIZE runs (inputs and
 * outputs together) for the histograms and the rank correlations, which need whole runs. Up to
 * SAMPLE_SIZE runs the reservoir holds every run and those figures are exact.
 */
import { DDSketch } from '@datadog/sketches-js';
import { sampleRankCorrelation } from 'simple-statistics';

/** Runs kept for histograms and rank correlations. */
export const SAMPLE_SIZE = 10_000;
/** Bins of an output's histogram. */
export const HISTOGRAM_BINS = 20;
/** The percentiles' relative accuracy (0.5 %: the 95th of 200 is between 199 and 201). */
const RELATIVE_ACCURACY = 0.005;

export interface OutputSummary {
  count: number;
  mean: number | null;
  stdDev: number | null;
  min: number | null;
  max: number | null;
  percentiles: Record<string, number | null>;
  histogram: { edges: number[]; counts: number[]; sampled: number };
  /** Runs where the output was not a finite number (text, null, missing). */
  nonNumeric: number;
}

/** One output's running figures. */
class OutputStats {
  count = 0;
  nonNumeric = 0;
  private mean = 0;
  private m2 = 0;
  private min = Infinity;
  private max = -Infinity;
  private readonly sketch = new DDSketch({ relativeAccuracy: RELATIVE_ACCURACY });

  add(value: unknown): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.nonNumeric++;
      return NaN;
    }
    this.count++;
    const delta = value - this.mean;
    this.mean += delta / this.count;
    this.m2 += delta * (value - this.mean);
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    this.sketch.accept(value);
    return value;
  }

  summary(percentiles: readonly number[], sample: readonly number[]): OutputSummary {
    const n = this.count;
    const pct: Record<string, number | null> = {};
    for (const p of percentiles) {
      // the sketch's answer, kept inside what was seen (its bins are wider than the range at the ends)
      const v = n > 0 ? this.sketch.getValueAtQuantile(p / 100) : null;
      pct[String(p)] = v === null ? null : Math.min(this.max, Math.max(this.min, v));
    }
    return {
      count: n,
      mean: n > 0 ? this.mean : null,
      stdDev: n > 1 ? Math.sqrt(this.m2 / (n - 1)) : null,
      min: n > 0 ? this.min : null,
      max: n > 0 ? this.max : null,
      percentiles: pct,
      histogram: histogram(sample, n > 0 ? this.min : 0, n > 0 ? this.max : 0),
      nonNumeric: this.nonNumeric,
    };
  }
}

/** Equal-width bins from min to max over the sampled values (finite ones). */
function histogram(sample: readonly number[], min: number, max: number): OutputSummary['histogram'] {
  const values = sample.filter((v) => Number.isFinite(v));
  const bins = max > min ? HISTOGRAM_BINS : 1;
  const width = (max - min) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? max : min + i * width));
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) {
    const i = width > 0 ? Math.min(bins - 1, Math.floor((v - min) / width)) : 0;
    counts[Math.max(0, i)]!++;
  }
  return { edges, counts, sampled: values.length };
}

/** A deterministic uniform sample of runs (Algorithm R), drawing from its own seeded source. */
class Reservoir {
  private seen = 0;
  readonly rows: Float64Array[] = [];
  constructor(
    private readonly width: number,
    private readonly uniform: () => number,
  ) {}

  /** Keeps the run (`values` is copied) with probability SAMPLE_SIZE / runs seen. */
  offer(values: ArrayLike<number>): void {
    this.seen++;
    let slot = this.rows.length;
    if (slot >= SAMPLE_SIZE) {
      slot = Math.floor(this.uniform() * this.seen);
      if (slot >= SAMPLE_SIZE) return;
    }
    const row = this.rows[slot] ?? new Float64Array(this.width);
    for (let i = 0; i < this.width; i++) row[i] = values[i]!;
    this.rows[slot] = row;
  }

  column(i: number): number[] {
    return this.rows.map((r) => r[i]!);
  }
}

/**
 * Spearman's rho of two sampled columns over the runs where both are finite numbers; null when
 * fewer than three such runs or either column is constant there.
 */
function rankCorrelation(x: number[], y: number[]): number | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < x.length; i++) {
    if (Number.isFinite(x[i]) && Number.isFinite(y[i])) {
      xs.push(x[i]!);
      ys.push(y[i]!);
    }
  }
  if (xs.length < 3) return null;
  const rho = sampleRankCorrelation(xs, ys);
  return Number.isFinite(rho) ? rho : null;
}

/** Everything a simulation accumulates about its committed runs. */
export class RunStatistics {
  private readonly outputs: OutputStats[];
  private readonly reservoir: Reservoir;
  private readonly row: Float64Array;

  constructor(
    readonly inputPaths: readonly string[],
    readonly outputPaths: readonly string[],
    uniform: () => number,
  ) {
    this.outputs = outputPaths.map(() => new OutputStats());
    this.row = new Float64Array(inputPaths.length + outputPaths.length);
    this.reservoir = new Reservoir(this.row.length, uniform);
  }

  /** One committed run: its input values and its outputs' values. */
  add(inputs: readonly (number | string)[], outputs: readonly unknown[]): void {
    const k = this.inputPaths.length;
    for (let i = 0; i < k; i++) {
      const v = inputs[i];
      this.row[i] = typeof v === 'number' ? v : NaN;
    }
    for (let j = 0; j < outputs.length; j++) this.row[k + j] = this.outputs[j]!.add(outputs[j]);
    this.reservoir.offer(this.row);
  }

  summaries(percentiles: readonly number[]): Record<string, OutputSummary> {
    const out: Record<string, OutputSummary> = Object.create(null) as Record<string, OutputSummary>;
    const k = this.inputPaths.length;
    this.outputPaths.forEach((path, j) => {
      out[path] = this.outputs[j]!.summary(percentiles, this.reservoir.column(k + j));
    });
    return out;
  }

  /** Output path → input path → Spearman's rho, inputs by decreasing |rho| (tornado order). */
  sensitivity(): Record<string, Record<string, number | null>> {
    const out: Record<string, Record<string, number | null>> = Object.create(null) as Record<
      string,
      Record<string, number | null>
    >;
    const k = this.inputPaths.length;
    const inputs = this.inputPaths.map((_, i) => this.reservoir.column(i));
    this.outputPaths.forEach((path, j) => {
      const y = this.reservoir.column(k + j);
      const pairs = this.inputPaths.map((p, i) => [p, rankCorrelation(inputs[i]!, y)] as const);
      pairs.sort((a, b) => Math.abs(b[1] ?? 0) - Math.abs(a[1] ?? 0));
      const row = Object.create(null) as Record<string, number | null>;
      for (const [p, rho] of pairs) row[p] = rho;
      out[path] = row;
    });
    return out;
  }
}
