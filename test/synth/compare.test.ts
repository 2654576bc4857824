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

  it('a missing category: a coverage finding naming it', () => {
    // dim0 is the channel (0 chat, 1 email, 2 phone at 10 %): phone calls become chats
    const noPhone: Table = {
      header: own.header,
      rows: own.rows.map((r) => r.map((c, i) => (i === 0 && c === '2' ? '0' : c))),
    };
    const report = compareTables(noPhone, generated);
    const coverage = report.findings.find((f) => f.kind === 'coverage' && f.column === 'dim0');
    expect(coverage?.severity).toBe('high');
    expect(coverage?.message).toContain('"2"');
    expect(report.columns[0]!.categories?.missingInSample).toEqual(['2']);
  });

  it('a broken correlation: a correlation finding on that pair', () => {
    // dim5 is dim4 times (1 + U): shuffling dim5 alone breaks their rank correlation
    const seed = 20;
    const random = mulberry32(seed);
    const order = own.rows.map((_, i) => i).sort(() => random() - 0.5);
    const broken: Table = {
      header: own.header,
      rows: own.rows.map((r, k) => r.map((c, i) => (i === 5 ? own.rows[order[k]!]![5]! : c))),
    };
    const report = compareTables(broken, generated);
    const high = report.findings.filter((f) => f.severity === 'high' && f.kind === 'correlation');
    expect(high.map((f) => f.message).join('\n'), `shuffle seed ${seed}`).toContain('dim4 and dim5');
  });

  it('copied identifiers: an identifier finding on that column', () => {
    // 40 of the output's wait times (doubles, all distinct) copied into the sample
    const copied: Table = {
      header: own.header,
      rows: own.rows.map((r, k) => r.map((c, i) => (i === 2 && k % 25 === 0 ? generated.rows[k]![2]! : c))),
    };
    const report = compareTables(copied, generated);
    const id = report.findings.find((f) => f.kind === 'identifier' && f.column === 'dim2');
    expect(id?.severity).toBe('high');
    expect(id?.message).toMatch(/^40 value\(s\) unique in the sample appear verbatim/);
    // and nothing of the kind on the untouched sample
    expect(compareTables(own, generated).findings.filter((f) => f.kind === 'identifier')).toEqual([]);
  });
});

/** A small seeded generator for the shuffles (printed on failure through the test's message). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
