/**
 * Proxy mode's client of a running synth Service (`modelworks synth serve`), on the global fetch.
 * Model registrations are cached by the SHA-256 of the model text and reused; a registration the
 * Service no longer knows (idle-evicted, deleted, or the Service restarted) is re-registered once.
 * An unreachable Service is a clear error naming the URL and the ways out.
 */
import { createHash } from 'node:crypto';
import { SynthServiceError, type SynthServiceErrorCode } from '../service/synth-errors.js';
import type { GenerateArgs, GenerateResult, GenerationPage } from '../service/synth-service.js';

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8085';
/** Registrations remembered per client; a forgotten one is simply registered again. */
const MAX_REGISTRATIONS = 1000;

export interface SynthServiceClientOptions {
  baseUrl: string;
  token?: string;
}

const KNOWN_CODES = new Set<string>([
  'BAD_REQUEST',
  'MODEL_INVALID',
  'MODEL_NOT_FOUND',
  'GENERATION_NOT_FOUND',
  'COMPONENT_NOT_FOUND',
  'TOO_LARGE',
  'BUSY',
  'CANCELLED',
  'GENERATION_FAILED',
  'CONFIG',
  'INTERNAL',
]);

/** The Service could not be reached (refused, DNS, reset), or its answer broke off midway. */
export class ServiceUnreachableError extends Error {
  readonly code = 'SERVICE_UNREACHABLE';
  constructor(
    readonly url: string,
    cause: string,
  ) {
    super(
      `Cannot reach the synth Service at ${url} (${cause}). Start one with \`modelworks synth serve\` ` +
        `(it listens on ${DEFAULT_SERVICE_URL} by default), point MODELWORKS_SYNTH_SERVICE_URL at a running ` +
        `Service, or set MODELWORKS_SYNTH_GENERATE_MODE=embedded to generate inside the MCP server instead.`,
    );
    this.name = 'ServiceUnreachableError';
  }
}

/** The Service answered with an error other than one of its own structured ones (401, 5xx...). */
export class ServiceResponseError extends Error {
  readonly code = 'SERVICE_ERROR';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceResponseError';
  }
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

export class SynthServiceClient {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  /** SHA-256 of model text → registered model id (the oldest dropped past MAX_REGISTRATIONS). */
  private readonly registrations = new Map<string, string>();

  constructor(options: SynthServiceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw new SynthServiceError('CANCELLED', 'request cancelled');
      throw new ServiceUnreachableError(this.baseUrl, causeOf(err));
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      // the connection dropped (or the call was cancelled) after the status line, mid-answer
      if (signal?.aborted) throw new SynthServiceError('CANCELLED', 'request cancelled');
      throw new ServiceUnreachableError(this.baseUrl, `the answer broke off: ${causeOf(err)}`);
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.ok) {
      if (parsed === undefined)
        throw new ServiceResponseError(response.status, `the synth Service at ${this.baseUrl} sent non-JSON`);
      return parsed;
    }
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    if (response.status === 401)
      throw new ServiceResponseError(
        401,
        `the synth Service at ${this.baseUrl} refused the request: ${error?.message ?? 'unauthorized'}. Set MODELWORKS_SYNTH_SERVICE_TOKEN to the Service's token.`,
      );
    if (error && typeof error.code === 'string' && KNOWN_CODES.has(error.code)) {
      const { code, message, ...details } = error as Record<string, unknown>;
      throw new SynthServiceError(code as SynthServiceErrorCode, String(message), details);
    }
    throw new ServiceResponseError(
      response.status,
      `the synth Service at ${this.baseUrl} answered ${response.status}: ${error?.message ?? text.slice(0, 200)}`,
    );
  }

  /** Registers model text; a new registration every call (use `modelIdFor` to reuse). */
  async register(modelText: string, signal?: AbortSignal): Promise<string> {
    const info = (await this.request('POST', '/v1/models', { modelText }, signal)) as { modelId: string };
    return info.modelId;
  }

  /**
   * Generates from model text: reuses the cached registration for identical text, and when the
   * Service no longer knows it, registers once more and retries once.
   */
  async generate(modelText: string, args: GenerateArgs, signal?: AbortSignal): Promise<GenerateResult> {
    const key = createHash('sha256').update(modelText, 'utf8').digest('hex');
    let modelId = this.registrations.get(key);
    const fresh = modelId === undefined;
    if (modelId === undefined) {
      modelId = await this.register(modelText, signal);
      this.remember(key, modelId);
    }
    const body = { modelId, ...args };
    try {
      return (await this.request('POST', '/v1/generate', body, signal)) as GenerateResult;
    } catch (err) {
      if (fresh || !(err instanceof SynthServiceError) || err.code !== 'MODEL_NOT_FOUND') throw err;
      this.registrations.delete(key);
      modelId = await this.register(modelText, signal);
      this.remember(key, modelId);
      return (await this.request('POST', '/v1/generate', { ...body, modelId }, signal)) as GenerateResult;
    }
  }

  private remember(key: string, modelId: string): void {
    this.registrations.set(key, modelId);
    if (this.registrations.size > MAX_REGISTRATIONS)
      this.registrations.delete(this.registrations.keys().next().value as string);
  }

  /** A page of a Service generation (`g-…`). */
  async read(
    generationId: string,
    args: { offset?: unknown; limit?: unknown; maxChars: number },
    signal?: AbortSignal,
  ): Promise<GenerationPage> {
    const q = new URLSearchParams();
    if (args.offset !== undefined) q.set('offset', String(args.offset));
    if (args.limit !== undefined) q.set('limit', String(args.limit));
    q.set('maxChars', String(args.maxChars));
    return (await this.request(
      'GET',
      `/v1/generate/${encodeURIComponent(generationId)}/data?${q.toString()}`,
      undefined,
      signal,
    )) as GenerationPage;
  }
}
