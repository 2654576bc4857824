// LET, LAMBDA (called in place and through a defined name) and CLEAN (issue 39). The stored values
// and the values after edits of the inputs are the formulas' meaning written out in plain
// arithmetic here (CLEAN's from @formulajs/formulajs): data, not the converter's output.
import * as formulajs from '@formulajs/formulajs';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const fj = formulajs as unknown as Record<string, (...args: unknown[]) => unknown>;

type Inputs = { price: number; qty: number; note: string };
const CASES: { at: string; f: string; value: (i: Inputs) => number | string }[] = [
  {
    at: 'H3',
    f: '_xlfn.LET(_xlpm.p,E3,_xlpm.q,E4,_xlpm.p*_xlpm.q+_xlpm.p)',
    value: ({ price, qty }) => price * qty + price,
  },
  {
    at: 'H4',
    f: '_xlfn.LET(_xlpm.x,E3,_xlfn.LET(_xlpm.x,_xlpm.x+1,_xlpm.x*E4)+_xlpm.x)',
    value: ({ price, qty }) => (price + 1) * qty + price,
  },
  {
    at: 'H5',
    f: '_xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x*2+_xlpm.y)(E3,E4)',
    value: ({ price, qty }) => price * 2 + qty,
  },
  { at: 'H6', f: 'AddTax(E3)+AddTax(E4)', value: ({ price, qty }) => price * 1.25 + qty * 1.25 },
  { at: 'H7', f: 'CLEAN(E5)', value: ({ note }) => fj.CLEAN!(note) as string },
  {
    at: 'H8',
    f: '_xlfn.LET(_xlpm.n,LEN(CLEAN(E5)),_xlpm.n*E4)',
    value: ({ note, qty }) => (fj.CLEAN!(note) as string).length * qty,
  },
];

const START: Inputs = { price: 8, qty: 3, note: 'a\tb\nc\rd' };

function book(
  names = '<definedName name="AddTax">_xlfn.LAMBDA(_xlpm.v,_xlpm.v*1.25)</definedName>',
): Uint8Array {
  const rows = [
    row(
      3,
      text('D3', 'Price'),
      num('E3', START.price),
      text('G3', 'Let'),
      formula('H3', CASES[0]!.f, CASES[0]!.value(START)),
    ),
    row(
      4,
      text('D4', 'Qty'),
      num('E4', START.qty),
      text('G4', 'Nested'),
      formula('H4', CASES[1]!.f, CASES[1]!.value(START)),
    ),
    row(
      5,
      text('D5', 'Note'),
      text('E5', START.note),
      text('G5', 'Called'),
      formula('H5', CASES[2]!.f, CASES[2]!.value(START)),
    ),
    ...CASES.slice(3).map((c, i) =>
      row(6 + i, text(`G${6 + i}`, `Case ${c.at}`), formula(c.at, c.f, c.value(START))),
    ),
  ];
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }], names);
}

describe('LET, LAMBDA and CLEAN', () => {
  it('compile, reproduce the stored values and agree after edits of the inputs', async () => {
    const c = await convertWorkbook(book(), { modelId: 'let' });
    const why = c.rejectedColumns.map((r) => `${r.address}: ${r.reason}: ${r.message}`).join('; ');
    expect(why === '' ? 'compiled' : why).toBe('compiled');
    expect(c.report.verifiedCells).toBe(CASES.length);
    const pathOf = (address: string): string =>
      c.spec.derivations.find((d) => d.description?.includes(`(cell ${address})`))!.path.slice(2);
    const runtime = new ModelRuntime(await compileModel(normalizeSpec(c.spec).spec));
    await runtime.initialize({ recomputeAll: true });
    await runtime.mutate(c.spec.tests[0]!.given);
    for (const edit of [
      { price: -2.5, qty: 7, note: 'plain' },
      { price: 0, qty: 0, note: '\t\n' },
      { price: 1e6, qty: 0.125, note: 'x\ny' },
    ]) {
      await runtime.mutate({ '$.price': edit.price, '$.qty': edit.qty, '$.note': edit.note });
      const state = (await runtime.getState()) as Record<string, unknown>;
      expect(CASES.map((k) => [k.at, state[pathOf(k.at)]])).toEqual(CASES.map((k) => [k.at, k.value(edit)]));
    }
  });

  it('a LAMBDA given the wrong number of arguments, or never called, is rejected', async () => {
    const wrong = xlsxBook(
      [
        {
          name: 'Sheet1',
          rows:
            row(3, text('D3', 'Price'), num('E3', 8), text('G3', 'Two'), formula('H3', 'AddTax(E3,E3)', 10)) +
            row(4, text('G4', 'Bare'), formula('H4', '_xlfn.LAMBDA(_xlpm.x,_xlpm.x)', 0)) +
            row(5, text('G5', 'Loop'), formula('H5', 'Again(E3)', 0)),
        },
      ],
      '<definedName name="AddTax">_xlfn.LAMBDA(_xlpm.v,_xlpm.v*1.25)</definedName><definedName name="Again">_xlfn.LAMBDA(_xlpm.v,Again(_xlpm.v))</definedName>',
    );
    const c = await convertWorkbook(wrong, { modelId: 'let' });
    expect(c.rejectedColumns.map((r) => [r.address, r.reason])).toEqual([
      ['H3', 'UNSUPPORTED_SYNTAX'],
      ['H4', 'UNSUPPORTED_FUNCTION'],
      ['H5', 'CIRCULAR_REFERENCE'],
    ]);
  });
});
