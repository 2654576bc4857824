/** SSN, EIN, NPI, IMEI, RoutingNumber, IPAddress, IPv6Address: formats, check digits, parameters, replay. */
import { describe, expect, it } from 'vitest';
import { abaCheckDigit, luhnCheckDigit, luhnValid } from '../../src/synth/components/check-digits.js';
import { findDescriptor } from '../../src/synth/components/catalog.js';
import { EIN_PREFIXES } from '../../src/synth/components/generators/pro/identifiers.js';
import { isSpecialIPv4, isSpecialIPv6 } from '../../src/synth/components/generators/pro/network.js';
import { grind, xmlModel } from './helpers.js';
import { replayShared, sharedPresent } from './pro-helpers.js';

function lines(node: string, n = 500, seed = 5): string[] {
  return grind(xmlModel('N', node), seed, n).trim().split('\n');
}

describe('identifier generators', () => {
  it('SSN: AAA-GG-SSSS without area 000/666, fictionalOnly keeps area 900-999', () => {
    // Independent expectation: the first SSN of seed 42 is area nextInt(1,900)=555, group 62, serial 8935.
    expect(lines('<SSN name="N"/>', 1, 42)).toEqual(['555-62-8935']);
    for (const s of lines('<SSN name="N"/>')) {
      expect(s).toMatch(/^\d{3}-\d{2}-\d{4}$/);
      const [a, g, x] = s.split('-').map(Number);
      expect(a).toBeGreaterThanOrEqual(1);
      expect(a).toBeLessThan(900);
      expect(a).not.toBe(666);
      expect(g).toBeGreaterThanOrEqual(1);
      expect(x).toBeGreaterThanOrEqual(1);
    }
    for (const s of lines('<SSN name="N" fictionalonly="true"/>'))
      expect(Number(s.slice(0, 3))).toBeGreaterThanOrEqual(900);
    expect(() => grind(xmlModel('N', '<SSN name="N" fictional="true"/>'), 1, 1)).toThrow(
      /accepted: fictionalOnly/,
    );
  });

  it('EIN: one of the 83 valid prefixes and 7 digits', () => {
    expect(EIN_PREFIXES).toHaveLength(83);
    for (const s of lines('<EIN name="N"/>')) {
      expect(s).toMatch(/^\d{2}-\d{7}$/);
      expect(EIN_PREFIXES).toContain(Number(s.slice(0, 2)));
    }
  });

  it('NPI: Luhn over 80840 + 9 digits; type fixes the first digit', () => {
    expect(luhnCheckDigit('80840123456789')).toBe(3); // CMS worked example: NPI 1234567893
    const all = lines('<NPI name="N"/>');
    for (const s of all) {
      expect(s).toMatch(/^[12]\d{9}$/);
      expect(luhnValid('80840' + s)).toBe(true);
    }
    expect(new Set(all.map((s) => s[0]))).toEqual(new Set(['1', '2']));
    expect(lines('<NPI name="N" type="organization"/>').every((s) => s.startsWith('2'))).toBe(true);
    expect(lines('<NPI name="N" type="individual"/>').every((s) => s.startsWith('1'))).toBe(true);
    expect(() => grind(xmlModel('N', '<NPI name="N" type="both"/>'), 1, 1)).toThrow(
      /not one of individual, organization, random/,
    );
  });

  it('IMEI: 15 digits with a Luhn check digit', () => {
    expect(luhnValid('490154203237518')).toBe(true); // the GSMA's published example IMEI
    for (const s of lines('<IMEI name="N"/>')) {
      expect(s).toMatch(/^\d{15}$/);
      expect(luhnValid(s)).toBe(true);
    }
  });

  it('RoutingNumber: ABA checksum and the prefix ranges', () => {
    expect(abaCheckDigit('02100002')).toBe(1); // 021000021, a well-known routing number
    const aba = (s: string): number =>
      [...s].reduce((sum, c, i) => sum + [3, 7, 1][i % 3]! * Number(c), 0) % 10;
    for (const s of lines('<RoutingNumber name="N"/>')) {
      expect(s).toMatch(/^\d{9}$/);
      expect(aba(s)).toBe(0);
      const p = Number(s.slice(0, 2));
      expect(p === 0 || (p >= 1 && p <= 12) || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p === 80).toBe(
        true,
      );
    }
    for (const s of lines('<RoutingNumber name="N" prefix="thrift"/>')) {
      expect(Number(s.slice(0, 2))).toBeGreaterThanOrEqual(21);
      expect(Number(s.slice(0, 2))).toBeLessThanOrEqual(32);
    }
    expect(findDescriptor('RoutingNumber')!.parameters[0]!.allowedValues).toEqual([
      'assigned',
      'government',
      'district',
      'thrift',
      'electronic',
      'traveler',
      'unassigned',
      'any',
    ]);
  });

  it('IPAddress: never special; fictionalOnly stays in the documentation blocks', () => {
    expect(isSpecialIPv4([237, 10, 233, 45])).toBe(true);
    expect(isSpecialIPv4([192, 168, 1, 1])).toBe(true);
    expect(isSpecialIPv4([169, 232, 73, 69])).toBe(false);
    // Seed 42's first draw (237.x, multicast) is redrawn.
    expect(lines('<IPAddress name="N"/>', 1, 42)).toEqual(['30.63.46.47']);
    for (const s of lines('<IPAddress name="N"/>'))
      expect(isSpecialIPv4(s.split('.').map(Number))).toBe(false);
    for (const s of lines('<IPAddress name="N" fictionalOnly="true"/>'))
      expect(s).toMatch(/^(192\.0\.2|198\.51\.100|203\.0\.113)\.\d{1,3}$/);
  });

  it('IPv6Address: 8 lower-case 4-hex groups, never special; fictionalOnly is 2001:0db8::/32', () => {
    expect(isSpecialIPv6([0xfe80, 0])).toBe(true);
    expect(isSpecialIPv6([0x2001, 0x0db8])).toBe(true);
    expect(isSpecialIPv6([0x2a00, 0x1450])).toBe(false);
    for (const s of lines('<IPv6Address name="N"/>')) {
      expect(s).toMatch(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
      expect(isSpecialIPv6(s.split(':').map((g) => parseInt(g, 16)))).toBe(false);
    }
    for (const s of lines('<IPv6Address name="N" fictionalOnly="true"/>'))
      expect(s.startsWith('2001:0db8:')).toBe(true);
  });
});

describe.skipIf(!sharedPresent)('identifier generators replay the shared corpus', () => {
  for (const m of ['ssn', 'npi', 'imei', 'ipaddress'])
    it(`pro/${m}.xml byte for byte`, () => {
      const { expected, actual } = replayShared(`pro/${m}.xml`);
      expect(actual).toBe(expected);
    });
});
