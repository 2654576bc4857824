// Progress of `calc from-xlsx` (src/cli/sheet-progress.ts, issue 39 point 6): nothing for the
// first 2 s; then sheets read, cells compiled, cells checked at the stored values and after the
// what-if edits, as a bar on a terminal and as a few plain lines elsewhere. And the converter tells
// those stages, in order, as it goes (the checks per slice of rows of a long table).
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sheetProgress } from '../../src/cli/sheet-progress.js';
import { convertWorkbook, type ConvertProgress } from '../../src/sheet/index.js';
import { wideWorkbook } from '../sheet/wide-workbook.mjs';

function stream(isTTY: boolean): PassThrough & { isTTY: boolean; columns: number; text(): string } {
  const s = Object.assign(new PassThrough(), { isTTY, columns: 120 });
  let text = '';
  s.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return Object.assign(s, { text: () => text });
}

describe('sheetProgress', () => {
  it('writes plain lines off a terminal: none in the first 2 s, then one per stage and one per 2 s', async () => {
    const out = stream(false);
    let now = 0;
    const progress = await sheetProgress({ stream: out, now: () => now, prefix: 'modelworks: big.xlsx' });
    progress.update({ stage: 'read', done: 1, total: 2 });
    now = 2_100;
    progress.update({ stage: 'read', done: 2, total: 2 });
    now = 2_200;
    progress.update({ stage: 'compile', done: 10_000, total: 100_000 });
    now = 2_300;
    progress.update({ stage: 'compile', done: 20_000, total: 100_000 });
    now = 4_300;
    progress.update({ stage: 'compile', done: 90_000, total: 100_000 });
    now = 4_400;
    progress.update({ stage: 'verify', done: 0, total: 100_000 });
    progress.update({ stage: 'verify', done: 100_000, total: 100_000 });
    progress.update({ stage: 'what-if', done: 0, total: 100_000 });
    now = 6_500;
    progress.update({ stage: 'what-if', done: 50_000, total: 100_000 });
    progress.stop();
    expect(out.text().split('\n')).toEqual([
      'modelworks: big.xlsx: 2 of 2 sheets read',
      'modelworks: big.xlsx: 10,000 of 100,000 formula cells compiled',
      'modelworks: big.xlsx: 90,000 of 100,000 formula cells compiled',
      'modelworks: big.xlsx: 0 of 100,000 formula cells checked at the stored values',
      'modelworks: big.xlsx: 100,000 of 100,000 formula cells checked at the stored values',
      'modelworks: big.xlsx: 0 of 100,000 formula cells checked after what-if edits',
      'modelworks: big.xlsx: 50,000 of 100,000 formula cells checked after what-if edits',
      '',
    ]);
  });

  it('draws a bar per stage on a terminal once 2 s have passed, and clears it at the end', async () => {
    const out = stream(true);
    let now = 0;
    const progress = await sheetProgress({ stream: out, now: () => now });
    progress.update({ stage: 'read', done: 1, total: 3 });
    expect(out.text()).toBe('');
    now = 2_500;
    progress.update({ stage: 'compile', done: 40_000, total: 100_000 });
    expect(stripVTControlCharacters(out.text())).toContain('40,000/100,000 formula cells compiled');
    progress.stop();
    expect(out.text().endsWith('\x1b[2K')).toBe(true);
  });

  it('says nothing for a conversion within 2 s', async () => {
    for (const tty of [true, false]) {
      const out = stream(tty);
      const progress = await sheetProgress({ stream: out, now: () => 1_000 });
      progress.update({ stage: 'verify', done: 5, total: 5 });
      progress.stop();
      expect(out.text()).toBe('');
    }
  });
});

describe('convertWorkbook onProgress', () => {
  it('tells the sheets read, the cells compiled, the cells checked and after edits, in that order', async () => {
    const seen: ConvertProgress[] = [];
    const c = await convertWorkbook(wideWorkbook({ rows: 50, columns: 6, formulaColumns: 3 }), {
      modelId: 'wide',
      onProgress: (p) => seen.push({ ...p }),
    });
    expect(c.report.verifiedCells).toBe(150);
    expect(seen[0]).toEqual({ stage: 'read', done: 1, total: 1 });
    const stages = [...new Set(seen.map((p) => p.stage))];
    expect(stages).toEqual(['read', 'compile', 'verify', 'what-if']);
    const compile = seen.filter((p) => p.stage === 'compile');
    expect(compile.at(-1)).toEqual({ stage: 'compile', done: 150, total: 150 });
    expect(seen.filter((p) => p.stage === 'verify').at(-1)).toEqual({
      stage: 'verify',
      done: 150,
      total: 150,
    });
    expect(seen.at(-1)).toEqual({ stage: 'what-if', done: 150, total: 150 });
  });

  it('tells the checks of a long table slice by slice, not only at their start and end', async () => {
    const seen: ConvertProgress[] = [];
    // 1,200 rows: three slices of SLICE_ROWS (500) for the stored values and for each of 3 edits
    const c = await convertWorkbook(wideWorkbook({ rows: 1200, columns: 4, formulaColumns: 2 }), {
      modelId: 'long',
      onProgress: (p) => seen.push({ ...p }),
    });
    expect(c.report.verifiedCells).toBe(2400);
    const done = (stage: string): number[] => seen.filter((p) => p.stage === stage).map((p) => p.done);
    // told per run: a third of the cells after each
    expect(done('verify')).toEqual([0, 800, 1600, 2400]);
    expect(new Set(done('what-if')).size).toBeGreaterThanOrEqual(9);
    expect(done('what-if').at(-1)).toBe(2400);
  });
});
