// The memory bound of a generation from bytes (issue 40, point 5): a graph's rows are charged to a
// ledger against the generation's byte cap before they are allocated, whatever the column limit
// says; a generation whose rows cannot fit even at their shortest is refused before the first
// row; and a row too wide or too long for one slice is rendered in slices with the same bytes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLUMN_BYTES, GRAPH_BYTES_FLOOR } from '../../src/synth/engine/graph-budget.js';
import { DEFAULT_LIMITS } from '../../src/synth/limits.js';
import { buildGraph } from '../../src/synth/engine/loader.js';
import { prepareModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import { SynthError } from '../../src/synth/errors.js';
import { parseModel } from '../../src/synth/model/io.js';
import { minRowChars, renderRow, type OutputFormat } from '../../src/synth/output/format.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { validateModel } from '../../src/synth/validate/validator.js';
import {
  type ProduceRequest,
  generationText,
  produceGeneration,
} from '../../src/service/synth-generation.js';
import { SynthServiceError } from '../../src/service/synth-errors.js';
import { grind } from './helpers.js';

const MiB = 1024 * 1024;
const BUDGET = { maxBytes: 64 * MiB, setting: 'TEST_MAX_BYTES' };
const RAISED = { maxColumns: 100_000_000 };

const redimension = (dimension: number): string =>
  `dataset.seed = 7\ndataset.root = W\nW = Redimension(N, dimension=${dimension})\nN = Normal()\n`;

function errorOf(work: () => unknown): SynthError {
  try {
    work();
  } catch (err) {
    if (err instanceof SynthError) return err;
    throw err;
  }
  throw new Error('expected a SynthError');
}

describe('the graph ledger', () => {
  it('refuses a 50M-column row before allocating it, whatever the column limit', () => {
    const prepared = prepareModel(parseModel(redimension(50_000_000)), {
      limits: RAISED,
      graphBudget: BUDGET,
    });
    const buffers = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const err = errorOf(() => new SynthRun(prepared, 1n));
    expect(performance.now() - started).toBeLessThan(100);
    expect(err.code).toBe('SYNTH_LIMIT');
    expect(err.message).toMatch(
      /Redimension "W": dimension 50000000 .* over this server's generation cap of 67108864 bytes \(TEST_MAX_BYTES\)/,
    );
    // nothing sized by the row was allocated (a 50M-column Row is 450 MB of typed arrays)
    expect(process.memoryUsage().arrayBuffers - buffers).toBeLessThan(8 * MiB);
    // validation says the same by throwing: a size refusal, not a model problem
    expect(() => validateModel(prepared)).toThrow(/generation cap/);
  });

  it('admits the widest row the budget holds and refuses one column group more', () => {
    // Normal (1) + Redimension's input (1) + its width + the run's row (the width again)
    const fits = Math.floor((BUDGET.maxBytes / COLUMN_BYTES - 2) / 2);
    const options = { limits: RAISED, graphBudget: BUDGET };
    expect(new SynthRun(prepareModel(parseModel(redimension(fits)), options), 1n).dimension).toBe(fits);
    expect(
      errorOf(() => new SynthRun(prepareModel(parseModel(redimension(fits + 1)), options), 1n)).code,
    ).toBe('SYNTH_LIMIT');
  });

  it('a small generation cap bounds the output, not an ordinary graph (the floor holds)', () => {
    // a 1,000-byte cap (a host keeping answers small) with a 16-column model: 1 kB of row memory
    const tiny = { maxBytes: 1000, setting: 'TEST_MAX_BYTES' };
    const options = { limits: RAISED, graphBudget: tiny };
    expect(new SynthRun(prepareModel(parseModel(redimension(16)), options), 1n).dimension).toBe(16);
    // past the floor the cap's own rule applies again
    const past = Math.ceil(GRAPH_BYTES_FLOOR / COLUMN_BYTES / 2) + 1;
    expect(errorOf(() => new SynthRun(prepareModel(parseModel(redimension(past)), options), 1n)).code).toBe(
      'SYNTH_LIMIT',
    );
  });

  it('counts every node of the graph: many rows each under the column limit', () => {
    // 40 unconnected Redimension(Constant) nodes of 10,000 columns (the default column limit):
    // each passes the limit, together they hold 800,000 columns (about 51 MB at 64 bytes)
    const lines = ['dataset.root = R0'];
    for (let i = 0; i < 40; i++)
      lines.push(`R${i} = Redimension(C${i}, dimension=10000)`, `C${i} = Constant(value=1)`);
    const model = parseModel(lines.join('\n') + '\n');
    expect(validateModel(prepareModel(model, {})).valid).toBe(true);
    const err = errorOf(() =>
      buildGraph(model, new L64X128MixRandom(1n), { graphBudget: { maxBytes: 16 * MiB, setting: 'S' } }),
    );
    expect(err.code).toBe('SYNTH_LIMIT');
    expect(err.message).toContain('(S)');
  });

  it('charges a filter for the width of its inputs (a Calculate over a wide row)', () => {
    const model = parseModel(
      'dataset.root = K\nK = Calculate(W, expression="y[0] = x[0]")\nW = Redimension(N, dimension=100000)\nN = Normal()\n',
    );
    // W alone: 1 + 1 + 100,000; K: its input 100,000 and its own width; the run's row 100,000
    const columns = 1 + 1 + 100_000 + 100_000 + 100_000 + 100_000;
    const at = (maxBytes: number) => () =>
      buildGraph(model, new L64X128MixRandom(1n), {
        limits: { ...DEFAULT_LIMITS, ...RAISED },
        graphBudget: { maxBytes, setting: 'S' },
      });
    expect(at(columns * COLUMN_BYTES)).not.toThrow();
    expect(errorOf(at(columns * COLUMN_BYTES - 1)).code).toBe('SYNTH_LIMIT');
  });

  it('leaves every bundled example and every golden model well inside the smallest default cap', () => {
    const folder = join(__dirname, '../../examples/synth');
    const files = readdirSync(folder).filter((f) => /\.(xml|sgm|json)$/.test(f));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const model = parseModel(readFileSync(join(folder, f), 'utf8'));
      const budget = { maxBytes: 64 * MiB, setting: 'S' };
      expect(validateModel(prepareModel(model, { graphBudget: budget })).valid, f).toBe(true);
    }
  });
});

describe('the shortest text of a row', () => {
  const exact = (model: string, format: OutputFormat, dimension: number): void => {
    const run = new SynthRun(parseModel(model), 1n);
    const names = run.header();
    const text = renderRow(run.next(), dimension, format, names);
    expect(text.length, format).toBe(minRowChars(dimension, format));
  };

  it('is reached by empty texts in CSV and raw and by one-digit ints in ndjson', () => {
    for (const d of [1, 9, 10, 11, 100, 1234]) {
      exact(
        `dataset.root = R\nR = Redimension(C, dimension=${d})\nC = Constant(value="", type="string")\n`,
        'csv',
        d,
      );
      exact(
        `dataset.root = R\nR = Redimension(C, dimension=${d})\nC = Constant(value="", type="string")\n`,
        'raw',
        d,
      );
      exact(
        `dataset.root = R\nR = Redimension(C, dimension=${d})\nC = Constant(value=0, type="int")\n`,
        'ndjson',
        d,
      );
    }
  });

  it('is never more than a real row of the bundled example', () => {
    const text = readFileSync(join(__dirname, '../../examples/synth/support-queue.xml'), 'utf8');
    const run = new SynthRun(parseModel(text), 5n);
    const names = run.header();
    for (let r = 0; r < 2000; r++) {
      const row = run.next();
      for (const format of ['csv', 'raw', 'ndjson'] as const)
        expect(renderRow(row, run.dimension, format, names).length).toBeGreaterThanOrEqual(
          minRowChars(run.dimension, format),
        );
    }
  });
});

describe('a generation under its byte cap', () => {
  const request = (model: string, count: number, extra: Partial<ProduceRequest> = {}): ProduceRequest => ({
    id: 'e-test',
    modelId: 'local-test',
    run: new SynthRun(parseModel(model), 3n, { limits: RAISED }),
    seed: 3n,
    seedSource: 'request',
    count,
    format: 'csv',
    maxBytes: 1e9,
    maxBytesSetting: 'TEST_CAP',
    workers: 1,
    ...extra,
  });

  it('is refused before its first row when even its shortest rows pass the cap', async () => {
    const req = request(redimension(10_000), 100_000, { maxBytes: 64 * MiB });
    let pulls = 0;
    const next = req.run.next.bind(req.run);
    req.run.next = () => (pulls++, next());
    const err = await produceGeneration(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SynthServiceError);
    expect((err as SynthServiceError).code).toBe('TOO_LARGE');
    expect((err as SynthServiceError).details.projectedBytes).toBe(100_000 * 10_000);
    expect((err as SynthServiceError).message).toContain('TEST_CAP');
    expect(pulls).toBe(0);
  });

  it('renders a row wider than a slice of columns with the same bytes as grind', async () => {
    const model = `dataset.seed = 7\ndataset.root = W\nW = Redimension(N, dimension=40000)\nN = Normal()\n`;
    for (const format of ['csv', 'raw', 'ndjson'] as const) {
      const gen = await produceGeneration(request(model, 3, { format }));
      expect(generationText(gen), format).toBe(grind(model, 3n, 3, format, false, { limits: RAISED }));
      expect(gen.chunks.length).toBe(3); // each wide row is its own chunk
    }
  });

  it('renders a row whose text passes a slice (long texts) with the same bytes as grind', async () => {
    // 40 columns of a 40,000-character text that CSV quotes: 1.6 MB a row, more than the 1 MiB slice
    const long = 'say "a", b'.padEnd(40_000, 'x');
    const model = `dataset.root = A\nA = Redimension(C, dimension=40)\nC = Constant(value="${long.replace(/"/g, '\\"')}", type="string")\n`;
    for (const format of ['csv', 'raw', 'ndjson'] as const) {
      const gen = await produceGeneration(request(model, 4, { format }));
      expect(generationText(gen), format).toBe(grind(model, 3n, 4, format));
    }
  });

  it('refuses a long row mid-way at the cap, holding the event loop no longer than a slice', async () => {
    const model = `dataset.root = A\nA = Redimension(C, dimension=4000)\nC = Constant(value="${'x'.repeat(100_000)}", type="string")\n`;
    let slowest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      slowest = Math.max(slowest, now - last);
      last = now;
    }, 1);
    const err = await produceGeneration(request(model, 1, { maxBytes: 256 * MiB })).catch((e: unknown) => e);
    clearInterval(timer);
    expect((err as SynthServiceError).code).toBe('TOO_LARGE');
    expect((err as SynthServiceError).details.bytes).toBeGreaterThan(256 * MiB);
    expect(slowest).toBeLessThan(100);
  });
});
