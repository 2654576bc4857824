/**
 * A generation of many partitions, queued in PostgreSQL through pg-boss (10.x; 11 needs Node 22).
 * `enqueueGeneration` puts one job per partition (model text, seed, sink, shared column types) on
 * one pg-boss queue; any number of workers (`synth serve --worker`) take jobs one at a time,
 * write the partition to its sink and complete the job with who did it. A job whose worker died
 * expires and is retried; the sinks' writes are idempotent per partition, so the result does not
 * depend on which workers ran which partitions, nor on how often one was run.
 *
 * Job ids are derived from (generation, k), so sending a partition twice queues it once and the
 * status of a generation is K lookups; a small table keeps each generation's K and sink.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import PgBoss from 'pg-boss';
import type { Allowlists, Edition, PreparedModel } from '../../synth/index.js';
import { SynthRun, loadSynthModel, parseModel } from '../../synth/index.js';
import { realPorts } from '../index.js';
import { partitionRange, partitionSeed, type Partition } from '../partition.js';
import { COLUMN_TYPES, PROBE_ROWS, probeColumnTypes, type ColumnType } from '../sinks/sink.js';
import { generateToSink, openTarget, type SinkSpec } from '../sinks/target.js';

export const QUEUE_NAME = 'modelworks-synth-partitions';
const SCHEMA = 'modelworks_synth_queue';
/** Rows the shared column types are probed from, over all partitions together. */
const PROBE_BUDGET = 100_000;

/** What one partition job carries (pg-boss stores it as JSON). */
export interface PartitionJob {
  generation: string;
  index: number;
  count: number;
  /** Rows of the whole generation. */
  total: number;
  /** The run seed, in decimal. */
  seed: string;
  /** The model's text (XML, JSON or .sgm): workers on other machines need no copy of the file. */
  model: string;
  edition: Edition;
  sink: SinkSpec;
  types: ColumnType[];
}

export interface QueueOptions {
  /** postgres://… of the database holding the queue. */
  url: string;
  /** How often a worker looks for expired jobs (pg-boss maintenance), seconds. */
  superviseSeconds?: number;
}

/** A started pg-boss on our schema; errors go to `onError` (pg-boss emits them). */
export async function openQueue(opts: QueueOptions, onError: (err: Error) => void): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: opts.url,
    schema: SCHEMA,
    max: 4,
    application_name: 'modelworks synth',
    maintenanceIntervalSeconds: opts.superviseSeconds ?? 60,
    monitorStateIntervalSeconds: 600,
  });
  boss.on('error', onError);
  await boss.start();
  await boss.createQueue(QUEUE_NAME).catch(() => undefined); // exists already: fine
  const db = boss.getDb();
  await db.executeSql(
    `CREATE TABLE IF NOT EXISTS ${SCHEMA}.generation (id text PRIMARY KEY, partitions integer NOT NULL,
       sink jsonb NOT NULL, created_on timestamptz NOT NULL DEFAULT now())`,
    [],
  );
  return boss;
}

/** The job id of partition k of a generation: a UUID from SHA-256 of both. */
export function jobId(generation: string, index: number): string {
  const h = createHash('sha256').update(`${generation}\0${index}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** How models given as job text load: no folder, no working directory, the worker's allowlists. */
export async function loadJobModel(
  text: string,
  edition: Edition,
  allowlists: Allowlists,
  customComponentDirs: readonly string[] = [],
): Promise<PreparedModel> {
  return loadSynthModel(parseModel(text), {
    edition,
    allowlists,
    customComponentDirs,
    ports: realPorts(),
  });
}

/**
 * Column types every partition shares: kinds of the first rows of each partition, merged. With
 * `total` (rows of the whole generation), each partition is probed from its own first row, as its
 * job generates it (a table read in order gives other rows there).
 */
export function sharedTypes(
  prepared: PreparedModel,
  seed: bigint,
  partitions: number,
  total?: number,
): ColumnType[] {
  const rows = Math.max(1, Math.min(PROBE_ROWS, Math.floor(PROBE_BUDGET / partitions)));
  let types: ColumnType[] | undefined;
  for (let k = 1; k <= Math.min(partitions, PROBE_BUDGET); k++) {
    const first = total === undefined ? 0 : partitionRange(total, { index: k, count: partitions }).start;
    const next = probeColumnTypes(new SynthRun(prepared, partitionSeed(seed, k), {}, first), rows);
    types = types?.map((t, i) => (t === next[i] ? t : 'text')) ?? next;
  }
  return types ?? [];
}

export interface Generation {
  model: string;
  edition: Edition;
  seed: bigint;
  total: number;
  partitions: number;
  /** The sink of partition k (a table for all; a file each for Parquet). */
  sink: (index: number) => SinkSpec;
  types: ColumnType[];
  /** Seconds before a taken job counts as abandoned and is retried. */
  expireInSeconds: number;
  retryLimit: number;
}

/** Queues every partition of a generation; returns its id. */
export async function enqueueGeneration(boss: PgBoss, g: Generation): Promise<string> {
  const generation = `g-${randomBytes(6).toString('hex')}`;
  const db = boss.getDb();
  await db.executeSql(`INSERT INTO ${SCHEMA}.generation (id, partitions, sink) VALUES ($1, $2, $3)`, [
    generation,
    g.partitions,
    JSON.stringify(g.sink(1)),
  ]);
  const jobs: PgBoss.JobInsert<PartitionJob>[] = [];
  for (let index = 1; index <= g.partitions; index++)
    jobs.push({
      id: jobId(generation, index),
      name: QUEUE_NAME,
      data: {
        generation,
        index,
        count: g.partitions,
        total: g.total,
        seed: g.seed.toString(),
        model: g.model,
        edition: g.edition,
        sink: g.sink(index),
        types: g.types,
      },
      expireInSeconds: g.expireInSeconds,
      retryLimit: g.retryLimit,
      retryDelay: 1,
    });
  for (let i = 0; i < jobs.length; i += 1000) await boss.insert(jobs.slice(i, i + 1000));
  return generation;
}

export interface PartitionStatus {
  index: number;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed' | 'missing';
  retries: number;
  /** The worker that completed it, and the rows it wrote. */
  worker?: string;
  rows?: number;
  error?: string;
}

/**
 * Every partition's state, or undefined when there is no such generation.
 * @throws Error when the queue cannot be read
 */
export async function generationStatus(
  boss: PgBoss,
  generation: string,
): Promise<PartitionStatus[] | undefined> {
  const db = boss.getDb();
  const { rows } = await db.executeSql(`SELECT partitions FROM ${SCHEMA}.generation WHERE id = $1`, [
    generation,
  ]);
  const found = rows[0] as { partitions: number } | undefined;
  if (found === undefined) return undefined;
  const out: PartitionStatus[] = [];
  for (let index = 1; index <= found.partitions; index++) {
    const job = await boss.getJobById<PartitionJob>(QUEUE_NAME, jobId(generation, index), {
      includeArchive: true,
    });
    const output = (job?.output ?? {}) as { worker?: unknown; rows?: unknown; message?: unknown };
    out.push({
      index,
      state: job?.state ?? 'missing',
      retries: job?.retryCount ?? 0,
      ...(typeof output.worker === 'string' ? { worker: output.worker } : {}),
      ...(typeof output.rows === 'number' ? { rows: output.rows } : {}),
      ...(job?.state !== 'completed' && typeof output.message === 'string' ? { error: output.message } : {}),
    });
  }
  return out;
}

/** Checks a job's data is what we queue (it comes from a database others can write to). */
export function checkJob(data: unknown): PartitionJob {
  const d = data as Partial<Record<keyof PartitionJob, unknown>> | null;
  const int = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;
  const sink = d?.sink as Partial<{ kind: unknown; url: unknown; path: unknown }> | undefined;
  const sinkOk =
    (sink?.kind === 'postgres' && typeof sink.url === 'string') ||
    (sink?.kind === 'parquet' && typeof sink.path === 'string');
  if (
    d === null ||
    typeof d !== 'object' ||
    typeof d.generation !== 'string' ||
    !int(d.count, 1) ||
    !int(d.index, 1) ||
    d.index > d.count ||
    !int(d.total, 0) ||
    typeof d.seed !== 'string' ||
    !/^-?\d{1,20}$/.test(d.seed) ||
    typeof d.model !== 'string' ||
    (d.edition !== 'full' && d.edition !== 'free') ||
    !sinkOk ||
    !Array.isArray(d.types) ||
    !d.types.every((t) => COLUMN_TYPES.includes(t as ColumnType))
  )
    throw new Error('the job is not a modelworks partition job');
  return d as PartitionJob;
}

/** Writes one partition job to its sink; returns the rows written. */
export async function runPartitionJob(
  job: PartitionJob,
  allowlists: Allowlists,
  customComponentDirs: readonly string[] = [],
): Promise<number> {
  const open = openTarget(job.sink, allowlists);
  const prepared = await loadJobModel(job.model, job.edition, allowlists, customComponentDirs);
  const partition: Partition = { index: job.index, count: job.count };
  const { range } = await generateToSink(
    { prepared, seed: BigInt.asIntN(64, BigInt(job.seed)), total: job.total, partition, types: job.types },
    open,
  );
  return range.end - range.start;
}

export interface WorkerEvents {
  took(job: PartitionJob): void | Promise<void>;
  done(job: PartitionJob, rows: number): void;
  failed(job: PartitionJob | undefined, message: string): void;
}

/** This worker's name in job outputs: host and process id. */
export const WORKER_NAME = `${hostname()}:${process.pid}`;

/** Takes partition jobs one at a time until the queue is stopped. */
export async function startWorker(
  boss: PgBoss,
  allowlists: Allowlists,
  events: WorkerEvents,
  describe: (err: unknown) => string,
  customComponentDirs: readonly string[] = [],
): Promise<string> {
  return boss.work<unknown>(QUEUE_NAME, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
    let data: PartitionJob | undefined;
    try {
      data = checkJob(job!.data);
      await events.took(data);
      const rows = await runPartitionJob(data, allowlists, customComponentDirs);
      events.done(data, rows);
      return { worker: WORKER_NAME, rows };
    } catch (err) {
      const message = describe(err);
      events.failed(data, message);
      // pg-boss records the thrown error's message as the job's output and retries it
      throw new Error(message);
    }
  });
}
