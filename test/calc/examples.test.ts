import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeSpec, runTests, validateSpec } from '../../src/calc/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const ours = join(here, '../../examples/calc');
const corpus = join(here, '../../../shared/conformance/calc-examples');

const specsIn = (dir: string): [string, unknown][] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8'))]);

describe('bundled examples', () => {
  const files = specsIn(ours);
  it('include insurance-quote and car-loan-calculator', () => {
    expect(files.map(([f]) => f)).toEqual(
      expect.arrayContaining(['insurance-quote.json', 'car-loan-calculator.json']),
    );
  });
  it.each(files)('%s validates and passes every embedded test', async (_file, json) => {
    const report = await validateSpec(json, { runTests: false });
    expect(report.errors).toEqual([]);
    const { spec } = normalizeSpec(json);
    expect(spec.tests.length).toBeGreaterThan(0);
    const tests = await runTests(spec);
    expect(tests.results.filter((r) => !r.passed)).toEqual([]);
  });
});

// The conformance corpus lives beside the project only on machines that have ../shared.
describe.runIf(existsSync(corpus))('conformance corpus (../shared/conformance/calc-examples)', () => {
  const files = existsSync(corpus) ? specsIn(corpus) : [];
  it('has the 13 specs with 38 tests', () => {
    expect(files).toHaveLength(13);
    expect(files.reduce((n, [, json]) => n + normalizeSpec(json).spec.tests.length, 0)).toBe(38);
  });
  it.each(files)('%s validates with no errors and passes every embedded test', async (_file, json) => {
    expect((await validateSpec(json, { runTests: false })).errors).toEqual([]);
    const tests = await runTests(normalizeSpec(json).spec);
    expect(tests.results.filter((r) => !r.passed)).toEqual([]);
  });
});
