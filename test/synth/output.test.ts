/** Output formats (§8): CSV quoting and header, raw, JSON Lines, JSON array, chunked streaming. */
import { describe, expect, it } from 'vitest';
import { DOUBLE, INT, Row, STRING } from '../../src/synth/engine/row.js';
import { renderRow, valueText } from '../../src/synth/output/format.js';
import { grind, xmlModel } from './helpers.js';

const TWO = xmlModel(
  'A',
  '<Append name="A"><input name="I"/><input name="D"/></Append><Constant name="I" value="7" type="int"/><Constant name="D" value="0.5"/>',
);

function row(values: (number | string)[], kinds: (0 | 1 | 2)[]): Row {
  const r = new Row(values.length);
  values.forEach((v, i) => {
    r.kinds[i] = kinds[i]!;
    if (typeof v === 'string') r.strs[i] = v;
    else r.nums[i] = v;
  });
  return r;
}

describe('output formats', () => {
  it('prints ints in decimal and doubles as Java does', () => {
    expect(valueText(5, INT)).toBe('5');
    expect(valueText(15, DOUBLE)).toBe('15.0');
    expect(valueText(1e-5, DOUBLE)).toBe('1.0E-5');
    expect(valueText('Saint Frédéric', STRING)).toBe('Saint Frédéric');
  });

  it('quotes CSV fields per RFC 4180', () => {
    const r = row(
      ['8935 Woodland Dr, Wilkesville', 'say "hi"', 'two\nlines', 'plain'],
      [STRING, STRING, STRING, STRING],
    );
    expect(renderRow(r, 4, 'csv', [])).toBe(
      '"8935 Woodland Dr, Wilkesville","say ""hi""","two\nlines",plain\n',
    );
  });

  it('writes the header only when asked, and a final newline', () => {
    expect(grind(TWO, 1, 2, 'csv', true)).toBe('dim0,dim1\n7,0.5\n7,0.5\n');
    expect(grind(TWO, 1, 1, 'csv', false)).toBe('7,0.5\n');
  });

  it('writes raw values verbatim, tab-separated', () => {
    expect(grind(TWO, 1, 2, 'raw')).toBe('7\t0.5\n7\t0.5\n');
  });

  it('writes JSON Lines and a JSON array with the same values', () => {
    expect(grind(TWO, 1, 2, 'ndjson')).toBe('{"dim0":7,"dim1":0.5}\n{"dim0":7,"dim1":0.5}\n');
    const arr = grind(TWO, 1, 3, 'json');
    expect(JSON.parse(arr)).toEqual([
      { dim0: 7, dim1: 0.5 },
      { dim0: 7, dim1: 0.5 },
      { dim0: 7, dim1: 0.5 },
    ]);
    expect(grind(TWO, 1, 0, 'json')).toBe('[]\n');
  });

  it('keeps non-finite doubles valid JSON', () => {
    const r = row([NaN, -Infinity], [DOUBLE, DOUBLE]);
    expect(JSON.parse(renderRow(r, 2, 'ndjson', ['dim0', 'dim1']))).toEqual({
      dim0: 'NaN',
      dim1: '-Infinity',
    });
  });

  it('renders the same bytes whatever the chunk size', () => {
    const text = xmlModel('N', '<Normal name="N"/>');
    expect(grind(text, 3, 1000)).toBe(grind(text, 3, 1000, 'csv', false));
  });
});
