/**
 * Java's `Double.toString` (JDK 19+, shortest-digit algorithm) in TypeScript. JavaScript already
 * finds the shortest round-trip digits; only the layout differs: plain notation for magnitudes in
 * [1e-3, 1e7), otherwise `d.dddE<exp>`, always with at least one fractional digit.
 */

const MIN_NORMAL = 2.2250738585072014e-308;

/** Formats a double exactly as Java 19+ `Double.toString(x)` does. */
export function javaDoubleToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    // Fast path: JavaScript already prints this range in plain notation with the shortest digits.
    const s = String(x);
    return s.includes('.') ? s : s + '.0';
  }
  const sign = x < 0 ? '-' : '';
  let [digits, exp] = shortestDigits(abs);
  if (digits.length === 1 && abs < MIN_NORMAL) [digits, exp] = closestTwoDigits(abs, digits, exp);
  const frac = digits.length > 1 ? digits.slice(1) : '0';
  return `${sign}${digits[0]}.${frac}E${exp}`;
}

/** Shortest round-trip decimal digits (no trailing zeros) and the exponent of the first digit. */
function shortestDigits(abs: number): [string, number] {
  const s = abs.toExponential();
  const e = s.indexOf('e');
  const digits = s.slice(0, e).replace('.', '').replace(/0+$/, '') || '0';
  return [digits, Number(s.slice(e + 1))];
}

/**
 * Subnormals whose shortest form has one digit: Java prints two digits and picks the two-digit
 * decimal closest to the exact value that still reads back as the same double (4.9E-324, not 5E-324).
 * The closest one may sit one decade lower: 2 * MIN_VALUE is 9.9E-324, not 1.0E-323.
 */
function closestTwoDigits(abs: number, digits: string, exp: number): [string, number] {
  // Exact value = m * 2^-1074. A candidate c * 10^(e-1) (c in 10..99, e = exp or exp - 1) is
  // compared exactly: all distances are scaled by 2^1074 * 10^(2 - exp) (exp is negative here).
  const m = BigInt(Math.round(abs / 5e-324));
  const pow2 = 1n << 1074n;
  const mScaled = m * 10n ** BigInt(2 - exp);
  let best: [number, number] = [Number(digits) * 10, exp];
  let bestDist = -1n;
  for (const e of [exp, exp - 1]) {
    for (let c = 10; c <= 99; c++) {
      if (Number(`${c}e${e - 1}`) !== abs) continue;
      let dist = BigInt(c) * 10n ** BigInt(e - exp + 1) * pow2 - mScaled;
      if (dist < 0n) dist = -dist;
      if (bestDist < 0n || dist < bestDist) {
        best = [c, e];
        bestDist = dist;
      }
    }
  }
  return [String(best[0]).replace(/0$/, ''), best[1]];
}
