/**
 * The agent's side of browser pairing (remote mode with `--browser`): start or reuse a pairing on
 * the server, hand the person the verification link, and poll for the session token. One call
 * waits at most `maxWaitMs` (60 s), reporting progress and stopping at once when cancelled; a
 * pairing still pending after that is returned as such, and the next call picks it up again.
 * Calls are serialised: two overlapping pair_browser calls share one pairing.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface PendingPairing {
  pairCode: string;
  deviceSecret: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  expiresAt: number;
  intervalSec: number;
}

export interface PairedSession {
  sessionToken: string;
  namespaceId: string;
}

export type PairResult =
  | { status: 'paired' | 'already_paired'; namespaceId: string }
  | {
      status: 'pending';
      verificationUri: string;
      verificationUriComplete?: string;
      userCode: string;
      expiresInSec: number;
    };

/** What a wait reports and listens to. */
export interface PairWaitHooks {
  signal?: AbortSignal;
  /** Called once per poll while waiting. */
  progress?: (elapsedMs: number, totalMs: number, message: string) => void;
  /** Called once when a new link is ready for the person (e.g. a URL-mode elicitation). */
  showLink?: (pairing: PendingPairing) => void;
  /** Called once when pairing completes (e.g. notifications/elicitation/complete). */
  paired?: (pairing: PendingPairing) => void;
}

/** A refused or failed pairing, with the server's reason. */
export class PairingFailedError extends Error {}

export interface BrowserPairingOptions {
  /** Server base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** Sent as the bearer key when the server has one. */
  apiKey?: string;
  maxWaitMs?: number;
  now?: () => number;
  fetch?: typeof fetch;
}

export class BrowserPairing {
  private session: PairedSession | undefined;
  private pending: PendingPairing | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: BrowserPairingOptions) {
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** The session once paired; model tools refuse to run without it. */
  get current(): PairedSession | undefined {
    return this.session;
  }

  /** One pair_browser call (serialised with any other in flight). */
  pair(hooks: PairWaitHooks = {}): Promise<PairResult> {
    const run = this.queue.then(() => this.pairNow(hooks));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The pairing to hand the person without waiting for it (started now unless one is still
   * pending); undefined once paired. MCP 2026-07-28 hands the link over in one round trip and
   * waits in the next (pair-tool.ts).
   */
  link(): Promise<PendingPairing | undefined> {
    const run = this.queue.then(async () => (this.session ? undefined : (await this.pendingOrNew()).pairing));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A pending pairing as pair_browser answers it when the person has not approved it yet. */
  pendingResult(pairing: PendingPairing): PairResult {
    return {
      status: 'pending',
      verificationUri: pairing.verificationUri,
      ...(pairing.verificationUriComplete
        ? { verificationUriComplete: pairing.verificationUriComplete }
        : {}),
      userCode: pairing.userCode,
      expiresInSec: Math.max(0, Math.ceil((pairing.expiresAt - this.now()) / 1000)),
    };
  }

  private async pendingOrNew(): Promise<{ pairing: PendingPairing; fresh: boolean }> {
    const pending = this.pending;
    if (pending && pending.expiresAt > this.now()) return { pairing: pending, fresh: false };
    this.pending = await this.start();
    return { pairing: this.pending, fresh: true };
  }

  private async pairNow(hooks: PairWaitHooks): Promise<PairResult> {
    if (this.session) return { status: 'already_paired', namespaceId: this.session.namespaceId };
    const { pairing, fresh } = await this.pendingOrNew();
    if (fresh) hooks.showLink?.(pairing);
    const maxWait = this.options.maxWaitMs ?? 60_000;
    const began = this.now();
    for (;;) {
      hooks.signal?.throwIfAborted();
      const outcome = await this.poll(pairing, hooks.signal);
      if (outcome.kind === 'paired') {
        this.session = outcome.session;
        this.pending = undefined;
        hooks.paired?.(pairing);
        return { status: 'paired', namespaceId: outcome.session.namespaceId };
      }
      if (outcome.kind === 'failed') {
        this.pending = undefined;
        throw new PairingFailedError(
          `Pairing failed (${outcome.error}) — call pair_browser again to get a new code.`,
        );
      }
      const elapsed = this.now() - began;
      const left = pairing.expiresAt - this.now();
      if (elapsed >= maxWait || left <= 0) return this.pendingResult(pairing);
      hooks.progress?.(
        elapsed,
        maxWait,
        `Waiting for approval of code ${pairing.userCode} at ${pairing.verificationUri}`,
      );
      await sleep(Math.min(pairing.intervalSec * 1000, maxWait - elapsed), undefined, {
        ...(hooks.signal ? { signal: hooks.signal } : {}),
      });
    }
  }

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
    };
  }

  private async start(): Promise<PendingPairing> {
    const url = new URL('/sandbox/pair', this.options.baseUrl);
    let response: Response;
    try {
      response = await this.fetch(url, { method: 'POST', headers: this.headers(), body: '{}' });
    } catch (err) {
      throw new PairingFailedError(
        `Cannot reach ${url.origin} to pair (${(err as Error).message}); is \`modelworks serve\` running there?`,
      );
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok)
      throw new PairingFailedError(
        `Pairing failed (${String(body.error ?? `HTTP ${response.status}`)}) — check the server URL and key.`,
      );
    return {
      pairCode: String(body.pairCode),
      deviceSecret: String(body.deviceSecret),
      userCode: String(body.userCode),
      verificationUri: String(body.verificationUri),
      ...(typeof body.verificationUriComplete === 'string'
        ? { verificationUriComplete: body.verificationUriComplete }
        : {}),
      expiresAt: this.now() + Number(body.expiresInSec ?? 600) * 1000,
      intervalSec: Number(body.intervalSec ?? 3),
    };
  }

  private async poll(
    pairing: PendingPairing,
    signal?: AbortSignal,
  ): Promise<
    { kind: 'paired'; session: PairedSession } | { kind: 'pending' } | { kind: 'failed'; error: string }
  > {
    const response = await this.fetch(new URL('/sandbox/pair/token', this.options.baseUrl), {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify({ pairCode: pairing.pairCode, deviceSecret: pairing.deviceSecret }),
      ...(signal ? { signal } : {}),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status === 200 && typeof body.sessionToken === 'string')
      return {
        kind: 'paired',
        session: { sessionToken: body.sessionToken, namespaceId: String(body.namespaceId) },
      };
    if (response.status === 409) return { kind: 'pending' };
    return { kind: 'failed', error: String(body.error ?? `HTTP ${response.status}`) };
  }
}
