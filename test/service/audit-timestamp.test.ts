/** The audit trail's timestamps: toISOString's text, with the seconds part reused within a second. */
import { describe, expect, it } from 'vitest';
import { AuditTimestamps } from '../../src/service/audit.js';

describe('AuditTimestamps', () => {
  it('prints exactly what Date#toISOString prints, across seconds, eras and back again', () => {
    const moments = [
      0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 1_764_474_000_123, 1_764_474_000_999, 1_764_474_001_000,
      1_764_474_000_500, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_001,
    ];
    const timestamps = new AuditTimestamps();
    for (const ms of [...moments, ...moments.reverse()])
      expect(timestamps.format(ms)).toBe(new Date(ms).toISOString());
    let ms = Date.now();
    for (let i = 0; i < 5000; i++, ms += 7) expect(timestamps.format(ms)).toBe(new Date(ms).toISOString());
  });

  it('reads the clock it was given', () => {
    let t = Date.UTC(2026, 0, 1, 0, 0, 0, 250);
    const mine = new AuditTimestamps(() => t);
    const other = new AuditTimestamps(() => 0);
    expect(mine.current()).toBe('2026-01-01T00:00:00.250Z');
    expect(other.current()).toBe('1970-01-01T00:00:00.000Z');
    t += 1000;
    expect(mine.current()).toBe('2026-01-01T00:00:01.250Z');
  });
});
