/** The audit trail's timestamps: toISOString's text, with the seconds part reused within a second. */
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/service/audit.js';

describe('isoTimestamp', () => {
  it('prints exactly what Date#toISOString prints, across seconds, eras and back again', () => {
    const moments = [
      0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 1_764_474_000_123, 1_764_474_000_999, 1_764_474_001_000,
      1_764_474_000_500, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_001,
    ];
    for (const ms of [...moments, ...moments.reverse()])
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    let ms = Date.now();
    for (let i = 0; i < 5000; i++, ms += 7) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });
});
