/** Perturb, Date, BusinessDay, Time and the collaborate components. */
import { describe, expect, it } from 'vitest';
import { civil, epochDay, federalHolidays } from '../../src/synth/components/calendar.js';
import { grind, xmlModel } from './helpers.js';
import { replayShared, sharedPresent } from './pro-helpers.js';

const out = (root: string, nodes: string, n: number, seed = 3): string[] =>
  grind(xmlModel(root, nodes), seed, n).trim().split('\n');

describe('Perturb', () => {
  const model = (attrs: string, wait: number, dur: number, roles = true): string =>
    `<Perturb name="P" ${attrs}>` +
    (roles
      ? '<input name="A" role="normal"/><input name="B" role="disturbance"/><input name="W" role="wait"/><input name="D" role="duration"/>'
      : '<input name="A"/><input name="B"/><input name="W"/><input name="D"/>') +
    `</Perturb><Sequence name="A" start="0"/><Sequence name="B" start="100"/>` +
    `<Constant name="W" value="${wait}"/><Constant name="D" value="${dur}"/>`;

  it('emits W normal rows, then D disturbance rows, and repeats; the idle branch is not pulled', () => {
    expect(out('P', model('', 2, 1), 7).map(Number)).toEqual([0, 1, 100, 2, 3, 101, 4]);
    // Positional fallback: normal, disturbance, wait, duration.
    expect(out('P', model('', 2, 1, false), 4).map(Number)).toEqual([0, 1, 100, 2]);
    expect(out('P', model('repeat="false"', 1, 2), 6).map(Number)).toEqual([0, 100, 101, 1, 2, 3]);
    expect(out('P', model('', 0, 0), 3).map(Number)).toEqual([0, 1, 2]);
  });

  it('accepts role aliases and refuses unknown roles', () => {
    const aliased = model('', 1, 1)
      .replace('role="normal"', 'role="data"')
      .replace('role="disturbance"', 'role="error"')
      .replace('role="wait"', 'role="delay"')
      .replace('role="duration"', 'role="length"');
    expect(out('P', aliased, 3).map(Number)).toEqual([0, 100, 1]);
    expect(() => out('P', model('', 1, 1).replace('role="wait"', 'role="pause"'), 1)).toThrow(
      /unknown input role "pause"/,
    );
  });

  it.skipIf(!sharedPresent)('replays the three perturbed corpus models byte for byte', () => {
    for (const m of [
      'pro/financial/claims-severity-perturbed.xml',
      'pro/health/patient-vitals-perturbed.xml',
      'pro/software/network-latency-perturbed.xml',
    ]) {
      const { expected, actual } = replayShared(m);
      expect(actual, m).toBe(expected);
    }
  });
});

describe('Date, BusinessDay, Time', () => {
  it('Date: a day of the input year, only redrawing the day while younger than minAge', () => {
    // Independently derived: seed 42, Uniform(1950, 2008) -> 1990, then day nextInt(1, 366) = 32 -> Feb 1.
    const dob =
      '<Date name="D" minAge="18" asOf="2026-08-17"><input name="Y"/></Date><Uniform name="Y" min="1950" max="2008"/>';
    expect(out('D', dob, 1, 42)).toEqual(['1990-02-01']);
    for (const d of out('D', dob, 300)) {
      expect(d).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(d <= '2008-08-17').toBe(true);
    }
    const y2008 =
      '<Date name="D" minAge="18" asOf="2026-08-17"><input name="Y"/></Date><Constant name="Y" value="2008"/>';
    for (const d of out('D', y2008, 200)) expect(d <= '2008-08-17').toBe(true);
    const fmt =
      '<Date name="D" format="dd/MM/yyyy EEE"><input name="Y"/></Date><Constant name="Y" value="2024"/>';
    expect(out('D', fmt, 1)[0]).toMatch(/^\d{2}\/\d{2}\/2024 (Mon|Tue|Wed|Thu|Fri|Sat|Sun)$/);
    expect(() =>
      out('D', '<Date name="D" minAge="3"><input name="Y"/></Date><Constant name="Y" value="1"/>', 1),
    ).toThrow(/asOf is required/);
    expect(() =>
      out(
        'D',
        '<Date name="D" minAge="30" asOf="2026-01-01"><input name="Y"/></Date><Constant name="Y" value="2020"/>',
        1,
      ),
    ).toThrow(/no acceptable day in 2020 after 10000 draws/);
    expect(() =>
      out('D', '<Date name="D" format="qq"><input name="Y"/></Date><Constant name="Y" value="1"/>', 1),
    ).toThrow(/pattern letter "q"/);
  });

  it('BusinessDay: never a weekend or an observed federal holiday', () => {
    const h = federalHolidays(2026);
    expect(h.size).toBe(11);
    expect(h.has(epochDay(2026, 7, 3))).toBe(true); // July 4th 2026 is a Saturday, observed Friday
    expect(h.has(epochDay(2026, 11, 26))).toBe(true); // Thanksgiving
    expect(federalHolidays(2021).has(epochDay(2021, 12, 31))).toBe(true); // New Year 2022 observed
    for (const d of out(
      'B',
      '<BusinessDay name="B"><input name="Y"/></BusinessDay><Constant name="Y" value="2026"/>',
      400,
    )) {
      const [y, m, day] = d.split('-').map(Number);
      const e = epochDay(y!, m!, day!);
      expect(civil(e).weekday).toBeLessThan(6);
      expect(h.has(e)).toBe(false);
    }
  });

  it('Time: hour from the input, minute and second drawn', () => {
    const t = out('T', '<Time name="T"><input name="H"/></Time><Constant name="H" value="9.7"/>', 50);
    for (const s of t) expect(s).toMatch(/^09:[0-5]\d:[0-5]\d$/);
    expect(
      out(
        'T',
        '<Time name="T" format="h:mm a"><input name="H"/></Time><Constant name="H" value="15"/>',
        1,
      )[0],
    ).toMatch(/^3:\d\d PM$/);
    expect(() =>
      out('T', '<Time name="T"><input name="H"/></Time><Constant name="H" value="24"/>', 1),
    ).toThrow(/outside 0-23/);
  });

  it.skipIf(!sharedPresent)('replays date-of-birth byte for byte', () => {
    const { expected, actual } = replayShared('pro/date-of-birth.xml');
    expect(actual).toBe(expected);
  });
});

describe('collaborate', () => {
  const demo =
    '<CollaborationWatcher name="W" collaborate.primary="A" collaborate.secondary="B"><input name="S"/></CollaborationWatcher>' +
    '<Sequence name="S"/><CollaborationBeacon name="A" initial="100"/><CollaborationBeacon name="B" initial="500"/>';

  it('a watcher reads its peers without advancing them', () => {
    expect(out('W', demo, 3)).toEqual(['0.0,100.0,500.0', '1.0,100.0,500.0', '2.0,100.0,500.0']);
  });

  it('a pulled beacon counts up from initial', () => {
    expect(out('A', '<CollaborationBeacon name="A" initial="2.5"/>', 3)).toEqual(['2.5', '3.5', '4.5']);
  });

  it('a missing or unsuitable peer is reported when the node is set up', () => {
    expect(() =>
      out('W', demo.replace('collaborate.secondary="B"', 'collaborate.secondary="Nope"'), 1),
    ).toThrow(/collaborate.secondary="Nope" names no node/);
    expect(() => out('W', demo.replace('collaborate.secondary="B"', 'collaborate.secondary="S"'), 1)).toThrow(
      /collaborate.secondary="S": \w+ "S" cannot answer collaborate reads/,
    );
    expect(() => grind(xmlModel('W', demo), 1, 1, 'csv', false, { edition: 'free' })).toThrow(
      /needs the Pro edition/,
    );
  });

  it.skipIf(!sharedPresent)('replays collaborate-demo byte for byte', () => {
    const { expected, actual } = replayShared('pro/collaborate-demo.xml');
    expect(actual).toBe(expected);
  });
});
