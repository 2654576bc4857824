/**
 * The built worker (dist/, after `npm run build` or `npx tsc -p tsconfig.build.json`): a generation
 * from dist with 2 threads, the worker taking part, writes the bytes of one thread. (The other
 * workers tests run the TypeScript sources, whose worker starts through tsx.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '..', '..', 'dist');

/** A module of dist, loaded as the package loads it (not through the test's TypeScript). */
async function fromDist<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(join(DIST, path)).href)) as T;
}

interface Chunk {
  data: string | Uint8Array;
}
interface Stats {
  parallel?: boolean;
  batches?: number;
  local?: number;
}
type Generate = (
  prepared: unknown,
  seed: bigint,
  options: Record<string, unknown>,
) => AsyncGenerator<Chunk, void, undefined>;

describe('the built worker', () => {
  it('renders batches with the bytes of one thread', async () => {
    const { generateChunks } = await fromDist<{ generateChunks: Generate }>('synth-io/parallel/index.js');
    const { parseModel, prepareModel } = await fromDist<{
      parseModel: (text: string) => unknown;
      prepareModel: (model: unknown) => unknown;
    }>('synth/index.js');
    const prepared = prepareModel(
      parseModel(
        'dataset.root = T\nR = Uniform(1, 7)\nD = ToInteger(R, mode="floor")\n' +
          'Three = Redimension(D, dimension=3)\nT = Calculate(Three, expression="y[0] = x[0] + x[1] + x[2]")\n',
      ),
    );
    const text = async (workers: number, stats: Stats): Promise<string> => {
      const decoder = new TextDecoder();
      let out = '';
      const options = { count: 3000, format: 'csv', header: true, workers, minRows: 0, batchRows: 7 };
      for await (const { data } of generateChunks(prepared, 11n, {
        ...options,
        keepProbe: false,
        waitForWorkers: true,
        stats,
      })) {
        out += typeof data === 'string' ? data : decoder.decode(data);
        if (typeof data !== 'string' && data.buffer instanceof SharedArrayBuffer) shared++;
      }
      return out;
    };
    let shared = 0;
    const stats: Stats = {};
    const two = await text(2, stats);
    expect(stats.parallel).toBe(true);
    expect(stats.local).toBeLessThan(stats.batches!); // the worker rendered some
    // and handed them over in shared memory (a copy costs each thread ~0.5 ms per half megabyte)
    expect(shared).toBe(stats.batches! - stats.local!);
    expect(two).toBe(await text(1, {}));
    expect(two.split('\n')).toHaveLength(3002);
  }, 60_000);

  it('never detaches a buffer in a worker: V8 would slow every typed-array access after it', () => {
    // Transferring a batch's buffer to the main thread detaches it, and V8 then drops the optimised
    // code that assumed no buffer is ever detached (rows cost the worker about 15% more)
    const script = `
      const { generateChunks } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'synth-io/parallel/index.js')).href)});
      const { parseModel, prepareModel } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'synth/index.js')).href)});
      const prepared = prepareModel(parseModel('dataset.root = D\\nR = Uniform(1, 7)\\nD = ToInteger(R, mode="floor")\\n'));
      const stats = {};
      const options = { count: 100000, format: 'csv', header: false, workers: 2, minRows: 0, batchRows: 100, waitForWorkers: true, stats };
      for await (const chunk of generateChunks(prepared, 5n, options));
      process.stderr.write(JSON.stringify(stats));`;
    // a script file, not -e: a worker inherits the parent's -e and would run that instead
    const dir = mkdtempSync(join(tmpdir(), 'workers-detach-'));
    const file = join(dir, 'run.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, ['--trace-protector-invalidation', file], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status, r.stderr).toBe(0);
    const stats = JSON.parse(r.stderr) as Stats;
    expect(stats.parallel).toBe(true);
    expect(stats.local).toBeLessThan(stats.batches!); // the worker rendered some
    expect(r.stdout).not.toContain('ArrayBufferDetaching');
  }, 60_000);

  it('pipelined: the encoding worker writes the bytes of one thread and detaches no buffer', () => {
    // Normal draws a varying number of values per row: sampled here, encoded on both threads
    const script = `
      const { createHash } = await import('node:crypto');
      const { generateChunks } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'synth-io/parallel/index.js')).href)});
      const { parseModel, prepareModel } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'synth/index.js')).href)});
      const prepared = prepareModel(parseModel('dataset.root = R\\nR = Append(N, C)\\nN = Normal(0, 1)\\nC = Categorical("1, 2")\\n'));
      const digest = async (workers, stats) => {
        const hash = createHash('sha256');
        const options = { count: 100000, format: 'ndjson', header: false, workers, minRows: 0, waitForWorkers: true, stats };
        for await (const chunk of generateChunks(prepared, 5n, options)) hash.update(chunk.data);
        return hash.digest('hex');
      };
      const stats = {};
      const two = await digest(2, stats);
      const one = await digest(1, {});
      process.stderr.write(JSON.stringify({ same: one === two, ...stats }));`;
    const dir = mkdtempSync(join(tmpdir(), 'workers-pipeline-'));
    const file = join(dir, 'run.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, ['--trace-protector-invalidation', file], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stderr) as Stats & {
      same: boolean;
      pipelined?: boolean;
      pipeline?: { batches: number; encodedHere: number };
    };
    expect(result.pipelined).toBe(true);
    expect(result.same).toBe(true);
    expect(result.pipeline!.encodedHere).toBeLessThan(result.pipeline!.batches); // the worker encoded some
    expect(r.stdout).not.toContain('ArrayBufferDetaching');
  }, 60_000);
});
