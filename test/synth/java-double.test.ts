/** Java 19+ `Double.toString` layout (synth spec §3.4). */
import { describe, expect, it } from 'vitest';
import { javaDoubleToString } from '../../src/synth/random/java-double.js';

describe('javaDoubleToString', () => {
  it.each([
    [15, '15.0'],
    [0.0015, '0.0015'],
    [0.001, '0.001'],
    [9999999.5, '9999999.5'],
    [1e7, '1.0E7'],
    [-9.694709707277804e-5, '-9.694709707277804E-5'],
    [1.2345e-7, '1.2345E-7'],
    [2134, '2134.0'],
    [1020.778556837366, '1020.778556837366'],
    [1e23, '1.0E23'],
    [-1.30005675913573402e18, '-1.300056759135734E18'],
    [Number.MAX_VALUE, '1.7976931348623157E308'],
    [Number.MIN_VALUE, '4.9E-324'],
    [8.9e-323, '8.9E-323'],
    [0, '0.0'],
    [-0, '-0.0'],
    [NaN, 'NaN'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
  ])('%s prints as %s', (x, text) => {
    expect(javaDoubleToString(x)).toBe(text);
  });

  it('reads back as the same double', () => {
    for (const x of [Math.PI, 1 / 3, 123456.789, 6.02214076e23, 1e-300, 0.1 + 0.2]) {
      expect(Number(javaDoubleToString(x))).toBe(x);
    }
  });
});
