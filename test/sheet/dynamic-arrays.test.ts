// Excel 365 dynamic arrays (issue 39): SORT, UNIQUE, FILTER, SEQUENCE, SORTBY spilled from an
// anchor (`<f t="array" ref="E10:E15">` with `cm=`), the spill's cells stored as plain values, and
// formulas reading the spill (`E10#` = `_xlfn.ANCHORARRAY(E10)`, INDEX over it, a plain reference
// into it). LibreOffice 7.4 (this machine's) has none of these functions, so the stored values here
// are their documented meaning written out in plain JavaScript (Microsoft's rules: text without
// case, a stable sort, numbers before text), and after edits the independent grid evaluator is the
// oracle (the conversion's what-if check); a second test runs the grid alone against the same values.
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { CellGrid } from '../../src/sheet/grid/evaluate.js';
import { readWorkbookParts } from '../../src/sheet/xlsx.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;

const NAMES = ['Ann', 'bob', 'Cid', 'ann', 'Dee', 'Bob'];
const SCORES = [40, 75, 60, 90, 20, 75];

const lower = (s: string): string => s.toLowerCase();
const SORTED = [...SCORES].sort((a, b) => a - b);
const UNIQUE = NAMES.filter((n, i) => NAMES.findIndex((m) => lower(m) === lower(n)) === i);
const BIG = NAMES.filter((_, i) => SCORES[i]! > 50);
const SEQ = [10, 15, 20, 25];
// stable, descending by score
const BY_SCORE = NAMES.map((n, i) => ({ n, s: SCORES[i]!, i }))
  .sort((a, b) => b.s - a.s || a.i - b.i)
  .map((x) => x.n);

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An anchor at column E of `at` with its spill below it, labelled in column D. */
function spill(at: number, label: string, f: string, values: (number | string)[]): string[] {
  const v = (x: number | string): string => (typeof x === 'number' ? `<v>${x}</v>` : `<v>${esc(x)}</v>`);
  const t = (x: number | string): string => (typeof x === 'number' ? '' : ' t="str"');
  const rows = [
    row(
      at,
      text(`D${at}`, label),
      `<c r="E${at}" cm="1"${t(values[0]!)}><f t="array" ref="E${at}:E${at + values.length - 1}">${esc(f)}</f>${v(values[0]!)}</c>`,
    ),
  ];
  values.slice(1).forEach((x, i) => rows.push(row(at + i + 1, `<c r="E${at + i + 1}"${t(x)}>${v(x)}</c>`)));
  return rows;
}

/** The formulas that read the spills, with their values. */
const READERS: { f: string; value: number | string }[] = [
  { f: 'E10*2', value: SORTED[0]! * 2 },
  { f: 'SUM(_xlfn.ANCHORARRAY(E10))', value: SORTED.reduce((a, b) => a + b, 0) },
  { f: 'INDEX(_xlfn.ANCHORARRAY(E20),2)', value: UNIQUE[1]! },
  { f: 'E11+E12', value: SORTED[1]! + SORTED[2]! },
  { f: 'COUNT(_xlfn.ANCHORARRAY(E40))', value: SEQ.length },
  { f: 'MAX(_xlfn.ANCHORARRAY(E40))', value: Math.max(...SEQ) },
];

function book(): Uint8Array {
  const rows = [row(1, text('A1', 'Name'), text('B1', 'Score'))];
  NAMES.forEach((n, i) => rows.push(row(i + 2, text(`A${i + 2}`, n), num(`B${i + 2}`, SCORES[i]!))));
  rows.push(
    ...spill(10, 'Sorted scores', '_xlfn._xlws.SORT(B2:B7)', SORTED),
    ...spill(20, 'Unique names', '_xlfn.UNIQUE(A2:A7)', UNIQUE),
    ...spill(30, 'Big scorers', '_xlfn._xlws.FILTER(A2:A7,B2:B7>50)', BIG),
    ...spill(40, 'Steps', '_xlfn.SEQUENCE(4,1,10,5)', SEQ),
    ...spill(50, 'By score', '_xlfn.SORTBY(A2:A7,B2:B7,-1)', BY_SCORE),
  );
  READERS.forEach((r, i) =>
    rows.push(row(60 + i, text(`D${60 + i}`, `Reader ${i + 1}`), formula(`E${60 + i}`, r.f, r.value))),
  );
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

const SPILLED = SORTED.length + UNIQUE.length + BIG.length + SEQ.length + BY_SCORE.length;

describe('dynamic arrays and spills', () => {
  it('the grid evaluator computes each spill and the formulas reading it', () => {
    const grid = new CellGrid(readWorkbookParts(book()));
    grid.recalculate();
    const column = (top: number, n: number): unknown[] =>
      Array.from({ length: n }, (_, i) => grid.value(0, top + i, 5));
    expect(column(10, SORTED.length)).toEqual(SORTED);
    expect(column(20, UNIQUE.length)).toEqual(UNIQUE);
    expect(column(30, BIG.length)).toEqual(BIG);
    expect(column(40, SEQ.length)).toEqual(SEQ);
    expect(column(50, BY_SCORE.length)).toEqual(BY_SCORE);
    expect(column(60, READERS.length)).toEqual(READERS.map((r) => r.value));
  });

  it('compile to arrays whose cells and readers reproduce the stored values and agree after edits', async () => {
    const c = await convertWorkbook(book(), { modelId: 'spills' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`);
    expect(why).toEqual([]);
    // every cell of every spill, and every reader, is a compiled formula cell
    expect(c.report.formulaCells).toBe(SPILLED + READERS.length);
    expect(c.report.compiledCells).toBe(SPILLED + READERS.length);
    // each checked after the seeded edits (SEQUENCE of constants and its readers: constants)
    expect(c.report.verifiedCells).toBe(SPILLED + READERS.length);
    const arrays = c.spec.derivations.filter((d) =>
      ['$.sorted_scores', '$.unique_names', '$.big_scorers', '$.by_score'].includes(d.path),
    );
    expect(arrays).toHaveLength(4);
    // SEQUENCE of constants reads no input: a formula of constants, its value the model's start
    const props = c.spec.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.steps).toMatchObject({ default: SEQ });
    // the sorted spill and its readers depend on every score: checked after each edit
    const checks = new Map(c.report.checks.map((k) => [k.address, k.checked]));
    for (const address of ['E10', 'E11', 'E15', 'E50', 'E60', 'E61', 'E63'])
      expect(checks.get(address), address).toMatch(/^what-if/);
  });

  it('a spill over more than one column, or of a function not compiled, is rejected with its reason', async () => {
    const rows = [row(1, text('A1', 'Name'), text('B1', 'Score'))];
    NAMES.forEach((n, i) => rows.push(row(i + 2, text(`A${i + 2}`, n), num(`B${i + 2}`, SCORES[i]!))));
    rows.push(...spill(10, 'Sorted', '_xlfn._xlws.SORT(B2:B7,1,1,TRUE)', SORTED));
    const c = await convertWorkbook(xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]), {
      modelId: 'spills',
    });
    expect(c.rejectedColumns.map((r) => [r.reason, r.cells ?? 1])).toEqual([
      ['UNSUPPORTED_FUNCTION', SORTED.length],
    ]);
  });
});
