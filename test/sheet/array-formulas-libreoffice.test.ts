// Element-wise array formulas (issue 39, the fourth held-out set: branch-sales-stock-gavin's
// `{=C5:G54*J4:N4}` block and `{=SUM(C5:C54*J4)}`, ratio-analysis-suravi's `=TRANSPOSE(K3:M8)`
// spill, lbo-calebjgartner's `=+C3:C5`) against LibreOffice: each generated workbook is
// recalculated by headless LibreOffice, as stored and after seeded edits; the converted model and
// the cell-grid evaluator must both give LibreOffice's value in every formula cell (the cells of
// each result range included), and nothing may be rejected. Skipped without soffice.
import { SPILLED, type Input } from './oracle/book.js';
import { range, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 5113;

/** The cells of `from`:`to` other than the anchor `from`, as SPILLED. */
function spilled(cells: Record<string, Input>, cols: string, top: number, bottom: number): void {
  for (const c of cols)
    for (let r = top; r <= bottom; r++) if (cells[`${c}${r}`] === undefined) cells[`${c}${r}`] = SPILLED;
}

function stockBlock(): Pattern {
  const cells: Record<string, Input> = {
    A4: 'Branch',
    C4: 'P1',
    D4: 'P2',
    E4: 'P3',
    I4: 'Price',
    J4: 4.5,
    K4: 12,
    L4: 0.75,
  };
  [
    [10, 3, 0],
    [7, 0, 25],
    [0, 14, 9],
    [22, 5, 31],
  ].forEach((row, i) => {
    cells[`A${5 + i}`] = `B${i + 1}`;
    row.forEach((v, j) => (cells[`${'CDE'[j]}${5 + i}`] = v));
  });
  cells.R5 = '{R5:T8}=C5:E8*J4:L4';
  spilled(cells, 'RST', 5, 8);
  cells.J2 = '{}=SUM(C5:C8*J4)';
  cells.K2 = '{}=SUM(D5:D8*K4)';
  cells.L2 = '{}=SUM(E5:E8*$L$4)+1';
  cells.J1 = '=SUM(R5:T8)';
  cells.K1 = '=S6*2';
  return {
    name: 'stock-block',
    covers:
      'a legacy array block (a block times a row of prices), one-cell {=SUM(range*cell)}, cells reading the block',
    book: { sheets: [{ name: 'Stock', cells }] },
    edits: [
      {
        sheet: 'Stock',
        cells: [...range('C', 5, 8), ...range('D', 5, 8), ...range('E', 5, 8)],
        kind: 'number',
        min: 0,
        max: 40,
        integer: true,
      },
      { sheet: 'Stock', cells: ['J4', 'K4', 'L4'], kind: 'number', min: 0.5, max: 20 },
    ],
  };
}

function conditionalSums(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Region',
    B1: 'Sales',
    D1: 'North',
    E1: 'South',
    F1: 'Big',
    G1: 'Count',
  };
  [
    ['N', 120],
    ['S', 80],
    ['N', 45.5],
    ['E', 300],
    ['S', 12],
    ['N', 9],
  ].forEach(([r, v], i) => {
    cells[`A${2 + i}`] = r!;
    cells[`B${2 + i}`] = v!;
  });
  cells.D2 = '{}=SUM(IF(A2:A7="N",B2:B7,0))';
  cells.E2 = '{}=SUM((A2:A7="S")*B2:B7)';
  cells.F2 = '{}=SUM(IF(B2:B7>$J$1,B2:B7,0))';
  cells.G2 = '{}=SUM(IF(B2:B7>$J$1,1,0))';
  cells.I1 = 'Threshold';
  cells.J1 = 50;
  return {
    name: 'conditional-sums',
    covers:
      '{=SUM(IF(range="N",range,0))}, {=SUM((range="S")*range)}, a sum and a count over a threshold {=SUM(IF(range>cell,range,0))}, {=SUM(IF(range>cell,1,0))}',
    book: { sheets: [{ name: 'Sales', cells }] },
    edits: [
      { sheet: 'Sales', cells: range('A', 2, 7), kind: 'category', values: ['N', 'S', 'E'] },
      { sheet: 'Sales', cells: range('B', 2, 7), kind: 'number', min: 0, max: 400 },
      { sheet: 'Sales', cells: ['J1'], kind: 'number', min: 0, max: 400 },
    ],
  };
}

function spills(): Pattern {
  const cells: Record<string, Input> = {
    A1: 'Year',
    B1: 2024,
    C1: 2025,
    D1: 2026,
    A2: 'Revenue',
    B2: 100,
    C2: 130,
    D2: 150,
  };
  cells.A3 = 'Margin';
  cells.B3 = 0.2;
  cells.C3 = 0.25;
  cells.D3 = 0.3;
  // the years and revenue turned into columns, and a copy scaled by a cell
  cells.F2 = '{F2:G4}#=TRANSPOSE(B1:D2)';
  spilled(cells, 'FG', 2, 4);
  cells.I2 = '{I2:I4}#=TRANSPOSE(B3:D3)*$B$6';
  spilled(cells, 'I', 2, 4);
  cells.K2 = '{K2:M2}#=+B2:D2*(1+B3:D3)';
  spilled(cells, 'KLM', 2, 2);
  cells.A6 = 'Scale';
  cells.B6 = 2;
  cells.H6 = '=G3+I3+L2';
  return {
    name: 'spills',
    covers:
      'Excel 365 spills: TRANSPOSE of a block, TRANSPOSE times a cell, a row times a row, a cell reading them',
    book: { sheets: [{ name: 'Plan', cells }] },
    edits: [
      { sheet: 'Plan', cells: ['B2', 'C2', 'D2'], kind: 'number', min: 0, max: 500 },
      { sheet: 'Plan', cells: ['B3', 'C3', 'D3', 'B6'], kind: 'number', min: 0, max: 1 },
    ],
  };
}

describePatternsAgainstLibreOffice({
  title: 'element-wise array formulas',
  patterns: [stockBlock(), conditionalSums(), spills()],
  seed: SEED,
  edits: EDITS,
  idPrefix: 'arrays',
});
