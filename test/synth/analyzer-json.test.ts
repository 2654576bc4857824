/** The analyzer's JSON keeps the fraction of its double fields (`2.0`), as the format has it (§7.1). */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringifyWithDoubles } from '../../src/cli/synth-json.js';
import { xmlModel } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHOICE = xmlModel(
  'Choice',
  '<Mix name="Choice"><input name="A" weight="2"/><input name="B"/></Mix><Binomial name="A" n="1" p="0.3"/><Binomial name="B" n="1" p="0.45"/>',
);

describe('stringifyWithDoubles', () => {
  it('prints double fields as Java does and leaves everything else as JSON.stringify does', () => {
    const value = {
      complexity: { predictedAverageDepth: 2, nodeCount: 3, score: 30, summary: 'predictedAvgDepth=2.000' },
      throughput: { sampleCount: 5000, sampleDurationMs: 32, observationsPerSecond: 156250 },
      fast: { observationsPerSecond: 12_500_000 },
      odd: { predictedAverageDepth: 2.5, confidence: NaN },
      text: '\u0000not a marker:1',
    };
    const text = stringifyWithDoubles(value);
    expect(text).toContain('"predictedAverageDepth": 2.0,');
    expect(text).toContain('"observationsPerSecond": 156250.0\n');
    expect(text).toContain('"observationsPerSecond": 1.25E7\n');
    expect(text).toContain('"predictedAverageDepth": 2.5,');
    expect(text).toContain('"nodeCount": 3,');
    expect(JSON.parse(text)).toEqual({ ...value, odd: { predictedAverageDepth: 2.5, confidence: null } });
  });
});

describe('modelworks synth analyze --json', { timeout: 60_000 }, () => {
  it('writes predictedAverageDepth 2.0 and a fractional observationsPerSecond', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src', 'cli', 'main.ts'),
        'synth',
        'analyze',
        '--json',
        '--samples',
        '200',
        '-',
      ],
      { cwd: ROOT, encoding: 'utf8', input: CHOICE },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('"predictedAverageDepth": 2.0,');
    expect(r.stdout).toMatch(/"observationsPerSecond": \d+\.\d+(E\d+)?\n/);
    expect(JSON.parse(r.stdout).results[0].complexity.predictedAverageDepth).toBe(2);
  });
});
