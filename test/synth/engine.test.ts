/** Execution model (§2): pull order, laziness, synchronous nodes, Redimension, seeds, structure. */
import { describe, expect, it } from 'vitest';
import { normalCdf, normalQuantile } from '../../src/synth/components/samplers.js';
import { resolveSeed } from '../../src/synth/engine/run.js';
import { parseModel } from '../../src/synth/model/io.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { validateModelText } from '../../src/synth/validate/validator.js';
import { grind, rows, xmlModel } from './helpers.js';

describe('pull order and laziness', () => {
  it('draws in depth-first document order from one shared stream', () => {
    const out = rows(
      grind(
        xmlModel(
          'A',
          '<Append name="A"><input name="U"/><input name="V"/></Append><Uniform name="U"/><Uniform name="V" min="10" max="20"/>',
        ),
        5,
        3,
      ),
    );
    const rng = new L64X128MixRandom(5);
    for (const r of out) expect(r).toEqual([rng.nextDouble(), 10 + 10 * rng.nextDouble()]);
  });

  it('Mix pulls only the chosen input', () => {
    const out = rows(
      grind(
        xmlModel(
          'M',
          '<Mix name="M"><input name="U" weight="1"/><input name="V" weight="3"/></Mix><Uniform name="U"/><Uniform name="V" min="10" max="11"/>',
        ),
        8,
        50,
      ),
    );
    const rng = new L64X128MixRandom(8);
    for (const [v] of out) {
      const chosen = rng.nextDouble() < 0.25 ? 0 : 1;
      expect(v).toBe(chosen === 0 ? rng.nextDouble() : 10 + rng.nextDouble());
    }
  });

  it('a synchronous Mix input is stepped even when not chosen', () => {
    const nodes = `<Mix name="M"><input name="Inner" weight="1"/><input name="C" weight="1"/></Mix>
      <Mix name="Inner" synchronous="true"><input name="U"/><input name="U2"/></Mix>
      <Sequence name="U"/><Sequence name="U2" start="100"/><Constant name="C" value="-1"/>`;
    const seen = rows(grind(xmlModel('M', nodes), 3, 40))
      .map((r) => r[0]!)
      .filter((v) => v >= 0);
    // Inner advances on every row, so its sequences run ahead of the rows where it is chosen.
    const lazy = rows(grind(xmlModel('M', nodes.replace('synchronous="true"', 'synchronous="false"')), 3, 40))
      .map((r) => r[0]!)
      .filter((v) => v >= 0);
    expect(seen).not.toEqual(lazy);
    expect(
      Math.max(...seen.filter((v) => v < 100), ...seen.map((v) => v - 100).filter((v) => v >= 0)),
    ).toBeGreaterThan(
      Math.max(...lazy.filter((v) => v < 100), ...lazy.map((v) => v - 100).filter((v) => v >= 0)),
    );
  });

  it('Redimension re-chunks the data-point stream and carries leftovers over', () => {
    const out = grind(
      xmlModel(
        'R',
        '<Redimension name="R" dimension="2"><input name="S"/></Redimension><Sequence name="S"/>',
      ),
      1,
      2,
    );
    expect(out).toBe('0.0,1.0\n2.0,3.0\n');
    const odd = grind(
      xmlModel(
        'R',
        '<Redimension name="R" dimension="2"><input name="A"/></Redimension><Redimension name="A" dimension="3"><input name="S"/></Redimension><Sequence name="S"/>',
      ),
      1,
      3,
    );
    expect(odd).toBe('0.0,1.0\n2.0,3.0\n4.0,5.0\n');
  });

  it('Arrange picks, repeats and drops columns, keeping their types', () => {
    const out = grind(
      xmlModel(
        'A',
        '<Arrange name="A" columns="1 0 1"><input name="P"/></Arrange><Append name="P"><input name="I"/><input name="D"/></Append><Constant name="I" value="4" type="int"/><Constant name="D" value="2.5"/>',
      ),
      1,
      1,
    );
    expect(out).toBe('2.5,4,2.5\n');
  });

  it('ToInteger rounds the selected columns only', () => {
    const out = grind(
      xmlModel(
        'T',
        '<ToInteger name="T" mode="round" indexes="1"><input name="P"/></ToInteger><Append name="P"><input name="A"/><input name="B"/></Append><Constant name="A" value="2.5"/><Constant name="B" value="-2.5"/>',
      ),
      1,
      1,
    );
    expect(out).toBe('2.5,-2\n');
  });

  it('Switch routes by key and pulls only the chosen branch', () => {
    const nodes = `<Switch name="S" key="0"><input name="K" role="input"/><input name="One" value="1"/><input name="Other" value="*"/></Switch>
      <Categorical name="K" weights="1,1"/><Constant name="One" value="100"/><Constant name="Other" value="-5"/>`;
    for (const [k, v] of rows(grind(xmlModel('S', nodes), 4, 30))) expect(v).toBe(k === 1 ? 100 : -5);
  });

  it('Truncate redraws into range, censor clamps, and a hopeless range fails the run', () => {
    for (const [v] of rows(
      grind(
        xmlModel(
          'T',
          '<Truncate name="T" min="-0.5" max="0.5"><input name="N"/></Truncate><Normal name="N"/>',
        ),
        2,
        300,
      ),
    )) {
      expect(Math.abs(v!)).toBeLessThanOrEqual(0.5);
    }
    const censored = rows(
      grind(
        xmlModel(
          'T',
          '<Truncate name="T" min="0" mode="censor"><input name="N"/></Truncate><Normal name="N"/>',
        ),
        2,
        300,
      ),
    );
    expect(censored.some(([v]) => v === 0)).toBe(true);
    expect(() =>
      grind(
        xmlModel(
          'T',
          '<Truncate name="T" min="5" maxAttempts="20"><input name="U"/></Truncate><Uniform name="U"/>',
        ),
        2,
        1,
      ),
    ).toThrow(/after 20 attempts/);
  });

  it('Pool repeats each entity on count rows', () => {
    const nodes = `<Pool name="P"><input name="E" role="entity"/><input name="C" role="count"/></Pool><Sequence name="E"/><Constant name="C" value="3" type="int"/>`;
    expect(grind(xmlModel('P', nodes), 1, 7)).toBe('0.0\n0.0\n0.0\n1.0\n1.0\n1.0\n2.0\n');
  });

  it('Pool takes the count from a column and interleaves active entities', () => {
    const nodes = `<Pool name="P" countColumn="1" interleave="2"><input name="E"/></Pool>
      <Append name="E"><input name="Id"/><input name="N"/></Append><Sequence name="Id"/><Constant name="N" value="2" type="int"/>`;
    const ids = rows(grind(xmlModel('P', nodes), 9, 40)).map((r) => r[0]!);
    // Every entity appears exactly twice, the count column is not emitted, and order interleaves.
    expect(rows(grind(xmlModel('P', nodes), 9, 1))[0]).toHaveLength(1);
    const seen = new Map<number, number>();
    for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    expect([...seen.values()].slice(0, -2).every((n) => n === 2)).toBe(true);
    expect(ids).not.toEqual([...ids].sort((a, b) => a - b));
  });

  it('Copula keeps marginals and induces the correlation', () => {
    const nodes = `<Copula name="C" correlation="1,0.7;0.7,1"><input name="A"/><input name="B"/></Copula><Normal name="A" mean="5"/><Uniform name="B"/>`;
    const data = rows(grind(xmlModel('C', nodes), 6, 4000));
    const a = data.map((r) => r[0]!);
    const b = data.map((r) => r[1]!);
    expect(Math.abs(a.reduce((s, v) => s + v, 0) / a.length - 5)).toBeLessThan(0.06);
    expect(b.every((v) => v >= 0 && v < 1)).toBe(true);
    const ma = a.reduce((s, v) => s + v, 0) / a.length;
    const mb = b.reduce((s, v) => s + v, 0) / b.length;
    const cov = a.reduce((s, v, i) => s + (v - ma) * (b[i]! - mb), 0) / a.length;
    expect(cov / Math.sqrt(1 / 12)).toBeGreaterThan(0.6);
  });

  it('normal CDF and quantile invert each other', () => {
    for (const x of [-6, -2.5, -0.3, 0, 0.7, 1.96, 4]) expect(normalQuantile(normalCdf(x))).toBeCloseTo(x, 9);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
  });
});

describe('seeds', () => {
  const withSeed = parseModel(xmlModel('U', '<Uniform name="U"/>', 42));
  const noSeed = parseModel(xmlModel('U', '<Uniform name="U"/>'));
  const fresh = (): bigint => 99n;

  it('prefers an explicit seed, then the model seed, then a fresh one', () => {
    expect(resolveSeed(7n, withSeed, fresh)).toEqual({ seed: 7n, seedSource: 'cli' });
    expect(resolveSeed(undefined, withSeed, fresh)).toEqual({ seed: 42n, seedSource: 'model' });
    expect(resolveSeed(undefined, noSeed, fresh)).toEqual({ seed: 99n, seedSource: 'random' });
    expect(resolveSeed(undefined, withSeed, fresh, true)).toEqual({ seed: 99n, seedSource: 'random' });
  });

  it('treats a zero or negative model seed as none', () => {
    expect(
      resolveSeed(undefined, parseModel(xmlModel('U', '<Uniform name="U"/>', 0)), fresh).seedSource,
    ).toBe('random');
    expect(
      resolveSeed(undefined, parseModel(xmlModel('U', '<Uniform name="U"/>', -4)), fresh).seedSource,
    ).toBe('random');
  });

  it('gives identical bytes for the same seed and different bytes for another', () => {
    const text = xmlModel('N', '<Normal name="N"/>');
    expect(grind(text, 12, 100)).toBe(grind(text, 12, 100));
    expect(grind(text, 12, 100)).not.toBe(grind(text, 13, 100));
  });
});

describe('structure', () => {
  it('reports a node consumed twice and cycles as failures', () => {
    const twice = validateModelText(
      xmlModel('A', '<Append name="A"><input name="U"/><input name="U"/></Append><Uniform name="U"/>'),
    );
    expect(twice.valid).toBe(false);
    expect(twice.failures).toEqual([expect.objectContaining({ nodeName: 'U', nodeType: 'Uniform' })]);
    const cycle = validateModelText(
      xmlModel(
        'A',
        '<Calculate name="A" expression="y[0]=x[0]"><input name="B"/></Calculate><Calculate name="B" expression="y[0]=x[0]"><input name="A"/></Calculate>',
      ),
    );
    expect(cycle.failures[0]?.message).toMatch(/cycle/);
  });

  it('allows unreachable nodes', () => {
    expect(validateModelText(xmlModel('U', '<Uniform name="U"/><Normal name="Spare"/>')).valid).toBe(true);
  });
});
