/**
 * The parts of `modelworks synth grind` issue 26 added: `--partition k/K` (that partition's own
 * stream and rows) and the sinks (`--format parquet --output f`, `--to postgres://…/table`).
 * synth-actions.ts calls in here; loaded only when one of those options is given.
 */
import { performance } from 'node:perf_hooks';
import type { PreparedModel, resolveSeed } from '../synth/index.js';
import { SynthError } from '../synth/index.js';
import { loadAllowlists } from '../service/synth-allowlists.js';
import { partitionRange, partitionSeed, type Partition } from '../synth-io/partition.js';
import { SinkError } from '../synth-io/sinks/sink.js';
import { generateToSink, openTarget, type SinkSpec } from '../synth-io/sinks/target.js';
import { EXIT, reportFailure } from './cli-errors.js';
import { rowProgress } from './progress.js';
import { failureText } from './synth-failure.js';

type SeedInfo = ReturnType<typeof resolveSeed>;

const PREFIX = 'modelworks synth grind';

/**
 * The grind options this module reads (a slice of synth-actions' GrindOptions, declared here so the
 * two modules do not import each other).
 */
interface SinkGrindOptions {
  count: number;
  format: string;
  output?: string | undefined;
  to?: string | undefined;
  partition?: Partition | undefined;
  quiet: boolean;
}

function fail(message: string, code: number, err?: unknown): void {
  reportFailure(PREFIX, message, err);
  process.exitCode = code;
}

/** Our sink errors' messages as written; anything else as the synth commands word it. */
function messageOf(err: unknown, action: string): string {
  return err instanceof SinkError ? err.message : failureText(err, action);
}

function announceSeed(seedInfo: SeedInfo, quiet: boolean): void {
  if (!quiet && seedInfo.seedSource === 'random')
    process.stderr.write(`Using random seed ${seedInfo.seed}\n`);
}

/**
 * A text grind of one partition: the partition's stream seed, its row count and its first row in
 * the whole generation (where its Sequence ids and time steps go on from). The run seed is
 * announced here (the derived one would not reproduce the run), so the caller's copy says nothing.
 */
export function partitionSlice(
  seedInfo: SeedInfo,
  partition: Partition,
  total: number,
  quiet: boolean,
): { seedInfo: SeedInfo; count: number; firstRow: number } {
  announceSeed(seedInfo, quiet);
  const { start, end } = partitionRange(total, partition);
  return {
    seedInfo: { seed: partitionSeed(seedInfo.seed, partition.index), seedSource: 'cli' },
    count: end - start,
    firstRow: start,
  };
}

function sinkSpec(opts: SinkGrindOptions): SinkSpec | string {
  if (opts.to !== undefined) {
    if (opts.format !== 'csv') return '--to writes a PostgreSQL table: give it without --format';
    if (opts.output !== undefined) return 'give --to or --output, not both';
    return { kind: 'postgres', url: opts.to };
  }
  if (opts.output === undefined) return '--format parquet writes a file: give --output <file>';
  return { kind: 'parquet', path: opts.output };
}

/** A sink failure's exit: a refused or malformed target is bad input (2), a failed write 1. */
function sinkExit(err: unknown): number {
  return err instanceof SinkError && err.code === 'SINK_TARGET' ? EXIT.usage : EXIT.failed;
}

/** `grind --format parquet --output f` or `grind --to postgres://…/table`. */
export async function grindToSink(
  prepared: { prepared: PreparedModel; seedInfo: SeedInfo },
  opts: SinkGrindOptions,
): Promise<void> {
  const spec = sinkSpec(opts);
  if (typeof spec === 'string') return fail(spec, EXIT.usage);
  const where =
    spec.kind === 'postgres' ? `table ${spec.url.slice(spec.url.lastIndexOf('/') + 1)}` : spec.path;
  let open;
  try {
    open = openTarget(spec, loadAllowlists(), process.cwd());
  } catch (err) {
    return fail(messageOf(err, 'check the target'), EXIT.usage, err);
  }
  announceSeed(prepared.seedInfo, opts.quiet);
  const total = opts.partition ? partitionRange(opts.count, opts.partition) : { start: 0, end: opts.count };
  const rows = total.end - total.start;
  const progress = await rowProgress(rows, { enabled: !opts.quiet });
  const started = performance.now();
  // Ctrl-C or a TERM stops between batches and aborts the sink: no half file, no temporary left
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => stop.abort(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await generateToSink(
      {
        prepared: prepared.prepared,
        seed: prepared.seedInfo.seed,
        total: opts.count,
        partition: opts.partition,
        onProgress: (n) => progress.update(n),
        signal: stop.signal,
      },
      open,
    );
  } catch (err) {
    progress.stop();
    if (stop.signal.aborted) {
      const signal = stop.signal.reason as NodeJS.Signals;
      return fail(`stopped by ${signal}; nothing was written to ${where}`, signal === 'SIGINT' ? 130 : 143);
    }
    const message = messageOf(err, `write ${where}`);
    const exit = err instanceof SynthError ? EXIT.failed : sinkExit(err);
    return fail(`${message}; nothing was written`, exit, err);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  progress.stop();
  if (!opts.quiet) {
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`Wrote ${rows} observation(s) to ${where} in ${seconds.toFixed(3)}s\n`);
  }
}
