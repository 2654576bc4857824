/**
 * The Missing filter, and the two fit features built on it: a numeric column's missing cells kept
 * inside the copula (through a presence column) and columns that are a function of another
 * generated from it by a lookup table.
 */
import { describe, expect, it } from 'vitest';
import { writeModel } from '../../src/synth/index.js';
import { fitCsv } from '../../src/synth/fit/index.js';
import { generateCells } from '../../src/synth/fit/quality.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { grind, xmlModel } from './helpers.js';

describe('Missing filter', () => {
  const model = (missing: string): string =>
    xmlModel(
      'M',
      `<Normal name="A"/><Bernoulli name="B" p="0.5"/><Normal name="C"/>
       <Append name="T"><input name="A"/><input name="B"/><input name="C"/></Append>
       <Missing name="M" ${missing}><input name="T"/></Missing>`,
    );

  it('writes the chosen columns empty exactly on the rows whose key holds the value', () => {
    const lines = grind(model('key="1" indexes="0, 2"'), 7, 400).trim().split('\n');
    let blanks = 0;
    for (const line of lines) {
      const [a, b, c] = line.split(',');
      if (b === '0') {
        expect([a, c]).toEqual(['', '']);
        blanks++;
      } else expect(Number.isFinite(Number(a)) && a !== '' && c !== '').toBe(true);
    }
    expect(blanks).toBeGreaterThan(150);
    expect(blanks).toBeLessThan(250);
    // value="1" blanks the other half, and 1 matches the int 1 as a number
    const other = grind(model('key="1" indexes="0" value="1.0"'), 7, 400).trim().split('\n');
    other.forEach((line, i) => expect(line.split(',')[0] === '').toBe(lines[i]!.split(',')[1] === '1'));
  });

  it('compares text keys as text', () => {
    const text = xmlModel(
      'M',
      `<Categorical name="K" weights="1, 1"/>
       <Switch name="S" key="0"><input name="K" role="input"/><input name="No" value="0"/><input name="Yes" value="1"/></Switch>
       <Constant name="No" value="no" type="string"/><Constant name="Yes" value="yes" type="string"/>
       <Missing name="M" key="1" indexes="0" value="no"><input name="S"/></Missing>`,
    );
    for (const line of grind(text, 3, 100).trim().split('\n')) {
      const [k, label] = line.split(',');
      expect(k === '').toBe(label === 'no');
    }
  });

  it('rejects a key or an index outside the row, and an empty index list', () => {
    expect(() => grind(model('key="3" indexes="0"'), 1, 1)).toThrow(/key 3 is outside the input's columns/);
    expect(() => grind(model('key="1" indexes="0, 5"'), 1, 1)).toThrow(/index 5 is outside 0\.\.2/);
    expect(() => grind(model('key="1" indexes=""'), 1, 1)).toThrow(/needs at least one index/);
    expect(() => grind(model('indexes="0"'), 1, 1)).toThrow(/missing required attribute "key"/);
  });
});

const TIERS = ['one', 'two', 'three'];

/**
 * A sample where `x` is missing far more often in the south, `code` and `group` determine each
 * other, `tier_name` is a function of the integer `tier` (whose rare value 4, "four", is seen in
 * three rows only) and `flag` is independent of everything.
 */
function sample(seed: bigint, rows: number): string {
  const r = new L64X128MixRandom(seed);
  const lines = ['group,x,code,tier,tier_name,flag'];
  for (let i = 0; i < rows; i++) {
    const south = r.nextDouble() < 0.4;
    const missing = r.nextDouble() < (south ? 0.5 : 0.05);
    const x = missing ? '' : (10 + (south ? 5 : 0) + 2 * r.nextGaussian()).toFixed(2);
    const tier = i < 3 ? 4 : 1 + Math.floor(3 * r.nextDouble());
    const flag = r.nextDouble() < 0.3 ? 'yes' : 'no';
    const name = tier === 4 ? 'four' : TIERS[tier - 1]!;
    lines.push(`${south ? 'south' : 'north'},${x},${south ? 'S' : 'N'},${tier},${name},${flag}`);
  }
  return lines.join('\n') + '\n';
}

describe('fit: a column derived from two', () => {
  it('looks up a column that is a function of two others (alone of sibsp and parch) from both', () => {
    const seed = 20261203n;
    const r = new L64X128MixRandom(seed);
    const lines = ['sibsp,parch,alone,fare'];
    for (let i = 0; i < 2000; i++) {
      const sibsp = r.nextDouble() < 0.6 ? 0 : 1 + Math.floor(3 * r.nextDouble());
      const parch = r.nextDouble() < 0.7 ? 0 : 1 + Math.floor(2 * r.nextDouble());
      const fare = (5 + 10 * (sibsp + parch) + 3 * r.nextGaussian()).toFixed(2);
      lines.push(`${sibsp},${parch},${sibsp + parch === 0 ? 'True' : 'False'},${fare}`);
    }
    const { model, report } = fitCsv(lines.join('\n'));
    expect(report.columns[2]!.derivedFrom, `seed ${seed}`).toBe('sibsp, parch');
    expect(report.dependence.columns).not.toContain('alone');
    for (const [sibsp, parch, alone] of generateCells(model, 4n, 3000))
      expect(alone, `${sibsp}, ${parch}`).toBe(sibsp === '0' && parch === '0' ? 'True' : 'False');
  });
});

describe('fit: missing cells in the copula and derived columns', () => {
  const SEED = 20261202n;
  const text = sample(SEED, 3000);
  const { model, report } = fitCsv(text);
  const byName = new Map(report.columns.map((c) => [c.name, c]));

  it('generates a column that is a function of another from it, the earlier of a pair as the source', () => {
    expect(byName.get('code')!.derivedFrom, `seed ${SEED}`).toBe('group');
    expect(byName.get('group')!.derivedFrom).toBeUndefined();
    expect(byName.get('tier_name')!.derivedFrom).toBe('tier');
    expect(byName.get('flag')!.derivedFrom).toBeUndefined();
    // a key seen fewer than 5 times never reaches the lookup table
    expect(writeModel(model, 'xml')).not.toContain('four');
    const out = generateCells(model, 9n, 3000);
    for (const [group, , code, tier, name] of out) {
      expect(code).toBe(group === 'south' ? 'S' : 'N');
      if (['1', '2', '3'].includes(tier!)) expect(name).toBe(TIERS[Number(tier) - 1]);
    }
  });

  it("keeps a numeric column's missing cells in the copula, so missingness follows the other columns", () => {
    expect(byName.get('x')!.inCopula, `seed ${SEED}`).toBe(true);
    expect(report.dependence.columns).toContain('x (present)');
    expect(writeModel(model, 'xml')).toContain('<Missing');
    const out = generateCells(model, 11n, 6000);
    const rate = (g: string): number => {
      const rows = out.filter((row) => row[0] === g);
      return rows.filter((row) => row[1] === '').length / rows.length;
    };
    // the sample: 50% missing in the south, 5% in the north (without a presence column both would be near 23%)
    expect(rate('south'), `seed ${SEED}`).toBeGreaterThan(0.4);
    expect(rate('north'), `seed ${SEED}`).toBeLessThan(0.12);
    // present values keep their shift by group
    const mean = (g: string): number => {
      const xs = out.filter((row) => row[0] === g && row[1] !== '').map((row) => Number(row[1]));
      return xs.reduce((s, v) => s + v, 0) / xs.length;
    };
    expect(mean('south') - mean('north')).toBeGreaterThan(3.5);
  });
});
