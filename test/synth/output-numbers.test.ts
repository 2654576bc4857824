/**
 * The CSV hot path prints small whole numbers from a table: every number around and inside the
 * table's range prints as the general path (Java's Double.toString, decimal ints) does.
 */
import { describe, expect, it } from 'vitest';
import { DOUBLE, INT, Row } from '../../src/synth/engine/row.js';
import { javaDoubleToString } from '../../src/synth/random/java-double.js';
import { renderRow, valueText } from '../../src/synth/output/format.js';

/** A row of numbers of one kind. */
function numbers(values: number[], kind: number): Row {
  const r = new Row(values.length);
  values.forEach((v, i) => {
    r.nums[i] = v;
    r.kinds[i] = kind;
  });
  return r;
}

const EDGES = [
  -0,
  0,
  0.5,
  1,
  2,
  7,
  15,
  999,
  1023,
  1023.5,
  1024,
  1025,
  -1,
  -1023,
  1e7,
  2 ** 31,
  NaN,
  Infinity,
];

describe('small whole numbers from the table', () => {
  it('print as Java prints doubles, in every column', () => {
    const expected = EDGES.map((v) => javaDoubleToString(v)).join(',') + '\n';
    expect(renderRow(numbers(EDGES, DOUBLE), EDGES.length, 'csv', [])).toBe(expected);
    expect(valueText(-0, DOUBLE)).toBe('-0.0');
    expect(valueText(1023, DOUBLE)).toBe('1023.0');
  });

  it('print as decimal ints, in every column', () => {
    const ints = EDGES.filter((v) => Number.isInteger(v) && !Object.is(v, -0));
    const expected = ints.map((v) => String(v)).join(',') + '\n';
    expect(renderRow(numbers(ints, INT), ints.length, 'csv', [])).toBe(expected);
  });

  it('print the same with and without a character budget', () => {
    const row = numbers(EDGES, DOUBLE);
    expect(renderRow(row, EDGES.length, 'csv', [], 10_000)).toBe(renderRow(row, EDGES.length, 'csv', []));
  });
});
