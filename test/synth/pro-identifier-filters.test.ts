/** IBAN, ISBN, MACAddress, VIN, CompanyName, DomainName, UserAgent; check digits and recorded draws. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ean13CheckDigit, mod97, vinCheckCharacter } from '../../src/synth/components/check-digits.js';
import { grind, xmlModel } from './helpers.js';
import { SHARED, sharedPresent } from './pro-helpers.js';

const out = (root: string, nodes: string, n: number, seed = 3): string[] =>
  grind(xmlModel(root, nodes), seed, n).trim().split('\n');
const str = (name: string, value: string): string =>
  `<Constant name="${name}" value="${value}" type="string"/>`;
/** One draw per row like an unweighted FlatFile: Mix over constants (rows of one or more cells). */
function table(name: string, rows: string[][]): string {
  return (
    `<Mix name="${name}">${rows.map((_, i) => `<input name="${name}R${i}"/>`).join('')}</Mix>` +
    rows
      .map(
        (cells, i) =>
          `<Append name="${name}R${i}">${cells.map((_, j) => `<input name="${name}R${i}C${j}"/>`).join('')}</Append>` +
          cells.map((c, j) => str(`${name}R${i}C${j}`, c)).join(''),
      )
      .join('')
  );
}
const recorded = (path: string): string[] =>
  readFileSync(join(SHARED, path), 'utf8').trim().split('\n').slice(2);
const one = (type: string, rows: string[][]): string =>
  `<${type} name="N"><input name="T"/></${type}>` + table('T', rows);

describe('IBAN', () => {
  const countries = ['DE', 'GB', 'FR', 'ES', 'IT', 'NL'].map((c) => [c, `${c} name`]);
  it('fills each country layout and passes MOD-97', () => {
    expect(mod97('GB82WEST12345698765432'.slice(4) + 'GB82')).toBe(1); // the ECBS example IBAN
    const lengths: Record<string, number> = { DE: 22, GB: 22, FR: 27, ES: 24, IT: 27, NL: 18 };
    for (const iban of out('N', one('IBAN', countries), 200)) {
      expect(iban.length).toBe(lengths[iban.slice(0, 2)]);
      expect(mod97(iban.slice(4) + iban.slice(0, 4))).toBe(1);
    }
    expect(() => out('N', one('IBAN', [['XX'], ['XX']]), 1)).toThrow(/no IBAN layout for country "XX"/);
  });
  it.skipIf(!sharedPresent)('replays iban.csv exactly with a stand-in table in the README order', () => {
    expect(out('N', one('IBAN', countries), 10, 42)).toEqual(recorded('pro/iban.csv'));
  });
});

describe('ISBN, MACAddress, VIN', () => {
  it('ISBN: 978 + group + 8 digits + EAN-13 check digit', () => {
    expect(ean13CheckDigit('978030640615')).toBe(7); // ISBN 978-0-306-40615-7
    for (const isbn of out('N', one('ISBN', [['0'], ['1']]), 100)) {
      expect(isbn).toMatch(/^978[01]\d{9}$/);
      expect(ean13CheckDigit(isbn.slice(0, 12))).toBe(Number(isbn[12]));
    }
  });

  it('MACAddress: the OUI and three upper-case hex bytes', () => {
    for (const mac of out(
      'N',
      one('MACAddress', [
        ['00:05:69', 'VMware'],
        ['00:1A:2b', 'x'],
      ]),
      50,
    ))
      expect(mac).toMatch(/^00:(05:69|1A:2B)(:[0-9A-F]{2}){3}$/);
  });

  it('VIN: 17 characters without I/O/Q and a valid check character', () => {
    expect(vinCheckCharacter('1M8GDM9AXKP042788')).toBe('X'); // the standard worked example
    for (const vin of out('N', one('VIN', [['1G1'], ['JTD']]), 200)) {
      expect(vin).toMatch(/^[0-9A-HJ-NPR-Z]{17}$/);
      expect(vinCheckCharacter(vin)).toBe(vin[8]);
    }
  });

  it.skipIf(!sharedPresent)('draws MAC bytes and VIN characters exactly as the recordings', () => {
    // The WMI/OUI differs with a stand-in table; the component's own draws must not.
    const macs = out('N', one('MACAddress', [['00:00:00'], ['00:00:00']]), 10, 42);
    expect(macs.map((m) => m.slice(9))).toEqual(recorded('pro/macaddress.csv').map((m) => m.slice(9)));
    const vins = out('N', one('VIN', [['1G1'], ['1G1']]), 10, 42);
    const strip = (v: string): string => v.slice(3, 8) + v.slice(9);
    expect(vins.map(strip)).toEqual(recorded('pro/vin.csv').map(strip));
  });
});

describe('CompanyName, DomainName, UserAgent', () => {
  const company = one('CompanyName', [
    ['pump', 'pragmatic', 'Ltd.'],
    ['extent', 'peer', '&amp; Sons'],
  ]);
  it('CompanyName capitalises the words and draws the joiner', () => {
    const names = out('N', company, 100);
    for (const n of names) expect(n).toMatch(/^(Pump|Extent)( &)? (Pragmatic|Peer) (Ltd\.|& Sons)$/);
    expect(names.some((n) => / & (Pragmatic|Peer)/.test(n))).toBe(true);
    expect(names.some((n) => /^\w+ (Pragmatic|Peer)/.test(n))).toBe(true);
  });
  it.skipIf(!sharedPresent)('draws the joiner exactly as company-name.csv', () => {
    const joiner = (n: string): boolean => n.split(' ')[1] === '&';
    // Three one-draw sources, as the recorded model's three FlatFiles.
    const three =
      '<CompanyName name="N"><input name="A"/></CompanyName><Append name="A"><input name="W1"/><input name="W2"/><input name="S"/></Append>' +
      table('W1', [['pump'], ['paint']]) +
      table('W2', [['mode'], ['radio']]) +
      table('S', [['Inc.'], ['LLC']]);
    expect(out('N', three, 10, 42).map(joiner)).toEqual(recorded('pro/company-name.csv').map(joiner));
  });

  it('DomainName keeps lower-case letters and digits of each part', () => {
    expect(
      out(
        'N',
        one('DomainName', [
          ["Café-Bar's 2", '.CO.uk'],
          ["Café-Bar's 2", '.CO.uk'],
        ]),
        1,
      ),
    ).toEqual(['cafbars2.couk']);
  });

  it('UserAgent: fixed versions, a drawn Safari point release, errors for unknown browsers', () => {
    for (const ua of out(
      'N',
      one('UserAgent', [
        ['Chrome', 'Windows'],
        ['Safari', 'macOS'],
      ]),
      50,
    ))
      expect(ua).toMatch(
        /^"Mozilla\/5\.0 \((Windows NT 10\.0|Macintosh).*(Chrome\/124|Version\/17\.[0-6] Safari)/,
      );
    expect(() =>
      out(
        'N',
        one('UserAgent', [
          ['Lynx', 'Linux'],
          ['Lynx', 'Linux'],
        ]),
        1,
      ),
    ).toThrow(/unknown browser "Lynx"/);
  });
});
