// Lookups whose ranges do not start on the same row (issue 39): the position found in one range
// indexes the other from that range's own first cell. The workbook's stored values are chosen so
// that an aligned reading agrees with them (as in the real workbook that hid the defect); the
// models are then evaluated after an edit of the key, against @formulajs/formulajs computing the
// same formula over the same cells (an evaluator independent of ours).
import * as formulajs from '@formulajs/formulajs';
import { describe, expect, it } from 'vitest';
import { compileModel, ModelRuntime, normalizeSpec, type ModelSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxBook } from './helpers.js';

const { text, num, row, formula } = cell;
const fj = formulajs as unknown as Record<string, (...args: unknown[]) => unknown>;

const KEYS = [101, 102, 103, 104];
const VALUES = [20, 20, 20, 40];

/** Sheet1: a Key | Value table in B2:C6, a key in B10 and one formula in C10 (stored `stored`). */
function book(f: string, key: number, stored: number | string, at = 'C10'): Uint8Array {
  const rows = [row(2, text('B2', 'Key'), text('C2', 'Value'))];
  KEYS.forEach((k, i) => rows.push(row(i + 3, num(`B${i + 3}`, k), num(`C${i + 3}`, VALUES[i]!))));
  rows.push(row(10, text('A10', 'Wanted'), num('B10', key), formula(at, f, stored)));
  return xlsxBook([{ name: 'Sheet1', rows: rows.join('') }]);
}

/** The column C2:C6 and B3:B6 as a spreadsheet holds them (the header text first). */
const C2_C6 = ['Value', ...VALUES];
const B3_B6 = KEYS;

/** The one derivation of the spec: the formula cell C10. */
const computedName = (spec: ModelSpec): string => {
  const paths = spec.derivations.map((d) => d.path).filter((p) => !p.includes('index'));
  expect(paths).toHaveLength(1);
  return paths[0]!.slice(2);
};

async function runtimeOf(spec: ModelSpec): Promise<ModelRuntime> {
  const runtime = new ModelRuntime(await compileModel(normalizeSpec(spec).spec));
  await runtime.initialize({ recomputeAll: true });
  await runtime.mutate(spec.tests[0]!.given);
  return runtime;
}

/** Converts, then sets the key to each of `keys` and returns what the model computes for C10. */
async function afterEdits(
  f: string,
  stored: number | string,
  keys: number[],
  at?: string,
): Promise<unknown[]> {
  const c = await convertWorkbook(book(f, 102, stored, at), { modelId: 'offsets' });
  const why = c.rejectedColumns.map((r) => `${r.reason}: ${r.message}`).join('; ');
  expect(why === '' ? 'compiled' : why).toBe('compiled');
  const runtime = await runtimeOf(c.spec);
  const out: unknown[] = [];
  for (const k of keys) {
    await runtime.mutate({ '$.wanted': k });
    const state = (await runtime.getState()) as Record<string, unknown>;
    out.push(state[computedName(c.spec)]);
  }
  return out;
}

describe('lookups over ranges offset from each other', () => {
  it('INDEX(C2:C6, MATCH(B10, B3:B6, 0)): key 104 gives 20, as Excel and LibreOffice do', async () => {
    const keys = [102, 103, 104];
    const expected = keys.map((k) => fj.INDEX!(C2_C6, fj.MATCH!(k, B3_B6, 0)));
    expect(expected).toEqual([20, 20, 20]);
    const got = await afterEdits('INDEX(C2:C6,MATCH(B10,B3:B6,0))', 20, keys);
    expect(got).toEqual(expected);
  });

  it('INDEX(C3:C6, MATCH(B10, B2:B6, 0)): the match counts the header row', async () => {
    const expected = KEYS.map((k) => fj.INDEX!(VALUES, fj.MATCH!(k, ['Key', ...KEYS], 0)));
    // the stored value for 102 (position 3 → C5 = 20) agrees with an aligned reading too
    const got = await afterEdits('INDEX(C3:C6,MATCH(B10,B2:B6,0))', 20, [102, 103]);
    expect(got).toEqual(expected.slice(1, 3));
  });

  it('INDEX(C:C, MATCH(B10, B3:B6, 0)): a whole column counts from row 1', async () => {
    const column = [null, 'Value', ...VALUES];
    const keys = [102, 103, 104];
    const expected = keys.map((k) => column[(fj.MATCH!(k, B3_B6, 0) as number) - 1]);
    expect(expected).toEqual(['Value', 20, 20]);
    const got = await afterEdits('INDEX(C:C,MATCH(B10,B3:B6,0))', 'Value', keys, 'E10');
    expect(got).toEqual(expected);
  });

  it('XLOOKUP with the return array one row above the lookup array', async () => {
    const at = (k: number) => C2_C6[KEYS.indexOf(k)];
    const got = await afterEdits('_xlfn.XLOOKUP(B10,B3:B6,C2:C5)', 20, KEYS);
    expect(got).toEqual(KEYS.map(at));
  });

  it('XLOOKUP over arrays of different lengths is rejected (Excel gives #VALUE!)', async () => {
    const c = await convertWorkbook(book('_xlfn.XLOOKUP(B10,B3:B6,C2:C6)', 102, 20), { modelId: 'o' });
    expect(c.rejectedColumns.map((r) => r.reason)).toEqual(['UNSUPPORTED_REFERENCE']);
  });
});
