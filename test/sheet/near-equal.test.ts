// Numbers that cancel or tie within their last bits (issue 39, found by the held-out LibreOffice
// check): the compiled model's outermost subtraction gives 0 and its comparisons hold such numbers
// equal, as a spreadsheet computes them (Excel's last step; LibreOffice's approxSub/approxEqual)
// and as the grid evaluator that verifies the model does. The stored values cancel exactly; the
// edited ones (0.1 + 0.2 against 0.3) do not, which is where plain doubles went wrong.
import { describe, expect, it } from 'vitest';
import { dryRun, type JsonObject } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsx } from './helpers.js';

const { text, num, formula, row } = cell;

async function converted() {
  const c = await convertWorkbook(
    xlsx(
      row(
        1,
        ...['A', 'B', 'C', 'Diff', 'Zero', 'Tie', 'Ge', 'Lt', 'Blank'].map((h, i) =>
          text(`${'ABCDEFGHI'[i]}1`, h),
        ),
      ) +
        row(
          2,
          num('A2', 0.25),
          num('B2', 0.5),
          num('C2', 0.75),
          formula('D2', 'A2+B2-C2', 0),
          formula('E2', 'IF(A2+B2-C2=0,"OK","ERROR")', 'OK'),
          formula('F2', 'IF(A2+B2=C2,"tie","differ")', 'tie'),
          formula('G2', 'IF(A2+B2>=C2,"ge","lt")', 'ge'),
          formula('H2', 'IF(A2+B2<C2,"lt","ge")', 'ge'),
          formula('I2', 'IF(A2="","blank","set")', 'set'),
        ) +
        row(
          3,
          num('A3', 1),
          num('B3', 2),
          num('C3', 4),
          formula('D3', 'A3+B3-C3', -1),
          formula('E3', 'IF(A3+B3-C3=0,"OK","ERROR")', 'ERROR'),
          formula('F3', 'IF(A3+B3=C3,"tie","differ")', 'differ'),
          formula('G3', 'IF(A3+B3>=C3,"ge","lt")', 'lt'),
          formula('H3', 'IF(A3+B3<C3,"lt","ge")', 'lt'),
          formula('I3', 'IF(A3="","blank","set")', 'set'),
        ),
    ),
    { modelId: 'near-equal' },
  );
  expect(c.rejectedColumns).toEqual([]);
  return c;
}

async function run(rows: { a: number; b: number; c: number }[]): Promise<JsonObject[]> {
  const { spec } = await converted();
  const given = structuredClone(spec.tests[0]!.given) as JsonObject;
  const table = given['$.rows'] as JsonObject[];
  rows.forEach((r, i) => Object.assign(table[i]!, r));
  const { tests: _tests, ...rest } = spec;
  const { state } = await dryRun({ ...rest, tests: [] }, given);
  return state.rows as JsonObject[];
}

describe('numbers within the last bits of each other (issue 39)', () => {
  it('a sum that cancels within the last bits is 0, and near-equal numbers compare equal', async () => {
    expect(0.1 + 0.2 - 0.3).not.toBe(0); // 5.55e-17 in plain doubles
    const [r] = await run([{ a: 0.1, b: 0.2, c: 0.3 }]);
    expect(r).toMatchObject({ diff: 0, zero: 'OK', tie: 'tie', ge: 'ge', lt: 'ge', blank: 'set' });
  });

  it('numbers apart by more than the last bits stay apart', async () => {
    const [, r] = await run([
      { a: 0.25, b: 0.5, c: 0.75 },
      { a: 1, b: 2, c: 3 + 1e-12 },
    ]);
    expect(r!.diff).toBe(1 + 2 - (3 + 1e-12)); // about -1e-12: not within the last bits of 3
    expect(r).toMatchObject({ zero: 'ERROR', tie: 'differ', ge: 'lt', lt: 'lt', blank: 'set' });
  });
});
