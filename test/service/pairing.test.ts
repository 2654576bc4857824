import { describe, expect, it } from 'vitest';
import {
  MAX_WRONG_CODES_PER_CLIENT,
  MAX_WRONG_CODES_TOTAL,
  PAIRING_TTL_SEC,
  PairingService,
  SESSION_IDLE_SEC,
  normalizeUserCode,
} from '../../src/service/pairing.js';

const URI = 'http://127.0.0.1:8080/sandbox/approve';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (sec: number) => (t += sec * 1000) };
}

describe('PairingService', () => {
  it('starts a pairing in the device-flow shape', () => {
    const p = new PairingService({ verificationUri: URI }).start();
    expect(p.verificationUri).toBe(URI);
    expect(p.userCode).toMatch(/^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$/);
    expect(p.verificationUriComplete).toBe(`${URI}#code=${p.userCode}`);
    expect(p.expiresInSec).toBe(600);
    expect(p.intervalSec).toBe(3);
    expect(Buffer.from(p.pairCode, 'base64url')).toHaveLength(16); // 128 bits
    expect(Buffer.from(p.deviceSecret, 'base64url')).toHaveLength(32);
  });

  it('is pending until a person approves, then pairs once into a fresh namespace', () => {
    const svc = new PairingService({ verificationUri: URI });
    const p = svc.start();
    expect(svc.poll(p.pairCode, p.deviceSecret)).toEqual({ status: 'pending' });
    // typed in lower case, without the dash
    const approved = svc.approve(p.userCode.toLowerCase().replace('-', ''), 'ip1');
    if (approved.status !== 'approved') throw new Error(`not approved: ${JSON.stringify(approved)}`);
    expect(approved.namespaceId).toMatch(/^ns[0-9a-f]{12}$/);
    // approving twice does nothing more
    expect(svc.approve(p.userCode, 'ip1')).toEqual({ status: 'unknown_code' });
    const paired = svc.poll(p.pairCode, p.deviceSecret);
    if (paired.status !== 'paired') throw new Error(`not paired: ${JSON.stringify(paired)}`);
    // the browser and the agent share one namespace, with tokens of their own
    expect(paired.namespaceId).toBe(approved.namespaceId);
    expect(paired.sessionToken).not.toBe(approved.browserToken);
    expect(svc.sessionNamespace(paired.sessionToken)).toBe(paired.namespaceId);
    expect(svc.sessionNamespace(approved.browserToken)).toBe(paired.namespaceId);
    // the token is handed out once; the pairing is gone
    expect(svc.poll(p.pairCode, p.deviceSecret)).toEqual({ status: 'failed', error: 'invalid_grant' });
    expect(svc.peek(p.userCode)).toBeUndefined();
    // a second pairing gets another namespace
    const q = svc.start();
    svc.approve(q.userCode, 'ip1');
    const other = svc.poll(q.pairCode, q.deviceSecret);
    expect(other.status === 'paired' && other.namespaceId).not.toBe(paired.namespaceId);
  });

  it('refuses a wrong device secret or an unknown pair code', () => {
    const svc = new PairingService({ verificationUri: URI });
    const p = svc.start();
    svc.approve(p.userCode, 'ip');
    expect(svc.poll(p.pairCode, 'x'.repeat(43))).toEqual({ status: 'failed', error: 'invalid_grant' });
    expect(svc.poll('nope', p.deviceSecret)).toEqual({ status: 'failed', error: 'invalid_grant' });
    // the right pair still works afterwards
    expect(svc.poll(p.pairCode, p.deviceSecret).status).toBe('paired');
  });

  it('expires after ten minutes: no approval, no token', () => {
    const c = clock();
    const svc = new PairingService({ verificationUri: URI, now: c.now });
    const p = svc.start();
    c.advance(PAIRING_TTL_SEC - 1);
    expect(svc.peek(p.userCode)).toEqual({ expiresInSec: 1 });
    c.advance(1);
    expect(svc.approve(p.userCode, 'ip')).toEqual({ status: 'expired' });
    expect(svc.poll(p.pairCode, p.deviceSecret)).toEqual({ status: 'failed', error: 'expired_token' });
  });

  it('an approval that came in time is not honoured once the pairing has expired', () => {
    const c = clock();
    const svc = new PairingService({ verificationUri: URI, now: c.now });
    const p = svc.start();
    svc.approve(p.userCode, 'ip');
    c.advance(PAIRING_TTL_SEC);
    expect(svc.poll(p.pairCode, p.deviceSecret)).toEqual({ status: 'failed', error: 'expired_token' });
  });

  it('caps wrong codes per client, even for a right code afterwards', () => {
    const c = clock();
    const svc = new PairingService({ verificationUri: URI, now: c.now });
    const p = svc.start();
    for (let i = 0; i < MAX_WRONG_CODES_PER_CLIENT; i++)
      expect(svc.approve('BBBB-BBBB', 'guesser')).toEqual({ status: 'unknown_code' });
    expect(svc.approve(p.userCode, 'guesser')).toEqual({ status: 'too_many_attempts' });
    expect(svc.poll(p.pairCode, p.deviceSecret)).toEqual({ status: 'pending' });
    // another client is not locked out by this one
    expect(svc.approve(p.userCode, 'owner').status).toBe('approved');
    // the window slides
    c.advance(601);
    expect(svc.approve('BBBB-BBBB', 'guesser')).toEqual({ status: 'unknown_code' });
  });

  it('caps wrong codes from all clients together', () => {
    const svc = new PairingService({ verificationUri: URI });
    const p = svc.start();
    for (let i = 0; i < MAX_WRONG_CODES_TOTAL; i++) svc.approve('BBBB-BBBB', `ip${i}`);
    expect(svc.approve(p.userCode, 'fresh-client')).toEqual({ status: 'too_many_attempts' });
  });

  it('forgets idle sessions and unknown tokens', () => {
    const c = clock();
    const svc = new PairingService({ verificationUri: URI, now: c.now });
    const p = svc.start();
    svc.approve(p.userCode, 'ip');
    const paired = svc.poll(p.pairCode, p.deviceSecret);
    if (paired.status !== 'paired') throw new Error('not paired');
    expect(svc.sessionNamespace('made-up')).toBeUndefined();
    c.advance(SESSION_IDLE_SEC - 10);
    expect(svc.sessionNamespace(paired.sessionToken)).toBe(paired.namespaceId); // use refreshes it
    c.advance(SESSION_IDLE_SEC + 1);
    expect(svc.sessionNamespace(paired.sessionToken)).toBeUndefined();
  });

  it('normalises what a person types', () => {
    expect(normalizeUserCode(' bcdf-ghjk ')).toBe('BCDFGHJK');
  });
});
