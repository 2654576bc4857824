// The generation core under the tools and the Service: size checks, cancellation, paging budgets,
// the LRU cache, seeds and the bounded queue.
import { describe, expect, it } from 'vitest';
import { SynthServiceError } from '../../src/service/synth-errors.js';
import {
  GenerationCache,
  generationText,
  pageOf,
  parseSeedArgument,
  produceGeneration,
  type ProduceRequest,
} from '../../src/service/synth-generation.js';
import { SynthService } from '../../src/service/synth-service.js';
import { WorkQueue } from '../../src/service/synth-work-queue.js';
import { parseModel, SynthRun } from '../../src/synth/index.js';
import { grind } from '../synth/helpers.js';
import { SUPPORT_QUEUE } from './helpers.js';

function request(count: number, extra: Partial<ProduceRequest> = {}): ProduceRequest {
  return {
    id: 'e-test',
    modelId: 'local-test',
    run: new SynthRun(parseModel(SUPPORT_QUEUE), 9n),
    seed: 9n,
    seedSource: 'request',
    count,
    format: 'csv',
    maxBytes: 1e9,
    maxBytesSetting: 'TEST_CAP',
    ...extra,
  };
}

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'none';
  } catch (err) {
    return err instanceof SynthServiceError ? err.code : String(err);
  }
};

describe('generation core', () => {
  it('holds exactly the grind output with row offsets', async () => {
    const gen = await produceGeneration(request(2500));
    const text = generationText(gen);
    expect(text).toBe(grind(SUPPORT_QUEUE, 9n, 2500));
    expect(gen.bytes).toBe(Buffer.byteLength(text));
    const rows = text.split('\n');
    expect(Buffer.from(text).toString('utf8', gen.offsets[1234], gen.offsets[1235])).toBe(`${rows[1234]}\n`);
  });

  it('refuses on the projection for a big count, and on the real size when the projection passed', async () => {
    const projected = await produceGeneration(request(100_000, { maxBytes: 100_000 })).catch(
      (e: SynthServiceError) => e,
    );
    expect(projected).toBeInstanceOf(SynthServiceError);
    expect((projected as SynthServiceError).details.projectedBytes).toBeGreaterThan(100_000);
    // 1,000 rows is all warm-up: no projection, the real size is checked (the cap is above the
    // 7,000 bytes that 1,000 rows of 7 columns take at the shortest, which is refused at once)
    const real = await produceGeneration(request(1000, { maxBytes: 10_000 })).catch(
      (e: SynthServiceError) => e,
    );
    expect((real as SynthServiceError).code).toBe('TOO_LARGE');
    expect((real as SynthServiceError).details.bytes).toBeGreaterThan(10_000);
    expect(await codeOf(produceGeneration(request(2_000_001)))).toBe('TOO_LARGE');
  });

  it('stops when cancelled', async () => {
    const abort = new AbortController();
    const running = produceGeneration(request(500_000, { signal: abort.signal }));
    // fires at the generation's first pause (it yields between slices), long before 500,000 rows
    setImmediate(() => abort.abort());
    expect(await codeOf(running)).toBe('CANCELLED');
  });

  it('pages within a JSON-escaped budget, at least one row, never past the end', async () => {
    const gen = await produceGeneration(request(300, { format: 'ndjson' }));
    const page = pageOf(gen, 10, 1000, 2000);
    expect(page.rowCount).toBeGreaterThan(1);
    expect(JSON.stringify(page.data).length - 2).toBeLessThanOrEqual(2000);
    const withNext = pageOf(gen, 10, page.rowCount + 1, 1e9);
    expect(JSON.stringify(withNext.data).length - 2).toBeGreaterThan(2000);
    expect(pageOf(gen, 0, 5, 1).rowCount).toBe(1);
    expect(pageOf(gen, 300, 5, 100).rowCount).toBe(0);
    expect(() => pageOf(gen, 301, 5, 100)).toThrow(/past the end/);
  });

  it('evicts the least recently used generation beyond its size', async () => {
    const cache = new GenerationCache(2);
    const base = await produceGeneration(request(1));
    cache.add({ ...base, id: 'a' });
    cache.add({ ...base, id: 'b' });
    cache.get('a');
    cache.add({ ...base, id: 'c' });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('c')?.id).toBe('c');
  });

  it('parses seeds as integers or decimal strings in 64 bits', () => {
    expect(parseSeedArgument(undefined)).toBeUndefined();
    expect(parseSeedArgument(42)).toBe(42n);
    expect(parseSeedArgument('18446744073709551615')).toBe(-1n);
    expect(() => parseSeedArgument(2 ** 60)).toThrow(/decimal string/);
    expect(() => parseSeedArgument('18446744073709551616')).toThrow(/64 bits/);
    expect(() => parseSeedArgument('abc')).toThrow(SynthServiceError);
  });

  it('the work queue runs jobs one at a time and refuses beyond its bound', async () => {
    const queue = new WorkQueue(1);
    let running = 0;
    let maxRunning = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const job = async (): Promise<void> => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await held; // every job holds its turn until the test lets go
      running--;
    };
    const first = queue.run(job);
    const second = queue.run(job); // waits
    expect(() => queue.run(job)).toThrow(/queue is full/);
    release();
    await Promise.all([first, second]);
    expect(maxRunning).toBe(1);
  });

  it('the service rejects malformed arguments without generating', async () => {
    const service = new SynthService();
    try {
      expect(await codeOf(service.generateEmbedded(SUPPORT_QUEUE, { count: -1 }))).toBe('BAD_REQUEST');
      expect(await codeOf(service.generateEmbedded(SUPPORT_QUEUE, { count: 1, previewLimit: 10_001 }))).toBe(
        'BAD_REQUEST',
      );
      expect(await codeOf(service.generateEmbedded('', { count: 1 }))).toBe('BAD_REQUEST');
      expect(await codeOf(service.generateEmbedded('x'.repeat(1024 * 1024 + 1), { count: 1 }))).toBe(
        'TOO_LARGE',
      );
      expect(await codeOf(service.generate('m-nope', { count: 1 }))).toBe('MODEL_NOT_FOUND');
    } finally {
      await service.close();
    }
  });
});
