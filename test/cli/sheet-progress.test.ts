// Progress of `calc from-xlsx` (src/cli/sheet-progress.ts, issue 39 point 6): nothing for the
// first 2 s; then sheets read, cells compiled, cells verified, as a bar on a terminal and as a few
// plain lines elsewhere. And the converter tells those stages, in order, as it goes.
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
    progress.stop();
    expect(out.text().split('\n')).toEqual([
      'modelworks: big.xlsx: 2 of 2 sheets read',
      'modelworks: big.xlsx: 10,000 of 100,000 formula cells compiled',
      'modelworks: big.xlsx: 90,000 of 100,000 formula cells compiled',
      'modelworks: big.xlsx: 0 of 100,000 formula cells verified',
      'modelworks: big.xlsx: 100,000 of 100,000 formula cells verified',
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
  it('tells the sheets read, the cells compiled and the cells verified, in that order', async () => {
    const seen: ConvertProgress[] = [];
    const c = await convertWorkbook(wideWorkbook({ rows: 50, columns: 6, formulaColumns: 3 }), {
      modelId: 'wide',
      onProgress: (p) => seen.push({ ...p }),
    });
    expect(c.report.verifiedCells).toBe(150);
    expect(seen[0]).toEqual({ stage: 'read', done: 1, total: 1 });
    const stages = [...new Set(seen.map((p) => p.stage))];
    expect(stages).toEqual(['read', 'compile', 'verify']);
    const compile = seen.filter((p) => p.stage === 'compile');
    expect(compile.at(-1)).toEqual({ stage: 'compile', done: 150, total: 150 });
    expect(seen.at(-1)).toEqual({ stage: 'verify', done: 150, total: 150 });
  });
});
