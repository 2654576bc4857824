// RANK's edges the LibreOffice test cannot show (extra-functions.ts): a value not in the list has
// no rank (Excel's #N/A; LibreOffice ranks it anyway), and numbers compare as they are, never as
// 15-digit text (`">"&x` would count x itself when it has more digits). Stored values by hand.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

describe('RANK', () => {
  it('ranks by exact value, and gives no value for a number not in the list', async () => {
    const marks = [71, 88, 71, 54.5, 90];
    const rows = [
      row(
        1,
        text('A1', 'Student'),
        text('B1', 'Marks'),
        text('C1', 'Rank'),
        text('D1', 'Up'),
        text('E1', 'Probe'),
        text('F1', 'Probe rank'),
      ),
    ];
    const rank = (x: number, up = false): number => 1 + marks.filter((v) => (up ? v < x : v > x)).length;
    marks.forEach((m, i) => {
      const r = i + 2;
      rows.push(
        row(
          r,
          text(`A${r}`, `s${r}`),
          num(`B${r}`, m),
          formula(`C${r}`, `RANK(B${r},$B$2:$B$6)`, rank(m)),
          formula(`D${r}`, `RANK(B${r},$B$2:$B$6,1)`, rank(m, true)),
          num(`E${r}`, 90),
          formula(`F${r}`, `RANK(E${r},$B$2:$B$6)`, 1),
        ),
      );
    });
    const c = await convertWorkbook(xlsxBook([{ name: 'Marks', rows: rows.join('') }]), { modelId: 'rank' });
    expect(c.rejectedColumns).toEqual([]);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    // 88.30000000000001 written in 15 digits is 88.3: a text criterion would rank it below 88.3
    const edited = [88.3, 88.30000000000001, 71, 54.5, 90];
    await runtime.mutate(Object.fromEntries(edited.map((m, i) => [`$.rows[${i}].marks`, m])));
    const state = (await runtime.getState()).rows as { rank: unknown; up: unknown }[];
    expect(state.map((r) => r.rank)).toEqual([3, 2, 4, 5, 1]);
    expect(state.map((r) => r.up)).toEqual([3, 4, 2, 1, 5]);
    // a probe not among the marks has no rank (Excel's #N/A)
    await runtime.mutate({ '$.rows[0].probe': 80, '$.rows[1].probe': 88.3 });
    const probes = (await runtime.getState()).rows as { probe_rank: unknown }[];
    expect(probes.map((r) => r.probe_rank)).toEqual([null, 3, 1, 1, 1]);
  });
});
