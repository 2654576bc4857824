/**
 * JSON as SpiceGrinder's analyzer writes it: fields that hold a double (`predictedAverageDepth`,
 * `observationsPerSecond`, the isolated benchmark's figures) keep their fraction, printed as Java
 * prints a double (`2.0`, `156250.0`, `1.0E7`), where JSON.stringify would print `2`.
 */
import { randomBytes } from 'node:crypto';
import { javaDoubleToString } from '../synth/index.js';

/** The analyzer report's double-valued fields (§7.1); every other number is an integer. */
export const DOUBLE_FIELDS: ReadonlySet<string> = new Set([
  'predictedAverageDepth',
  'observationsPerSecond',
  'measuredAverageDepth',
  'baselineNanosPerCall',
  'confidence',
  'relativeMultiplier',
]);

/** `JSON.stringify(value, null, indent)`, with the fields of DOUBLE_FIELDS in Java's notation. */
export function stringifyWithDoubles(value: unknown, indent = 2): string {
  // a per-call random marker: no string in the report can forge it
  const marker = `\u0000${randomBytes(8).toString('hex')}:`;
  const text = JSON.stringify(
    value,
    (key, v: unknown) =>
      DOUBLE_FIELDS.has(key) && typeof v === 'number' && Number.isFinite(v)
        ? `${marker}${javaDoubleToString(v)}`
        : v,
    indent,
  );
  const escaped = JSON.stringify(marker).slice(1, -1);
  return text.replace(new RegExp(`"${escaped.replace(/\\/g, '\\\\')}([^"]*)"`, 'g'), '$1');
}
