// An IF whose condition is an error is that error (issue 39: held-out loan schedules,
// `=IF(H11>1,IF(C11="","",C11+1),"")` under an IPMT that gives #NUM! past the term, were refused
// as WHAT_IF_MISMATCH: the model took the FALSE branch, "", where the workbook's formulas give the
// error). The oracle is the cell-grid evaluator (Excel's rule: a comparison with an error is the
// error, and IF of an error is the error); the model must give no value there, never a branch.
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

const bytes = xlsx(
  [
    row(
      1,
      text('A1', 'Key'),
      text('B1', 'Size'),
      text('C1', 'Same'),
      text('E1', 'Code'),
      text('F1', 'Weight'),
    ),
    row(
      2,
      text('A2', 'a'),
      formula('B2', 'IF(VLOOKUP(A2,$E$2:$F$3,2,FALSE)>5,"big","small")', 'big'),
      formula('C2', 'IF(VLOOKUP(A2,$E$2:$F$3,2,FALSE)=7,1,0)', 1),
      text('E2', 'a'),
      num('F2', 7),
    ),
    row(
      3,
      text('A3', 'b'),
      formula('B3', 'IF(VLOOKUP(A3,$E$2:$F$3,2,FALSE)>5,"big","small")', 'small'),
      formula('C3', 'IF(VLOOKUP(A3,$E$2:$F$3,2,FALSE)=7,1,0)', 0),
      text('E3', 'b'),
      num('F3', 2),
    ),
  ].join(''),
);

describe('IF of an error is the error', () => {
  it('a key the lookup does not find gives no value, as the grid evaluator gives #N/A', async () => {
    const c = await convertWorkbook(bytes, { modelId: 'if-errors' });
    expect(c.report.rejected).toEqual([]);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    await runtime.mutate({ '$.rows[1].key': 'zz' });
    const rows = ((await runtime.getState()) as { rows: { size: unknown; same: unknown }[] }).rows;
    // the oracle: the grid evaluator with the same edit
    const book = readWorkbookParts(bytes);
    const grid = new CellGrid(book);
    const [size, same] = grid.withEdits([{ sheet: 0, row: 3, col: 1, value: 'zz' }], () => [
      grid.value(0, 3, 2),
      grid.value(0, 3, 3),
    ]);
    expect(size).toBeInstanceOf(Error);
    expect(same).toBeInstanceOf(Error);
    expect(rows[1]!.size ?? null).toBeNull();
    expect(rows[1]!.same ?? null).toBeNull();
    // the row whose key is found is unchanged
    expect(rows[0]).toMatchObject({ size: 'big', same: 1 });
  });
});
