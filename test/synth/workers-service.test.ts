/**
 * Embedded/Service generation over worker threads (MODELWORKS_SYNTH_WORKERS): the same text and
 * row offsets as one thread, the same cap error, and a cancel that stops it.
 */
import { describe, expect, it } from 'vitest';
import { SynthRun, parseModel, prepareModel } from '../../src/synth/index.js';
import type { SynthServiceError } from '../../src/service/synth-errors.js';
import { DICE_MODEL } from './helpers.js';
import {
  type ProduceRequest,
  generationText,
  produceGeneration,
  workersFromEnv,
} from '../../src/service/synth-generation.js';

const prepared = prepareModel(parseModel(DICE_MODEL));
const ROWS = 510_000; // past the 500,000-row threshold

function request(workers: number, extra: Partial<ProduceRequest> = {}): ProduceRequest {
  return {
    id: 'g',
    modelId: 'm',
    run: new SynthRun(prepared, 7n),
    seed: 7n,
    seedSource: 'request',
    count: ROWS,
    format: 'csv',
    maxBytes: 64 * 1024 * 1024,
    maxBytesSetting: 'TEST_CAP',
    workers,
    waitForWorkers: true,
    ...extra,
  };
}

async function failure(req: ProduceRequest): Promise<string> {
  return produceGeneration(req).then(
    () => 'no error',
    (err: unknown) => `${(err as SynthServiceError).code}: ${(err as Error).message}`,
  );
}

describe('produceGeneration with workers', () => {
  it('gives the text and row offsets of one thread', async () => {
    const one = await produceGeneration(request(1));
    const two = await produceGeneration(request(2));
    expect(two.bytes).toBe(one.bytes);
    expect(generationText(two)).toBe(generationText(one));
    expect(Buffer.from(two.offsets.buffer).equals(Buffer.from(one.offsets.buffer))).toBe(true);
    // the workers' batches (16,384 rows) show as chunks larger than one thread's slices (8,192 rows
    // of at most 31 bytes here)
    const largest = (gen: typeof one): number => Math.max(...gen.chunks.map((c) => c.length));
    expect(largest(one)).toBeLessThanOrEqual(8192 * 31);
    expect(largest(two)).toBeGreaterThan(8192 * 31);
  }, 120_000);

  it('refuses at the cap with the same error as one thread', async () => {
    const full = (await produceGeneration(request(1))).bytes;
    const cap = full - 1000; // the projection passes; the run itself meets the cap near its end
    const one = await failure(request(1, { maxBytes: cap }));
    expect(one).toMatch(/^TOO_LARGE: output of at least/);
    expect(await failure(request(2, { maxBytes: cap }))).toBe(one);
  }, 120_000);

  it('stops on cancel', async () => {
    const controller = new AbortController();
    const pending = failure(request(2, { signal: controller.signal }));
    controller.abort();
    expect(await pending).toBe('CANCELLED: generation cancelled');
  }, 60_000);

  it('reads MODELWORKS_SYNTH_WORKERS', () => {
    expect(workersFromEnv({ MODELWORKS_SYNTH_WORKERS: '3' })).toBe(3);
    expect(workersFromEnv({})).toBeGreaterThanOrEqual(1);
    expect(() => workersFromEnv({ MODELWORKS_SYNTH_WORKERS: '0' })).toThrow(/MODELWORKS_SYNTH_WORKERS/);
    expect(() => workersFromEnv({ MODELWORKS_SYNTH_WORKERS: 'many' })).toThrow(/1 to 256/);
  });
});
