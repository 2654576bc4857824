/**
 * The `server` executor: one HTTP request per dispatched effect (the `request` form, or one
 * descriptor of a `requests` fan-out), through Node's fetch (undici). Outbound origins come only
 * from the egress allowlist; each attempt has a timeout; `1 + retries` attempts with backoff;
 * the body read is bounded; a redirect is followed only within the same origin.
 */
import type { LinkRunner } from './model-links.js';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isObject, type JsonObject, type JsonValue } from '../../calc/index.js';
import type {
  EffectErrorCode,
  EffectExecutor,
  EffectPolicy,
  ExecutorOutcome,
  RunContext,
} from './executor.js';
import { EFFECT_ENV } from './settings.js';

export interface ServerExecutorOptions {
  egressAllowlist: readonly string[];
  maxResponseBytes: number;
  /** Waits between attempts (tests pass one that does not wait). */
  delay?: (ms: number) => Promise<void>;
  /** Runs links to other models (`target`; model-links.ts); without it a link ends blocked. */
  links?: LinkRunner;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_BACKOFF_MS = 10_000;

/** The wait before attempt `n + 1`, after `n` failed ones (§7: 200 ms fixed, or 200·2^(n-1) ≤ 10 s). */
export function backoffMs(policy: Pick<EffectPolicy, 'backoff'>, failed: number): number {
  if (policy.backoff === 'exponential') return Math.min(200 * 2 ** (failed - 1), MAX_BACKOFF_MS);
  return 200;
}

interface Prepared {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** One attempt's outcome, and whether another attempt may do better. */
interface Attempt {
  outcome: ExecutorOutcome;
  retry: boolean;
}

const fail = (code: EffectErrorCode, message: string): ExecutorOutcome => ({ kind: 'failed', code, message });

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ServerExecutor implements EffectExecutor {
  readonly name = 'server';
  private readonly allowed: Set<string>;
  private readonly delay: (ms: number) => Promise<void>;

  constructor(private readonly options: ServerExecutorOptions) {
    this.allowed = new Set(options.egressAllowlist);
    this.delay = options.delay ?? wait;
  }

  async execute(request: JsonObject, policy: EffectPolicy, context?: RunContext): Promise<ExecutorOutcome> {
    if (request.target !== undefined) {
      if (this.options.links) return this.options.links(request, context);
      return {
        kind: 'blocked',
        code: 'EFFECT_BLOCKED',
        message: 'the target form of a server effect (a link to another model) is not run yet',
      };
    }
    const prepared = this.prepare(request);
    if ('kind' in prepared) return prepared;
    const timeoutMs = policy.timeoutMs > 0 ? policy.timeoutMs : DEFAULT_TIMEOUT_MS;
    const attempts = 1 + Math.max(0, Math.floor(policy.retries || 0));
    let last: ExecutorOutcome = fail('EFFECT_NETWORK', 'no attempt was made');
    for (let n = 1; n <= attempts; n++) {
      if (n > 1) await this.delay(backoffMs(policy, n - 1));
      const { outcome, retry } = await this.attempt(prepared, timeoutMs);
      if (!retry) return outcome;
      last = outcome;
    }
    return last;
  }

  /** Checks the descriptor and the allowlist; the request to send, or why none is sent. */
  private prepare(request: JsonObject): Prepared | ExecutorOutcome {
    const method = typeof request.method === 'string' ? request.method.toUpperCase() : 'GET';
    if (!METHODS.has(method))
      return fail('EFFECT_INVALID_REQUEST', `method must be one of ${[...METHODS].join(', ')}`);
    if (typeof request.url !== 'string' || request.url === '')
      return fail('EFFECT_INVALID_REQUEST', 'the request has no url');
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return fail('EFFECT_INVALID_REQUEST', `'${request.url}' is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return fail('EFFECT_INVALID_REQUEST', `only http and https URLs can be called (got ${url.protocol})`);
    if (!this.allowed.has(url.origin)) {
      return {
        kind: 'blocked',
        code: 'EFFECT_BLOCKED',
        message: `${url.origin} is not an allowed destination: add it to ${EFFECT_ENV.egressAllowlist} (comma-separated origins) to let effects call it`,
      };
    }
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    if (isObject(request.headers))
      for (const [k, v] of Object.entries(request.headers)) {
        const value = typeof v === 'string' ? v : JSON.stringify(v);
        // a CR/LF or other control character would split the request (or make fetch throw late,
        // as a network failure): refused here, by Node's own header rules, before any call
        const refused = headerRefusal(k, value);
        if (refused) return fail('EFFECT_INVALID_REQUEST', refused);
        headers[k.toLowerCase()] = value;
      }
    const prepared: Prepared = { url: url.href, method, headers };
    const body = request.body;
    if (body !== undefined && body !== null) {
      if (method === 'GET')
        return fail('EFFECT_INVALID_REQUEST', 'a GET request cannot carry a body; use POST, PUT or PATCH');
      prepared.body = typeof body === 'string' ? body : JSON.stringify(body);
      if (typeof body !== 'string') headers['content-type'] ??= 'application/json';
    }
    return prepared;
  }

  private async attempt(req: Prepared, timeoutMs: number): Promise<Attempt> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      let url = req.url;
      let method = req.method;
      let body = req.body;
      for (let hop = 0; ; hop++) {
        const res = await fetch(url, {
          method,
          headers: { ...req.headers },
          body,
          redirect: 'manual',
          signal,
        });
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location !== null) {
          await res.body?.cancel();
          const next = new URL(location, url);
          if (next.origin !== new URL(url).origin || hop >= MAX_REDIRECTS) {
            const why =
              hop >= MAX_REDIRECTS ? `more than ${MAX_REDIRECTS} redirects` : `a redirect to ${next.origin}`;
            return { outcome: fail('EFFECT_REDIRECT', `${why} was not followed`), retry: false };
          }
          if (res.status === 303) [method, body] = ['GET', undefined];
          url = next.href;
          continue;
        }
        return await this.answer(res);
      }
    } catch (err) {
      if (signal.aborted)
        return { outcome: fail('EFFECT_TIMEOUT', `no complete answer within ${timeoutMs} ms`), retry: true };
      const cause = (err as { cause?: { code?: unknown } }).cause?.code;
      const detail = typeof cause === 'string' ? ` (${cause})` : '';
      return { outcome: fail('EFFECT_NETWORK', `the request could not be made${detail}`), retry: true };
    }
  }

  /** A response: 2xx is read (bounded) and parsed; 429 and 5xx may be retried; others fail. */
  private async answer(res: Response): Promise<Attempt> {
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel();
      const retry = res.status === 429 || res.status >= 500;
      return { outcome: fail('EFFECT_HTTP_STATUS', `the server answered HTTP ${res.status}`), retry };
    }
    const bytes = await readBounded(res, this.options.maxResponseBytes);
    if (bytes === null) {
      const message = `the response is larger than ${this.options.maxResponseBytes} bytes (${EFFECT_ENV.maxResponseBytes})`;
      return { outcome: fail('EFFECT_RESPONSE_TOO_LARGE', message), retry: false };
    }
    return { outcome: { kind: 'ok', response: parseBody(bytes), status: res.status }, retry: false };
  }
}

/** The body, or null when it is larger than `max` bytes (reading stops there). */
async function readBounded(res: Response, max: number): Promise<Buffer | null> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** `$response`: JSON when the body is JSON, else its text; an empty body is null. */
function parseBody(bytes: Buffer): JsonValue {
  const text = bytes.toString('utf8');
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Why a header cannot be sent (node:http's token and character rules), or undefined when it can. */
function headerRefusal(name: string, value: string): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return `header name ${JSON.stringify(name)} is not a valid HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`;
  }
  try {
    validateHeaderValue(name, value);
  } catch {
    return `header ${JSON.stringify(name)} holds a control character (CR, LF, NUL…), which no HTTP header may carry`;
  }
  return undefined;
}
