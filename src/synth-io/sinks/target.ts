/**
 * Sink targets as surfaces name them (`--format parquet --output f`, `--to postgres://…/table`, a
 * queued job's sink), the allowlist checks they pass, and one generation written to one target.
 *
 * Outside data is allowlisted as for reads: a PostgreSQL table's database must be on the database
 * URL allowlist, and a Parquet file's folder (symlinks resolved) inside the working directory (the
 * CLI's own runs only) or a folder listed on the flat-file path allowlist.
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { Allowlists, PreparedModel } from '../../synth/index.js';
import { SynthRun } from '../../synth/index.js';
import { FLATFILE_SETTING, isInside } from '../../synth/access/paths.js';
import { databaseUrlRefusal } from '../../synth/access/urls.js';
import { nodeFilePort } from '../files.js';
import { outputTarget } from '../output-target.js';
import { partitionRange, partitionSeed, type Partition, type RowRange } from '../partition.js';
import { parquetFileSink } from './parquet.js';
import { parsePostgresTarget, postgresTableSink } from './postgres.js';
import type { ColumnType, SinkColumn, SinkFactory } from './sink.js';
import { SinkError, writeRows } from './sink.js';

export type SinkSpec = { kind: 'parquet'; path: string } | { kind: 'postgres'; url: string };

/**
 * The factory for a target, after its allowlist check.
 * @param cwd the working directory a Parquet file may also be written under (the CLI's); none for queued jobs
 * @throws SinkError SINK_TARGET when the target is malformed or refused
 */
export function openTarget(spec: SinkSpec, allowlists: Allowlists, cwd?: string): SinkFactory {
  if (spec.kind === 'postgres') {
    const target = parsePostgresTarget(spec.url);
    const refusal = databaseUrlRefusal(target.databaseUrl, allowlists.databaseUrlAllowlist, nodeFilePort);
    if (refusal !== undefined) throw new SinkError('SINK_TARGET', `--to: ${refusal}`);
    return postgresTableSink(target);
  }
  return parquetFileSink(allowedOutputFile(spec.path, allowlists, cwd));
}

/**
 * The absolute path of an output file whose folder passes the allowlist. A symlink is written
 * through (output-target.ts), so the folder checked is its target's: a link in an allowed folder
 * does not lead a write outside it. The CLI's own runs may also name its standard streams.
 */
function allowedOutputFile(path: string, allowlists: Allowlists, cwd?: string): string {
  if (cwd !== undefined && STANDARD_STREAMS.has(path)) return path;
  if (cwd === undefined && !isAbsolute(path))
    throw new SinkError('SINK_TARGET', `the output path "${path}" must be absolute here`);
  const named = resolve(cwd ?? '/', path);
  let file = named;
  try {
    file = outputTarget(named).path;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    throw new SinkError('SINK_TARGET', `cannot write ${named} (${code})`);
  }
  const folder = nodeFilePort.realpath(dirname(file));
  if (folder === undefined) throw new SinkError('SINK_TARGET', `the folder of ${file} does not exist`);
  const roots = [
    ...(cwd === undefined ? [] : [cwd]),
    ...allowlists.flatFilePathAllowlist.filter((p) => isAbsolute(p)),
  ].map((p) => nodeFilePort.realpath(p) ?? resolve(p));
  if (!roots.some((r) => isInside(folder, r)))
    throw new SinkError(
      'SINK_TARGET',
      `writing ${file}${file === named ? '' : ` (where ${named} leads)`} is refused: its folder is outside ${cwd === undefined ? '' : 'the working directory and '}every folder in ${FLATFILE_SETTING}`,
    );
  return resolve(folder, basename(file));
}

const STANDARD_STREAMS = new Set(['-', '/dev/stdout', '/dev/stderr']);

/** One generation (or one partition of it) to write. */
export interface SinkRun {
  prepared: PreparedModel;
  /** The run seed; a partition draws from its own stream derived from it. */
  seed: bigint;
  /** Rows of the whole generation (all partitions together). */
  total: number;
  partition?: Partition;
  /** Shared column types (queued partitions); probed from the first rows when absent. */
  types?: readonly ColumnType[];
  onProgress?: (rows: number) => void;
  /** Stops the run between batches; nothing is written (a file's temporary is removed). */
  signal?: AbortSignal;
}

/** The rows and the stream seed of a run: the whole run, or one partition of it. */
export function runSlice(run: Pick<SinkRun, 'seed' | 'total' | 'partition'>): {
  range: RowRange;
  seed: bigint;
} {
  if (run.partition === undefined) return { range: { start: 0, end: run.total }, seed: run.seed };
  return {
    range: partitionRange(run.total, run.partition),
    seed: partitionSeed(run.seed, run.partition.index),
  };
}

/** Writes the run to the sink, all or nothing; returns the columns written and the row range. */
export async function generateToSink(
  run: SinkRun,
  open: SinkFactory,
): Promise<{ columns: SinkColumn[]; range: RowRange }> {
  const { range, seed } = runSlice(run);
  const columns = await writeRows({
    // a partition's row-indexed columns (Sequence, ...) go on from the rows before it
    newRun: () => new SynthRun(run.prepared, seed, {}, range.start),
    range,
    open,
    types: run.types,
    onProgress: run.onProgress,
    signal: run.signal,
  });
  return { columns, range };
}
