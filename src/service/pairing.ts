/**
 * Browser pairing in the shape of the OAuth device flow (RFC 8628): an agent's MCP server starts a
 * pairing and polls for a token; a person opens the verification page in a browser, sees or types
 * the short user code and clicks Approve; the poll then yields a session token bound to a fresh
 * namespace, and every model that session creates lives in that namespace.
 *
 * Secrets (pair code, device secret, session token) are 128/256-bit random strings kept only as
 * SHA-256 digests, compared in constant time, and never logged. The user code is short (a person
 * types it), so wrong guesses are capped per client and overall, and a pairing lives 10 minutes.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export const PAIRING_TTL_SEC = 600;
export const POLL_INTERVAL_SEC = 3;
/** Wrong user codes one client may submit per window before approvals are refused. */
export const MAX_WRONG_CODES_PER_CLIENT = 5;
/** Wrong user codes all clients together may submit per window. */
export const MAX_WRONG_CODES_TOTAL = 50;
export const WRONG_CODE_WINDOW_SEC = 600;
/** A session unused this long is forgotten. */
export const SESSION_IDLE_SEC = 12 * 3600;

/** Letters a person cannot confuse (no vowels: no words; no 0/O, 1/I/L). RFC 8628 §6.1. */
const USER_CODE_ALPHABET = 'BCDFGHJKMNPQRSTVWXZ';

export interface PairingStart {
  pairCode: string;
  deviceSecret: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresInSec: number;
  intervalSec: number;
}

export type TokenPoll =
  | { status: 'paired'; sessionToken: string; namespaceId: string }
  | { status: 'pending' }
  | { status: 'failed'; error: 'expired_token' | 'invalid_grant' };

export type ApproveOutcome =
  /** The browser's own session token, in the same namespace the agent's poll will get. */
  | { status: 'approved'; browserToken: string; namespaceId: string }
  | { status: 'unknown_code' }
  | { status: 'expired' }
  | { status: 'too_many_attempts' };

interface Pairing {
  pairDigest: string;
  secretDigest: string;
  userCode: string;
  expiresAt: number;
  /** Set by the approval: the namespace both sides share. */
  namespaceId?: string;
  /** Set once the token has been handed out: a pairing yields one session. */
  redeemed: boolean;
}

/** Who holds a session token: the person's browser (the approve page) or the agent (its poll). */
export type SessionHolder = 'person' | 'agent';

interface Session {
  namespaceId: string;
  holder: SessionHolder;
  lastUsed: number;
}

const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Upper-case, without separators or spaces: what a person may type for `BCDF-GHJK`. */
export function normalizeUserCode(text: string): string {
  return text.toUpperCase().replace(/[^A-Z]/g, '');
}

export interface PairingOptions {
  /** Absolute URL of the approve page, e.g. http://127.0.0.1:8080/sandbox/approve (or per start()). */
  verificationUri?: string;
  now?: () => number;
}

export class PairingService {
  private readonly pairings = new Map<string, Pairing>(); // by pair-code digest
  private readonly sessions = new Map<string, Session>(); // by token digest
  private readonly wrongByClient = new Map<string, number[]>();
  private wrongTotal: number[] = [];
  private readonly now: () => number;

  constructor(private readonly options: PairingOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts a pairing (POST /sandbox/pair).
   * @param verificationUri the approve page as the caller reaches this server (default: the option)
   */
  start(verificationUri = this.options.verificationUri): PairingStart {
    if (verificationUri === undefined) throw new Error('PairingService.start needs the approve page URL');
    this.sweep();
    const pairCode = randomBytes(16).toString('base64url');
    const deviceSecret = randomBytes(32).toString('base64url');
    let userCode: string;
    do {
      userCode = Array.from(
        { length: 8 },
        () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)],
      ).join('');
    } while ([...this.pairings.values()].some((p) => p.userCode === userCode));
    this.pairings.set(digest(pairCode), {
      pairDigest: digest(pairCode),
      secretDigest: digest(deviceSecret),
      userCode,
      expiresAt: this.now() + PAIRING_TTL_SEC * 1000,
      redeemed: false,
    });
    const display = `${userCode.slice(0, 4)}-${userCode.slice(4)}`;
    return {
      pairCode,
      deviceSecret,
      userCode: display,
      verificationUri,
      // the fragment never reaches a server log; the page strips it from the address bar
      verificationUriComplete: `${verificationUri}#code=${display}`,
      expiresInSec: PAIRING_TTL_SEC,
      intervalSec: POLL_INTERVAL_SEC,
    };
  }

  /** The device's poll (POST /sandbox/pair/token). */
  poll(pairCode: string, deviceSecret: string): TokenPoll {
    const pairing = this.pairings.get(digest(pairCode));
    if (!pairing || pairing.redeemed || !sameDigest(pairing.secretDigest, digest(deviceSecret)))
      return { status: 'failed', error: 'invalid_grant' };
    if (this.now() >= pairing.expiresAt) {
      this.pairings.delete(pairing.pairDigest);
      return { status: 'failed', error: 'expired_token' };
    }
    const namespaceId = pairing.namespaceId;
    if (namespaceId === undefined) return { status: 'pending' };
    pairing.redeemed = true;
    this.pairings.delete(pairing.pairDigest);
    return { status: 'paired', sessionToken: this.openSession(namespaceId, 'agent'), namespaceId };
  }

  /** How long the pairing behind a user code has left (the peek endpoint); nothing else leaks. */
  peek(userCode: string): { expiresInSec: number } | undefined {
    const pairing = this.byUserCode(normalizeUserCode(userCode));
    if (!pairing) return undefined;
    return { expiresInSec: Math.max(0, Math.ceil((pairing.expiresAt - this.now()) / 1000)) };
  }

  /** A person's click on Approve with the code they see or typed; `client` keys the attempt cap. */
  approve(userCode: string, client: string): ApproveOutcome {
    const now = this.now();
    const windowStart = now - WRONG_CODE_WINDOW_SEC * 1000;
    const mine = (this.wrongByClient.get(client) ?? []).filter((t) => t > windowStart);
    this.wrongTotal = this.wrongTotal.filter((t) => t > windowStart);
    if (mine.length >= MAX_WRONG_CODES_PER_CLIENT || this.wrongTotal.length >= MAX_WRONG_CODES_TOTAL)
      return { status: 'too_many_attempts' };
    const pairing = this.byUserCode(normalizeUserCode(userCode));
    if (!pairing) {
      mine.push(now);
      this.wrongByClient.set(client, mine);
      this.wrongTotal.push(now);
      return { status: 'unknown_code' };
    }
    if (now >= pairing.expiresAt) return { status: 'expired' };
    if (pairing.namespaceId !== undefined) return { status: 'unknown_code' }; // approved already
    const namespaceId = `ns${randomBytes(6).toString('hex')}`;
    pairing.namespaceId = namespaceId;
    return { status: 'approved', browserToken: this.openSession(namespaceId, 'person'), namespaceId };
  }

  /** The namespace of a live session token, or undefined. */
  sessionNamespace(sessionToken: string): string | undefined {
    return this.session(sessionToken)?.namespace;
  }

  /** A live session token's namespace and holder (for the audit trail's origin), or undefined. */
  session(sessionToken: string): { namespace: string; holder: SessionHolder } | undefined {
    const key = digest(sessionToken);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    if (this.now() - session.lastUsed > SESSION_IDLE_SEC * 1000) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastUsed = this.now();
    return { namespace: session.namespaceId, holder: session.holder };
  }

  private openSession(namespaceId: string, holder: SessionHolder): string {
    const token = randomBytes(32).toString('base64url');
    this.sessions.set(digest(token), { namespaceId, holder, lastUsed: this.now() });
    return token;
  }

  private byUserCode(code: string): Pairing | undefined {
    // digests have one length, so each comparison takes the same time whatever was guessed
    const guess = digest(code);
    let found: Pairing | undefined;
    for (const p of this.pairings.values())
      if (sameDigest(digest(p.userCode), guess) && !p.redeemed) found = p;
    return found;
  }

  /** Drops expired pairings and idle sessions (called as pairings start). */
  private sweep(): void {
    const now = this.now();
    for (const [k, p] of this.pairings) if (now >= p.expiresAt) this.pairings.delete(k);
    for (const [k, s] of this.sessions)
      if (now - s.lastUsed > SESSION_IDLE_SEC * 1000) this.sessions.delete(k);
  }
}
