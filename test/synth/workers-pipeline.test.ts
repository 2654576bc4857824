/**
 * The pipelined mode (issue 40): rows that cannot be split are sampled on the generation's thread
 * and encoded on every thread, with one thread's bytes. Every model of the bundled examples and of
 * the shared corpus (when present), workers 1 against 2 and 4, in every text format; errors raised
 * while sampling or encoding are one thread's, at the same row.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSynthModel } from '../../src/synth/engine/prepare.js';
import { nodeFilePort, nodeModulePort } from '../../src/synth-io/index.js';
import type { OutputFormat, PreparedModel } from '../../src/synth/index.js';
import { OUTPUT_FORMATS, SynthError, SynthRun, parseModel, prepareModel } from '../../src/synth/index.js';
import { Row, INT } from '../../src/synth/engine/row.js';
import { renderRangeBytes, type RowSource } from '../../src/synth/output/bytes.js';
import {
  generateChunks,
  type GenerateOptions,
  type GenerateStats,
} from '../../src/synth-io/parallel/index.js';
import {
  pipelineBatchRows,
  pipelineChunks,
  type PipelineStats,
} from '../../src/synth-io/parallel/pipeline.js';
import { EXAMPLES, SHARED, casesOf, sharedPresent } from './corpus-cases.js';

if (!sharedPresent) console.warn(`[synth pipeline] SKIPPED shared corpus: ${SHARED} not found`);

const decoder = new TextDecoder();

/** The whole output, or the output up to the error and the error. */
async function produce(
  prepared: PreparedModel,
  seed: bigint,
  count: number,
  workers: number,
  more: Partial<GenerateOptions> = {},
): Promise<{ text: string; error?: unknown }> {
  let text = '';
  try {
    for await (const chunk of generateChunks(prepared, seed, {
      count,
      format: 'csv',
      header: true,
      workers,
      minRows: 0,
      batchRows: 5,
      split: false,
      waitForWorkers: true,
      ...more,
    }))
      text += typeof chunk.data === 'string' ? chunk.data : decoder.decode(chunk.data);
  } catch (error) {
    return { text, error };
  }
  return { text };
}

async function output(
  prepared: PreparedModel,
  seed: bigint,
  count: number,
  workers: number,
  more: Partial<GenerateOptions> = {},
): Promise<string> {
  const { text, error } = await produce(prepared, seed, count, workers, more);
  expect(error).toBeUndefined();
  return text;
}

/**
 * Every recording of a corpus: with 2 threads in `formats`, and with 4 threads in the recording's
 * own format, the bytes of one thread.
 */
async function checkCorpus(dir: string, formats: readonly OutputFormat[]): Promise<void> {
  const { cases, skipped } = casesOf(dir);
  const report: string[] = [];
  for (const c of cases) {
    for (const format of new Set([...formats, c.format])) {
      const header = format === 'csv';
      const one = await output(c.prepared, c.seed, c.count, 1, { format, header });
      const stats: GenerateStats = {};
      const what = `${c.output} (${c.model}), ${format}, seed ${c.seed}, ${c.count} rows`;
      if (formats.includes(format)) {
        expect(await output(c.prepared, c.seed, c.count, 2, { format, header, stats }), what).toBe(one);
        expect(stats.pipelined, what).toBe(true);
        // a worker encoded some batches, unless the whole output fits in the first one
        if (c.count > 10) expect(stats.pipeline!.encodedHere, what).toBeLessThan(stats.pipeline!.batches!);
      }
      if (format === c.format)
        expect(await output(c.prepared, c.seed, c.count, 4, { format, header }), `${what}, 4 threads`).toBe(
          one,
        );
    }
    report.push(c.model);
  }
  console.log(`[synth pipeline] ${dir}: ${report.length} models\n  skipped: ${skipped.join('; ') || 'none'}`);
  expect(report.length).toBeGreaterThan(0);
}

describe('grind --workers, pipelined: the same bytes as one thread', () => {
  it('for every model of the bundled examples, in every text format', async () => {
    await checkCorpus(EXAMPLES, OUTPUT_FORMATS);
  }, 300_000);

  it.skipIf(!sharedPresent)(
    'for every loadable model of the shared corpus, in CSV, JSON and ndjson',
    async () => {
      await checkCorpus(SHARED, ['csv', 'json', 'ndjson']);
    },
    600_000,
  );

  it('is how a model whose rows cannot be split runs, with the batches shared between the threads', async () => {
    // Normal and Lognormal redraw now and then: rows take different numbers of draws
    const prepared = prepareModel(
      parseModel(
        'dataset.root = R\nR = Append(N, L, C)\nN = Normal(0, 1)\nL = Lognormal(1, 0.5)\nC = Categorical("0.5, 0.5")\n',
      ),
    );
    const stats: GenerateStats = {};
    // the default split and batch size: not forced
    const two = await output(prepared, 9n, 50_000, 2, { split: undefined, batchRows: undefined, stats });
    expect(stats.parallel).toBe(false);
    expect(stats.reason).toBe('rows take different numbers of random draws');
    expect(stats.pipelined).toBe(true);
    const { batches, encodedHere } = stats.pipeline!;
    expect(batches).toBeGreaterThan(1);
    expect(encodedHere).toBeLessThan(batches!);
    expect(two).toBe(await output(prepared, 9n, 50_000, 1));
  }, 60_000);

  it('keeps state carried from row to row (a Sequence, a Redimension) on the sampling thread', async () => {
    // a Redimension of width 2 over 3 values a row leaves values over from one row to the next
    const prepared = prepareModel(
      parseModel(`<dataset><root node="R"/><nodes>
        <Append name="R"><input name="Id"/><input name="W"/></Append>
        <Sequence name="Id" start="1" step="1"/>
        <Redimension name="W" dimension="2"><input name="T"/></Redimension>
        <Append name="T"><input name="N"/><input name="U"/><input name="N2"/></Append>
        <Normal name="N" mean="0" sd="1"/><Uniform name="U"/><Normal name="N2" mean="5" sd="2"/>
      </nodes></dataset>`),
    );
    const stats: GenerateStats = {};
    const two = await output(prepared, 4n, 3000, 2, { split: undefined, stats });
    expect(stats.reason).toBe('a component of the model carries state from row to row');
    expect(stats.pipelined).toBe(true);
    expect(two).toBe(await output(prepared, 4n, 3000, 1));
  }, 60_000);

  it('custom components: sampled here, encoded on every thread (they never split)', async () => {
    const dir = join(EXAMPLES, 'custom');
    const prepared = await loadSynthModel(parseModel(readFileSync(join(dir, 'sensor.xml'), 'utf8')), {
      edition: 'full',
      customComponentDirs: [dir],
      ports: { files: nodeFilePort, modules: nodeModulePort },
    });
    const stats: GenerateStats = {};
    const two = await output(prepared, 7n, 3000, 2, { split: undefined, stats });
    expect(stats.reason).toBe('the model uses custom components');
    expect(stats.pipelined).toBe(true);
    expect(two).toContain(',high\n'); // the custom filter's label column
    expect(two).toBe(await output(prepared, 7n, 3000, 1));
  }, 60_000);

  it('texts of every kind: quoting, non-ASCII, empty and repeated values', async () => {
    const prepared = prepareModel(
      parseModel(`<dataset><root node="R"/><nodes>
        <Append name="R"><input name="S"/><input name="E"/><input name="Q"/><input name="N"/></Append>
        <Switch name="S" key="0"><input name="K" role="input"/>
          <input name="A" value="0"/><input name="B" value="1"/><input name="C" value="2"/></Switch>
        <Categorical name="K" weights="1 1 1"/>
        <Constant name="A" value="naïve, &quot;quoted&quot;" type="string"/>
        <Constant name="B" value="línea&#10;dos 😀" type="string"/>
        <Constant name="C" value="" type="string"/>
        <Constant name="E" value="" type="string"/>
        <Constant name="Q" value="a,b" type="string"/>
        <Normal name="N" mean="0" sd="1e-300"/>
      </nodes></dataset>`),
    );
    for (const format of OUTPUT_FORMATS) {
      const one = await output(prepared, 3n, 400, 1, { format });
      expect(one).toContain('😀');
      expect(await output(prepared, 3n, 400, 2, { format }), format).toBe(one);
    }
  }, 60_000);
});

/** The first row of a run that throws, found one row at a time, and its error. */
function firstFailure(prepared: PreparedModel, seed: bigint, count: number): { row: number; error: unknown } {
  const run = new SynthRun(prepared, seed);
  const names = run.header();
  for (let row = 0; row < count; row++)
    try {
      renderRangeBytes(run, row, row + 1, 'csv', names);
    } catch (error) {
      return { row, error };
    }
  return { row: -1, error: undefined };
}

const rowsOf = (csv: string): number => csv.split('\n').length - 2; // the header, the last newline

describe('grind --workers, pipelined: errors', () => {
  // key 1 (weight 0.0005) has no branch: a runtime error at some row; the Normal makes the rows
  // take different numbers of draws, so the run is pipelined, not split
  const failing = prepareModel(
    parseModel(
      '<dataset><root node="R"/><nodes><Append name="R"><input name="S"/><input name="N"/></Append>' +
        '<Switch name="S" key="0"><input name="K" role="input"/><input name="A" value="0"/></Switch>' +
        '<Categorical name="K" weights="1 0.0005"/><Constant name="A" value="3"/>' +
        '<Normal name="N" mean="0" sd="1"/></nodes></dataset>',
    ),
  );

  it('a row failing while sampling: the same error, after exactly the rows before it', async () => {
    for (let seed = 1n; seed < 40n; seed++) {
      const truth = firstFailure(failing, seed, 8000);
      if (truth.row < 50) continue;
      const one = await produce(failing, seed, 8000, 1);
      const stats: GenerateStats = {};
      const two = await produce(failing, seed, 8000, 2, { split: undefined, stats });
      expect(stats.pipelined, `seed ${seed}`).toBe(true);
      expect(one.error).toBeInstanceOf(SynthError);
      expect(two.error).toBeInstanceOf(SynthError);
      const text = (e: unknown): string => `${(e as SynthError).code}: ${(e as Error).message}`;
      expect(text(two.error)).toBe(text(one.error));
      expect(text(two.error)).toBe(text(truth.error));
      expect(text(one.error)).toContain('no branch for key 1');
      // every row before the failing one is written, and no row after it; one thread writes whole
      // chunks of rows, so its output is a prefix
      expect(rowsOf(two.text), `seed ${seed}`).toBe(truth.row);
      expect(two.text.startsWith(one.text)).toBe(true);
      return;
    }
    expect.fail('no seed in 1..39 failed past row 50');
  }, 120_000);

  /** Rows whose 30th has an int cell holding NaN: sampling it works, encoding it throws. */
  class Poisoned implements RowSource {
    readonly dimension = 2;
    private readonly row = new Row(2);
    private at = 0;
    next(): Row {
      const i = this.at++;
      this.row.kinds[0] = INT;
      this.row.nums[0] = i === 29 ? NaN : i;
      this.row.setText(1, `r${i % 7}`);
      return this.row;
    }
  }

  it('a row failing while encoding (in a worker): the same error as one thread, after the rows before it', async () => {
    let oneError: unknown;
    const onThread = new Poisoned();
    let oneText = '';
    try {
      for (let at = 0; at < 100; at += 10)
        oneText += decoder.decode(renderRangeBytes(onThread, at, at + 10, 'csv', ['a', 'b']));
    } catch (error) {
      oneError = error;
    }
    expect(oneError).toBeInstanceOf(RangeError);
    const expected = decoder.decode(renderRangeBytes(new Poisoned(), 0, 29, 'csv', ['a', 'b']));
    let inWorker = 0;
    // which thread encodes the failing batch first depends on timing: batch sizes are tried until
    // a worker did (and failed, and this thread encoded it again); every try must match
    for (const batchRows of [4, 3, 5, 2, 6, 7, 8, 9]) {
      const stats: PipelineStats = {};
      let text = '';
      let error: unknown;
      try {
        for await (const piece of pipelineChunks(new Poisoned(), {
          from: 0,
          to: 100,
          format: 'csv',
          names: ['a', 'b'],
          workers: 3,
          batchRows,
          waitForWorkers: true,
          stats,
        }))
          text += decoder.decode(piece.data);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(RangeError);
      expect((error as Error).message).toBe((oneError as Error).message);
      // the 29 rows before it, as one thread writes them, and nothing after
      expect(text, `batches of ${batchRows}`).toBe(expected);
      expect(text.startsWith(oneText)).toBe(true);
      inWorker += stats.redone!;
      if (inWorker > 0) break;
    }
    expect(inWorker).toBeGreaterThan(0);
  }, 60_000);
});

describe('grind --workers, pipelined: formats', () => {
  it.each(OUTPUT_FORMATS)(
    '%s: the same bytes with 1, 2 and 4 threads for support-queue',
    async (format: OutputFormat) => {
      const { cases } = casesOf(EXAMPLES);
      const support = cases.find((c) => c.model.includes('support-queue'))!;
      const one = await output(support.prepared, 5n, 2000, 1, { format, split: undefined });
      expect(await output(support.prepared, 5n, 2000, 2, { format, split: undefined })).toBe(one);
      expect(await output(support.prepared, 5n, 2000, 4, { format, split: undefined })).toBe(one);
    },
    60_000,
  );
});

describe('grind --workers, pipelined: batch sizes', () => {
  it('starts small, then holds about 64K cells and 512 KB of output a batch', () => {
    expect(pipelineBatchRows(7)).toBe(512); // nothing encoded yet: a worker starts sooner
    expect(pipelineBatchRows(7, 50)).toBe(8192); // support-queue: the row cap
    expect(pipelineBatchRows(1000, 10)).toBe(65); // wide rows: the cell cap
    expect(pipelineBatchRows(2, 100_000)).toBe(16); // long texts: the byte cap, never below 16 rows
    expect(pipelineBatchRows(2, 1024)).toBe(512);
  });
});
