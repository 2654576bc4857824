/**
 * What must hold after every hostile call, whatever it was: the answer is in our words (no
 * JavaScript engine text), no shared prototype gained a property, and the process's memory stays
 * under a bound. `liveness` checks the server still does ordinary work.
 */
import { expect } from 'vitest';

/** Texts only the JavaScript engine writes: seeing one in a result means an error escaped unmapped. */
export const ENGINE_TEXT =
  /Cannot read propert|Cannot set propert|is not a function|is not defined|Maximum call stack|Unexpected token|is not iterable|Cannot convert|Cannot destructure|Invalid array length|Invalid string length|in JSON at position|Unexpected end of JSON|out of memory|\[object Object\]|\n\s+at [\w.<>]+ \(/;

const watched = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const cleanKeys = watched.map((p) => Reflect.ownKeys(p).map(String).join(','));

/** The process may hold this much more than when the suite started, and no more. */
const RSS_GROWTH_LIMIT = 1536 * 1024 * 1024;
const rssAtStart = process.memoryUsage().rss;

export function checkAfterCall(label: string, answerText: string): void {
  expect(answerText, `${label}: engine text in the answer`).not.toMatch(ENGINE_TEXT);
  watched.forEach((proto, i) => {
    expect(Reflect.ownKeys(proto).map(String).join(','), `${label}: a shared prototype was polluted`).toBe(
      cleanKeys[i],
    );
  });
  const grown = process.memoryUsage().rss - rssAtStart;
  expect(grown, `${label}: memory grew by ${Math.round(grown / 2 ** 20)} MiB`).toBeLessThan(RSS_GROWTH_LIMIT);
}

/** Calls per property: the suite's runs are spread over every tool or route, at least this many. */
export function runsPer(targets: number, total: number): number {
  const override = Number(process.env.MODELWORKS_FUZZ_RUNS ?? '');
  const wanted = Number.isInteger(override) && override > 0 ? override : total;
  return Math.max(5, Math.ceil(wanted / targets));
}

/** fast-check parameters: a fixed seed can be passed to replay a failure it printed. */
export function fuzzParameters(numRuns: number): { numRuns: number; seed?: number; endOnFailure: true } {
  const seed = Number(process.env.MODELWORKS_FUZZ_SEED ?? '');
  return { numRuns, endOnFailure: true, ...(Number.isInteger(seed) && seed !== 0 ? { seed } : {}) };
}
