/**
 * What the queued generation commands run: `synth enqueue`, `synth status` and
 * `synth serve --worker` (see src/synth-io/queue/queue.ts and docs/scale.md).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type PgBoss from 'pg-boss';
import { parseModel, resolveSeed, type Edition } from '../synth/index.js';
import { customComponentDirs, loadAllowlists } from '../service/synth-allowlists.js';
import { SinkError } from '../synth-io/sinks/sink.js';
import {
  WORKER_NAME,
  enqueueGeneration,
  generationStatus,
  loadJobModel,
  openQueue,
  sharedTypes,
  startWorker,
  type PartitionStatus,
} from '../synth-io/queue/queue.js';
import type { SinkSpec } from '../synth-io/sinks/target.js';
import { openTarget } from '../synth-io/sinks/target.js';
import { EXIT, reportFailure } from './cli-errors.js';
import { failureText } from './synth-failure.js';

export interface EnqueueOptions {
  queue?: string;
  count: number;
  partitions: number;
  seed?: bigint;
  to?: string;
  format?: string;
  output?: string;
  edition: Edition;
  jobExpiry: number;
  retries: number;
  quiet: boolean;
}

const PREFIX = 'modelworks synth';

function fail(message: string, code: number, err?: unknown): void {
  reportFailure(PREFIX, message, err);
  process.exitCode = code;
}

function messageOf(err: unknown, action: string): string {
  return err instanceof SinkError ? err.message : failureText(err, action);
}

function queueUrl(given: string | undefined): string | undefined {
  return given ?? (process.env.MODELWORKS_SYNTH_QUEUE_URL?.trim() || undefined);
}

/** A started queue, or undefined after saying why not. */
async function queue(given: string | undefined, superviseSeconds?: number): Promise<PgBoss | undefined> {
  const url = queueUrl(given);
  if (url === undefined) {
    fail('give --queue postgres://… (or set MODELWORKS_SYNTH_QUEUE_URL)', EXIT.usage);
    return undefined;
  }
  try {
    return await openQueue({ url, superviseSeconds }, (err) =>
      process.stderr.write(`${PREFIX}: queue: ${failureText(err, 'use the queue')}\n`),
    );
  } catch (err) {
    fail(failureText(err, 'open the queue'), EXIT.failed, err);
    return undefined;
  }
}

function sinkOf(opts: EnqueueOptions, partitions: number): ((k: number) => SinkSpec) | string {
  if ((opts.to === undefined) === (opts.format === undefined))
    return 'give --to postgres://…/table or --format parquet --output <folder>';
  if (opts.to !== undefined) return () => ({ kind: 'postgres', url: opts.to! });
  if (opts.format !== 'parquet') return '--format takes parquet here';
  if (opts.output === undefined || !isAbsolute(opts.output))
    return '--format parquet needs an absolute --output folder';
  const width = String(partitions).length;
  const dir = opts.output;
  return (k) => ({
    kind: 'parquet',
    path: join(dir, `part-${String(k).padStart(width, '0')}-of-${partitions}.parquet`),
  });
}

export async function enqueue(modelPath: string, opts: EnqueueOptions): Promise<void> {
  const sink = sinkOf(opts, opts.partitions);
  if (typeof sink === 'string') return fail(sink, EXIT.usage);
  let text: string;
  let prepared;
  let seed: bigint;
  try {
    text = readFileSync(modelPath, 'utf8');
    const allowlists = loadAllowlists();
    // checked here too, so a refused target fails now rather than in every job
    openTarget(sink(1), allowlists);
    // loaded as the workers will: as text, with no folder of its own
    prepared = await loadJobModel(text, opts.edition, allowlists, customComponentDirs());
    const fresh = () => randomBytes(8).readBigUInt64BE() >> 1n || 1n;
    seed = resolveSeed(opts.seed, parseModel(text), fresh).seed;
  } catch (err) {
    return fail(messageOf(err, `read ${modelPath}`), EXIT.usage, err);
  }
  const types = sharedTypes(prepared, seed, opts.partitions, opts.count);
  const boss = await queue(opts.queue);
  if (boss === undefined) return;
  try {
    const generation = await enqueueGeneration(boss, {
      model: text,
      edition: opts.edition,
      seed,
      total: opts.count,
      partitions: opts.partitions,
      sink,
      types,
      expireInSeconds: opts.jobExpiry,
      retryLimit: opts.retries,
    });
    process.stdout.write(`${generation}\n`);
    if (!opts.quiet)
      process.stderr.write(
        `Queued ${opts.partitions} partition(s) of ${opts.count} observation(s), seed ${seed}, columns ${types.join(', ')}\n`,
      );
  } catch (err) {
    fail(failureText(err, 'queue the generation'), EXIT.failed, err);
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

function line(p: PartitionStatus, count: number): string {
  const extra = [
    p.worker ? `by ${p.worker}` : '',
    p.rows !== undefined ? `${p.rows} rows` : '',
    p.retries > 0 ? `${p.retries} retr${p.retries === 1 ? 'y' : 'ies'}` : '',
    p.error ?? '',
  ].filter(Boolean);
  return `${p.index}/${count} ${p.state}${extra.length ? ` (${extra.join(', ')})` : ''}\n`;
}

export async function status(generation: string, opts: { queue?: string; json: boolean }): Promise<void> {
  const boss = await queue(opts.queue);
  if (boss === undefined) return;
  try {
    const parts = await generationStatus(boss, generation);
    if (parts === undefined)
      return fail(`no generation ${JSON.stringify(generation)} in this queue`, EXIT.usage);
    const tally = new Map<string, number>();
    for (const p of parts) tally.set(p.state, (tally.get(p.state) ?? 0) + 1);
    const summary = Object.fromEntries(tally);
    if (opts.json) process.stdout.write(JSON.stringify({ generation, summary, partitions: parts }) + '\n');
    else {
      for (const p of parts) process.stdout.write(line(p, parts.length));
      process.stdout.write(`${[...tally].map(([s, n]) => `${n} ${s}`).join(', ')}\n`);
    }
    if (parts.some((p) => p.state === 'failed')) process.exitCode = EXIT.failed;
  } catch (err) {
    fail(failureText(err, 'read the queue'), EXIT.failed, err);
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

export interface WorkerOptions {
  queue?: string;
  superviseInterval: number;
}

const log = (message: string): void => void process.stderr.write(`${PREFIX} worker: ${message}\n`);

/** `synth serve --worker`: takes partition jobs until SIGINT/SIGTERM, then finishes the one it holds. */
export async function runSynthWorker(opts: WorkerOptions): Promise<void> {
  let allowlists;
  let dirs: string[];
  try {
    allowlists = loadAllowlists();
    dirs = customComponentDirs();
  } catch (err) {
    return fail(failureText(err, 'read the synth settings'), EXIT.usage, err);
  }
  const boss = await queue(opts.queue, opts.superviseInterval);
  if (boss === undefined) return;
  // test seam (docs/scale.md): hold the first job taken, so a test can kill a worker that holds one
  const hold = process.env.MODELWORKS_SYNTH_WORKER_TEST_HOLD === '1';
  const part = (j: { index: number; count: number; generation: string }) =>
    `partition ${j.index}/${j.count} of ${j.generation}`;
  await startWorker(
    boss,
    allowlists,
    {
      took: async (job) => {
        log(`took ${part(job)}`);
        if (hold) await new Promise<never>(() => undefined);
      },
      done: (job, rows) => log(`done ${part(job)} (${rows} rows)`),
      failed: (job, message) => log(`failed ${job ? part(job) : 'a job'}: ${message}`),
    },
    (err) => messageOf(err, 'generate'),
    dirs,
  );
  log(`${WORKER_NAME} waiting for partitions`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing the partition in hand`);
    void boss.stop({ graceful: true, wait: true, timeout: 60_000 }).then(() => log('stopped'));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
