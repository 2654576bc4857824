// A SUM over a block of side cells with a blank cell that another formula reads directly (issue
// 39, financial-model-rene: `=SUM(K64:K65)+K66` with K65 blank, K65 an input of the model since
// another sheet reads it). The blank cell is an input, so it may be edited: the sum must follow it,
// as the workbook's own SUM does (it was skipped, and the what-if check found the model wrong by
// exactly the edit: WHAT_IF_MISMATCH). Stored values worked out here.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { pathOfCell } from '../../src/sheet/cellmap.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, formula, row } = cell;

describe('a blank side cell inside a SUM', () => {
  it('is an input the sum follows when another formula reads it', async () => {
    const rows = [
      row(2, text('A2', 'Opening'), num('B2', 5)),
      row(3, text('A3', 'Additions')),
      row(4, text('A4', 'Total'), formula('B4', 'SUM(B2:B3)', 5)),
      row(6, text('A6', 'Twice additions'), formula('B6', 'B3*2', 0)),
    ].join('');
    const c = await convertWorkbook(xlsxBook([{ name: 'Loan', rows }]), { modelId: 'blank' });
    expect(c.rejectedColumns).toEqual([]);
    expect(c.report.verifiedCells).toBe(2);
    const at = (a: string): string => pathOfCell(c.report.cellMap, `Loan!${a}`)!;
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate({ ...c.spec.tests[0]!.given, [`$.${at('B3')}`]: 7 });
    const state = await runtime.getState();
    expect([state[at('B4')], state[at('B6')]]).toEqual([12, 14]);
  });
});
