/**
 * Acceptance 4 of issue 26: three worker processes on one PostgreSQL queue, twelve partitions, one
 * worker killed (SIGKILL) while it holds a job. Every partition is produced exactly once, the killed
 * worker's partition by another worker after its job expired, and the table equals a
 * single-process run of the same twelve partitions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_ALLOWLISTS } from '../../src/synth/index.js';
import {
  openQueue,
  enqueueGeneration,
  generationStatus,
  loadJobModel,
  sharedTypes,
} from '../../src/synth-io/queue/queue.js';
import { generateToSink, openTarget } from '../../src/synth-io/sinks/target.js';

const BASE_URL = process.env.MODELWORKS_TEST_POSTGRES_URL;
const suffix = Math.random().toString(36).slice(2, 8);
const DB = `mw_queue_${suffix}`;
const url = BASE_URL?.replace(/\/[^/]*$/, `/${DB}`);
const MODEL = readFileSync('examples/synth/support-queue.xml', 'utf8');
const PARTITIONS = 12;
const TOTAL = 2400;

async function admin(sql: string, on = BASE_URL!): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: on });
  await client.connect();
  try {
    return await client.query({ text: sql, rowMode: 'array' });
  } finally {
    await client.end();
  }
}

const workers: ChildProcess[] = [];

/** A worker process of the CLI (through tsx) and a promise of its first "took partition k/K" line. */
function worker(hold: boolean): { child: ChildProcess; took: Promise<number> } {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'synth',
      'serve',
      '--worker',
      '--queue',
      url!,
      '--supervise-interval',
      '1',
    ],
    {
      env: {
        ...process.env,
        MODELWORKS_SYNTH_DATABASE_URL_ALLOWLIST: url,
        ...(hold ? { MODELWORKS_SYNTH_WORKER_TEST_HOLD: '1' } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  workers.push(child);
  let text = '';
  const took = new Promise<number>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /took partition (\d+)\//.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) =>
      reject(new Error(`worker ${child.pid} exited (${code}) before taking a job:\n${text}`)),
    );
  });
  return { child, took };
}

describe.skipIf(!BASE_URL)('queued partitions on pg-boss', () => {
  beforeAll(async () => {
    console.log(`[queue] database ${DB}`);
    await admin(`CREATE DATABASE ${DB}`);
  });
  afterAll(async () => {
    const running = workers.filter((w) => w.exitCode === null && w.signalCode === null);
    const exited = running.map((w) => new Promise((r) => w.once('exit', r)));
    for (const w of running) w.kill('SIGKILL');
    await Promise.all(exited);
    await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  });

  it('3 workers, one killed holding a job: each partition once, equal to one process', async () => {
    const allowlists = { ...CLOSED_ALLOWLISTS, databaseUrlAllowlist: [url!] };
    const prepared = await loadJobModel(MODEL, 'full', allowlists);
    const seed = 2026n;
    const types = sharedTypes(prepared, seed, PARTITIONS);
    const boss = await openQueue({ url: url! }, (err) => console.error(err));
    let generation: string;
    try {
      generation = await enqueueGeneration(boss, {
        model: MODEL,
        edition: 'full',
        seed,
        total: TOTAL,
        partitions: PARTITIONS,
        sink: () => ({ kind: 'postgres', url: `${url}/rows` }),
        types,
        expireInSeconds: 3, // short: the killed worker's job comes back within seconds
        retryLimit: 5,
      });

      // the first worker holds the first job it takes; it is killed as soon as it says so
      const held = worker(true);
      const heldPartition = await held.took;
      held.child.kill('SIGKILL');
      const killedName = `:${held.child.pid}`;
      worker(false);
      worker(false);

      await expect
        .poll(
          async () =>
            (await generationStatus(boss, generation))!.filter((p) => p.state === 'completed').length,
          {
            timeout: 180_000,
            interval: 500,
          },
        )
        .toBe(PARTITIONS);
      const status = (await generationStatus(boss, generation))!;
      console.log(`[queue] held partition ${heldPartition}:`, JSON.stringify(status[heldPartition - 1]));
      const redone = status[heldPartition - 1]!;
      expect(redone.retries).toBeGreaterThanOrEqual(1);
      expect(redone.worker?.endsWith(killedName)).toBe(false);
      expect(status.every((p) => p.worker !== undefined && !p.worker.endsWith(killedName))).toBe(true);
      expect(status.map((p) => p.rows).reduce((a, b) => a! + b!, 0)).toBe(TOTAL);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }

    // the same twelve partitions written by this one process
    const single = openTarget({ kind: 'postgres', url: `${url}/single` }, allowlists);
    for (let index = 1; index <= PARTITIONS; index++)
      await generateToSink(
        { prepared, seed, total: TOTAL, partition: { index, count: PARTITIONS }, types },
        single,
      );

    const rows = await admin('SELECT * FROM rows ORDER BY _row', url);
    const expected = await admin('SELECT * FROM single ORDER BY _row', url);
    expect(rows.rows.map((r) => Number((r as string[])[0]))).toEqual(
      Array.from({ length: TOTAL }, (_, i) => i),
    );
    expect(rows.rows).toEqual(expected.rows);
  }, 300_000);
});
