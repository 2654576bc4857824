/** The effect settings (issue 23): defaults, the allowlist's origins, and refusals naming the variable. */
import { describe, expect, it } from 'vitest';
import { backoffMs, effectSettingsFromEnv } from '../../src/service/effects/index.js';

describe('effectSettingsFromEnv', () => {
  it('is on, with an empty allowlist and a 1 MiB bound, when nothing is set', () => {
    expect(effectSettingsFromEnv({})).toEqual({
      enabled: true,
      egressAllowlist: [],
      maxResponseBytes: 1024 * 1024,
      leaseMs: 30_000,
    });
  });

  it('reads off, the origins (normalised) and the bound', () => {
    const s = effectSettingsFromEnv({
      MODELWORKS_EFFECTS: 'OFF',
      MODELWORKS_EFFECT_EGRESS_ALLOWLIST: ' http://127.0.0.1:9000 , HTTPS://Hooks.Example.test:443/ ',
      MODELWORKS_EFFECT_MAX_RESPONSE_BYTES: '2048',
      MODELWORKS_EFFECT_LEASE_MS: '500',
    });
    expect(s).toEqual({
      enabled: false,
      egressAllowlist: ['http://127.0.0.1:9000', 'https://hooks.example.test'],
      maxResponseBytes: 2048,
      leaseMs: 500,
    });
  });

  it.each([
    [{ MODELWORKS_EFFECTS: 'maybe' }, /MODELWORKS_EFFECTS must be on or off/],
    [
      { MODELWORKS_EFFECT_EGRESS_ALLOWLIST: 'not a url' },
      /MODELWORKS_EFFECT_EGRESS_ALLOWLIST lists 'not a url'/,
    ],
    [{ MODELWORKS_EFFECT_EGRESS_ALLOWLIST: 'http://a.test/path' }, /origin only/],
    [{ MODELWORKS_EFFECT_EGRESS_ALLOWLIST: 'ftp://a.test' }, /only http and https/],
    [{ MODELWORKS_EFFECT_MAX_RESPONSE_BYTES: '-1' }, /MODELWORKS_EFFECT_MAX_RESPONSE_BYTES/],
    [{ MODELWORKS_EFFECT_LEASE_MS: '0' }, /MODELWORKS_EFFECT_LEASE_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => effectSettingsFromEnv(env)).toThrow(message);
  });
});

describe('backoffMs', () => {
  it('waits 200 ms fixed, or 200·2^(n-1) capped at 10 s', () => {
    expect([1, 2, 3].map((n) => backoffMs({}, n))).toEqual([200, 200, 200]);
    expect([1, 2, 3, 6, 7, 20].map((n) => backoffMs({ backoff: 'exponential' }, n))).toEqual([
      200, 400, 800, 6400, 10_000, 10_000,
    ]);
  });
});
