// VALUE, DATEDIF, LOOKUP (vector form), LARGE, SMALL and PROPER (issue 39, the third held-out set)
// against LibreOffice: each generated workbook is recalculated by headless LibreOffice, as stored
// and after seeded edits; the converted model and the cell-grid evaluator must both give
// LibreOffice's value in every formula cell, and nothing may be rejected. Also amortization-pooja's
// PPMT: LibreOffice gives the model's value, not the one WPS stored. Skipped without soffice.
import type { Input } from './oracle/book.js';
import { range, table, type Pattern } from './oracle/layout.js';
import { describePatternsAgainstLibreOffice } from './oracle/pattern-suite.js';

const EDITS = 4;
const SEED = 2041;

const TEXTS: Input[] = [
  '1,234.5',
  ' 12 ',
  '12%',
  '$5',
  '(5)',
  '-3.5',
  '1e3',
  '$1,234.50',
  '+7',
  '.5',
  '0.25%',
];

function values(): Pattern {
  const cells: Record<string, Input> = {
    D1: 'Typed',
    E1: '=VALUE(1019100)',
    D2: 'Side',
    E2: 4.5,
    F2: '=VALUE(E2)*2',
  };
  table(
    cells,
    1,
    'A',
    ['Text', 'Value'],
    TEXTS.slice(0, 6).map((t) => [t]),
    ['=VALUE(A#)'],
  );
  return {
    name: 'value',
    covers:
      'VALUE of grouped, spaced, percent, currency, negative-in-parentheses and plain numbers as text, and of a number',
    book: { sheets: [{ name: 'Main', cells }] },
    edits: [
      { sheet: 'Main', cells: range('A', 2, 7), kind: 'category', values: TEXTS },
      { sheet: 'Main', cells: ['E2'], kind: 'number', min: -100, max: 100 },
    ],
  };
}

function datedif(): Pattern {
  const cells: Record<string, Input> = {};
  // ends of months, 29 February, the same day, a day before the anniversary, as serials
  table(
    cells,
    1,
    'A',
    ['Start', 'End', 'Y', 'M', 'D', 'MD', 'YM', 'YD'],
    [
      [42035, 42064],
      [43890, 44255],
      [43524, 43889],
      [40000, 45000],
      [44000, 44000],
      [43861, 43890],
      [43951, 44347],
      [43830, 44196],
    ],
    [
      '=DATEDIF(A#,B#,"Y")',
      '=DATEDIF(A#,B#,"M")',
      '=DATEDIF(A#,B#,"D")',
      '=DATEDIF(A#,B#,"MD")',
      '=DATEDIF(A#,B#,"YM")',
      '=DATEDIF(A#,B#,"yd")',
    ],
  );
  return {
    name: 'datedif',
    covers: 'DATEDIF in units Y, M, D, MD, YM, YD over ends of months, leap days and equal dates',
    book: { sheets: [{ name: 'Dates', cells }] },
    edits: [
      { sheet: 'Dates', cells: range('A', 2, 9), kind: 'number', min: 40000, max: 44000, integer: true },
      { sheet: 'Dates', cells: range('B', 2, 9), kind: 'number', min: 44000, max: 46000, integer: true },
    ],
  };
}

function lookup(): Pattern {
  // a constant block of sorted keys with a tie (a lookup's keys edited out of order would leave
  // the result to each spreadsheet's binary search: such a cell is rejected, so none is edited)
  const cells: Record<string, Input> = {
    D1: 'Income',
    E1: 52000,
    D2: 'Rate',
    E2: '=LOOKUP(E1,$A$2:$A$7,$B$2:$B$7)',
    D3: 'Band',
    E3: '=LOOKUP(E1,$A$2:$A$7)',
    D4: 'Name',
    E4: '=LOOKUP(E1,$A$10:$F$10,$A$11:$F$11)',
  };
  const keys = [0, 12000, 40000, 40000, 90000, 150000];
  const rates = [0, 0.1, 0.2, 0.25, 0.4, 0.45];
  keys.forEach((k, i) => {
    cells[`A${i + 2}`] = k;
    cells[`B${i + 2}`] = rates[i]!;
    cells[`${String.fromCharCode(65 + i)}10`] = k;
    cells[`${String.fromCharCode(65 + i)}11`] = ['Nil', 'Low', 'Mid', 'High', 'Top', 'Max'][i]!;
  });
  return {
    name: 'lookup',
    covers: "LOOKUP's vector form on sorted keys (a tie among them, below the first, across a row)",
    book: { sheets: [{ name: 'Tax', cells }] },
    edits: [{ sheet: 'Tax', cells: ['E1'], kind: 'number', min: -5000, max: 200000, integer: true }],
  };
}

function largeSmall(): Pattern {
  const cells: Record<string, Input> = {
    C1: 'Top',
    D1: '=LARGE(A2:A8,1)',
    C2: 'Second',
    D2: '=LARGE(A2:A8,2)',
    C3: 'Third',
    D3: '=LARGE(A2:A8,C6)',
    C4: 'Lowest',
    D4: '=SMALL(A2:A8,1)',
    C5: 'Second lowest',
    D5: '=SMALL(A2:A8,2)',
    C6: 3,
    C7: 'Past the count',
    D7: '=IFERROR(SMALL(A2:A8,8),-1)',
  };
  table(cells, 1, 'A', ['Score'], [[70], [85], [85], [62], [91], [62], [77]], []);
  return {
    name: 'large-small',
    covers: 'LARGE and SMALL with ties, a k from a cell and a k past the count',
    book: { sheets: [{ name: 'Scores', cells }] },
    edits: [
      { sheet: 'Scores', cells: range('A', 2, 8), kind: 'number', min: 60, max: 66, integer: true },
      { sheet: 'Scores', cells: ['C6'], kind: 'number', min: 1, max: 7, integer: true },
    ],
  };
}

const NAMES: Input[] = ["o'neil", 'JOHN smith', 'mary-jane 2nd', 'élan VITAL', 'x', 'mcdonald'];

function proper(): Pattern {
  const cells: Record<string, Input> = {};
  table(
    cells,
    1,
    'A',
    ['Name', 'Proper'],
    NAMES.slice(0, 4).map((n) => [n]),
    ['=PROPER(A#)'],
  );
  return {
    name: 'proper',
    covers: 'PROPER after apostrophes, hyphens, digits and spaces, accented letters',
    book: { sheets: [{ name: 'People', cells }] },
    edits: [{ sheet: 'People', cells: range('A', 2, 5), kind: 'category', values: NAMES }],
  };
}

function wpsLoan(): Pattern {
  // amortization-pooja (written by WPS Spreadsheets) stored PPMT 1705.32516570242 here; the model
  // gives 1705.3251657024084, which LibreOffice's (and Excel's formula order's) 1705.32516570241 is
  const cells: Record<string, Input> = {
    J2: 'Amount',
    K2: 500000,
    J4: 'Rate',
    K4: 0.13,
    J6: 'Per year',
    K6: 1,
    J7: 'Periods',
    K7: 30,
  };
  table(
    cells,
    1,
    'A',
    ['Period', 'Principal', 'Interest'],
    [[1], [2], [15], [30]],
    ['=PPMT($K$4/$K$6,A#,$K$7,-$K$2)', '=IPMT($K$4/$K$6,A#,$K$7,-$K$2)'],
  );
  return {
    name: 'wps-loan',
    covers: "amortization-pooja's PPMT: LibreOffice's value is the model's",
    book: { sheets: [{ name: 'Amortization', cells }] },
    edits: [{ sheet: 'Amortization', cells: ['K4'], kind: 'number', min: 0.01, max: 0.2 }],
  };
}

const PATTERNS: Pattern[] = [values(), datedif(), lookup(), largeSmall(), proper(), wpsLoan()];

describePatternsAgainstLibreOffice({
  title: 'VALUE, DATEDIF, LOOKUP, LARGE, SMALL, PROPER',
  patterns: PATTERNS,
  seed: SEED,
  edits: EDITS,
  idPrefix: 'extra',
});
