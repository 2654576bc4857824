// SheetWorkers in this process (the worker runs the TypeScript sources through tsx): the budgets
// from the environment, results as in-process, results too large to send measured only, and the
// refusals of the load and of a worker's limits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prettyJsonLength } from '../../src/service/json-size.js';
import { convertSpreadsheetBytes } from '../../src/service/sheet-service.js';
import {
  DEFAULT_SHEET_BUDGETS,
  SheetWorkers,
  sheetBudgetsFromEnv,
  type SheetBudgets,
  type SheetOutcome,
} from '../../src/service/sheet-workers.js';
import { workbook } from './helpers.js';
import { wideWorkbook } from './wide-workbook.mjs';

const request = (name: string) => ({ bytes: workbook(name), filename: name, modelId: 'sheet-test' });
const budgets = (b: Partial<SheetBudgets>): SheetBudgets => ({ ...DEFAULT_SHEET_BUDGETS, ...b });
/** The outcome's result (undefined for a result only measured). */
const resultOf = (o: SheetOutcome) => ('result' in o ? o.result : undefined);
/** The refusal's error text ('' when the conversion was not refused). */
const errorOf = (o: SheetOutcome): string => {
  const r = resultOf(o);
  return r && !r.valid ? r.error : '';
};

describe('MODELWORKS_SHEET_* settings', () => {
  it('defaults when unset; each setting sets its budget', () => {
    expect(sheetBudgetsFromEnv({})).toEqual({
      maxCells: 200_000,
      workerMemoryMb: 512,
      timeLimitSeconds: 60,
      workers: 1,
      queue: 4,
    });
    expect(
      sheetBudgetsFromEnv({
        MODELWORKS_SHEET_MAX_CELLS: '5000',
        MODELWORKS_SHEET_WORKER_MEMORY_MB: ' 256 ',
        MODELWORKS_SHEET_TIME_LIMIT_SECONDS: '5',
        MODELWORKS_SHEET_WORKERS: '2',
        MODELWORKS_SHEET_QUEUE: '0',
      }),
    ).toEqual({ maxCells: 5000, workerMemoryMb: 256, timeLimitSeconds: 5, workers: 2, queue: 0 });
  });

  it.each([
    ['MODELWORKS_SHEET_MAX_CELLS', '0', 'from 1 to 10000000'],
    ['MODELWORKS_SHEET_MAX_CELLS', '1e6', 'from 1 to 10000000'],
    ['MODELWORKS_SHEET_WORKER_MEMORY_MB', '16', 'from 32 to 65536'],
    ['MODELWORKS_SHEET_TIME_LIMIT_SECONDS', '-1', 'from 1 to 3600'],
    ['MODELWORKS_SHEET_WORKERS', '1.5', 'from 1 to 64'],
    ['MODELWORKS_SHEET_QUEUE', 'many', 'from 0 to 1000'],
  ])('%s=%s is refused, naming the setting', (setting, value, range) => {
    expect(() => sheetBudgetsFromEnv({ [setting]: value })).toThrow(
      `${setting} must be a whole number ${range} (got '${value}')`,
    );
  });
});

// each worker loads the sources through tsx, and some convert wide workbooks: generous limits
describe('conversions in a worker thread', { timeout: 120_000 }, () => {
  it('give the result the conversion gives in-process', async () => {
    const workers = new SheetWorkers();
    const inProcess = await convertSpreadsheetBytes(workbook('orders.xlsx'), 'orders.xlsx', 'sheet-test');
    expect(await workers.convert(request('orders.xlsx'))).toEqual({ result: inProcess });
  });

  it('a result larger than the caller can send comes back as its exact size only', async () => {
    const workers = new SheetWorkers();
    const inProcess = await convertSpreadsheetBytes(
      workbook('functions.xlsx'),
      'functions.xlsx',
      'sheet-test',
    );
    const size = JSON.stringify(inProcess, null, 2).length;
    expect(await workers.convert(request('functions.xlsx'), { maxResultChars: size - 1 })).toEqual({
      tooLarge: { resultChars: size },
    });
    expect(await workers.convert(request('functions.xlsx'), { maxResultChars: size })).toEqual({
      result: inProcess,
    });
  });

  it('past the workers and the queue, a conversion is refused as BUSY; those queued run in turn', async () => {
    const workers = new SheetWorkers({ budgets: budgets({ workers: 1, queue: 1 }) });
    const big = {
      bytes: wideWorkbook({ rows: 500, columns: 20, formulaColumns: 2 }),
      filename: 'b.xlsx',
      modelId: 'b',
    };
    const first = workers.convert(big);
    const second = workers.convert(request('orders.xlsx'));
    expect(workers.load).toEqual({ running: 1, waiting: 1 });
    const third = await workers.convert(request('orders.xlsx'));
    expect(resultOf(third)).toMatchObject({ valid: false, reason: 'BUSY' });
    expect(errorOf(third)).toContain('MODELWORKS_SHEET_WORKERS=1, MODELWORKS_SHEET_QUEUE=1');
    expect(resultOf(await first)).toMatchObject({ valid: true });
    expect(resultOf(await second)).toMatchObject({ valid: true });
    expect(workers.load).toEqual({ running: 0, waiting: 0 });
  });

  it('a worker past its heap limit is RESOURCE_LIMIT; the next conversion runs', async () => {
    const workers = new SheetWorkers({ budgets: budgets({ workerMemoryMb: 32, maxCells: 1_000_000 }) });
    const big = wideWorkbook({ rows: 3000, columns: 100, formulaColumns: 10 });
    const outcome = await workers.convert({ bytes: big, filename: 'big.xlsx', modelId: 'big' });
    expect(resultOf(outcome)).toMatchObject({ valid: false, reason: 'RESOURCE_LIMIT' });
    expect(resultOf(await workers.convert(request('orders.xlsx')))).toMatchObject({ valid: true });
  });

  it('a worker past its time limit is stopped and answered TIME_LIMIT', async () => {
    const workers = new SheetWorkers({
      budgets: budgets({ timeLimitSeconds: 1, maxCells: 2_000_000, workerMemoryMb: 4096 }),
    });
    const huge = wideWorkbook({ rows: 5000, columns: 100, formulaColumns: 20 });
    const outcome = await workers.convert({ bytes: huge, filename: 'huge.xlsx', modelId: 'huge' });
    expect(resultOf(outcome)).toMatchObject({ valid: false, reason: 'TIME_LIMIT' });
    expect(errorOf(outcome)).toContain('1-second limit (MODELWORKS_SHEET_TIME_LIMIT_SECONDS)');
    expect(workers.load).toEqual({ running: 0, waiting: 0 });
  });

  it('a cancelled request stops its conversion', async () => {
    const workers = new SheetWorkers();
    const abort = new AbortController();
    const pending = workers.convert(request('functions.xlsx'), { signal: abort.signal });
    abort.abort();
    expect(resultOf(await pending)).toMatchObject({ valid: false, reason: 'CANCELLED' });
  });
});

describe('prettyJsonLength', () => {
  it('is the length of JSON.stringify(value, null, 2), without building it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(prettyJsonLength(v)).toBe(JSON.stringify(v, null, 2).length);
      }),
      { numRuns: 500 },
    );
    expect(prettyJsonLength({ a: undefined, b: [undefined, () => 1] })).toBe(
      JSON.stringify({ a: undefined, b: [undefined, () => 1] }, null, 2).length,
    );
  });
});
