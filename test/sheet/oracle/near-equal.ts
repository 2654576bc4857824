// Numbers that cancel or tie within their last bits (found by the held-out LibreOffice check of
// issue 39): a spreadsheet's `+` and `-` give 0 when the result is within the last bits of the
// operands (LibreOffice's approxAdd and approxSub; Excel at a formula's last step) and its
// comparisons hold such numbers equal (approxEqual), so a reconciliation cell reads 0 and "OK"
// where plain doubles give -5.7e-14 and "ERROR". The stored values here cancel exactly (quarters);
// the edits' tenths and hundredths do not.
import type { Input } from './book.js';
import { range, table, type Pattern } from './layout.js';

export function reconciliation(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Kind', 'Amount'],
    [
      ['cash', 10.25],
      ['card', 3.5],
      ['bank', 7.75],
      ['cash', 1.25],
      ['card', 20],
      ['bank', 0.5],
      ['cash', 4.25],
      ['card', 6],
    ],
    [],
  );
  Object.assign(cells, {
    D1: 'Kind',
    E1: 'Subtotal',
    D2: 'cash',
    E2: '=SUMIF($A$2:$A$9,D2,$B$2:$B$9)',
    D3: 'card',
    E3: '=SUMIF($A$2:$A$9,D3,$B$2:$B$9)',
    D4: 'bank',
    E4: '=SUMIF($A$2:$A$9,D4,$B$2:$B$9)',
    G1: 'Total',
    H1: '=SUM(B2:B9)',
    G2: 'Check',
    H2: '=H1-SUM(E2:E4)',
    G3: 'Status',
    H3: '=IF(H2=0,"OK","ERROR")',
    G4: 'Direct',
    H4: '=IF(H1=E2+E3+E4,"OK","ERROR")',
    G5: 'Covered',
    H5: '=IF(E2+E3+E4>=H1,"OK","short")',
    G6: 'Short by',
    H6: '=MAX(0,H1-(E2+E3+E4))',
  });
  return {
    name: 'reconciliation',
    covers:
      'a check cell that cancels within the last bits: the subtraction gives 0, = and >= hold near-equal numbers equal',
    book: { sheets: [{ name: 'Check', cells }] },
    edits: [
      // tenths and hundredths that are not exact in binary: sums taken in another order end a few
      // bits apart
      {
        sheet: 'Check',
        cells: range('B', 2, 9),
        kind: 'category',
        values: [0.1, 0.2, 0.3, 0.7, 1.1, 2.2, 3.3, 0.07],
      },
      { sheet: 'Check', cells: range('A', 2, 9), kind: 'category', values: ['cash', 'card', 'bank'] },
    ],
  };
}
