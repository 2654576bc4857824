/**
 * `modelworks/client`: every REST operation of `modelworks serve`, typed with the service's own
 * types (the routes answer what CalcService returns, and CalcService implements CalcApi: one
 * source of truth, imported as types only so nothing of the server runs here). Browser- and
 * Node-safe: fetch and WebSocket of the platform (or given), no Node built-ins, no native code.
 */
import type {
  DerivationTrace,
  EvaluatedView,
  JsonObject,
  JsonValue,
  ModelSpec,
  Snapshot,
} from '../calc/index.js';
import type { AuditVerification } from '../service/audit.js';
import type {
  AuditFilter,
  EvolveResult,
  LibraryVocabulary,
  ModelStatus,
  MutationSummary,
  RestoreResult,
  StateOptions,
} from '../service/calc-api.js';
import type { CalcService } from '../service/calc-service.js';
import type { EvolveAiResult, GenerateRequest, GenerateResult, ProgressFrame } from '../service/generate.js';
import type { Prompt } from '../service/generate-prompt.js';
import type { SimulateArgs, SimulationResult } from '../service/simulate/index.js';
import type { SolveAnswer, SolveArgs } from '../service/solve/index.js';
import type { ModelGraph, VerificationReport } from '../service/verification.js';
import type { AuditRecord, BlobRef } from '../store/store.js';
import { createParser } from 'eventsource-parser';
import { ConnectionError, errorFromResponse, type ErrorBody } from './errors.js';
import {
  openSubscription,
  type SocketConstructor,
  type Subscription,
  type SubscriptionHandlers,
} from './subscription.js';

type Answer<K extends keyof CalcService> = CalcService[K] extends (...args: never[]) => Promise<infer R>
  ? R
  : never;

export type PendingEffect = Answer<'pendingEffects'>[number];
export type EffectApproval = Answer<'approveEffect'>;
export type CompositionGraph = Answer<'compositionGraph'>;
export type FlaggedConstraint = Answer<'getFlags'>[number];
export type { SimulateArgs, SimulationResult, SolveArgs, SolveAnswer };
export type { EvolveAiResult, GenerateRequest, ProgressFrame, Prompt };
/** A generation's answer: the result, and the stored model's id when `create` was asked. */
export type GenerationAnswer = GenerateResult & {
  created?: Created | null;
  createError?: { code: string; message: string };
};

export interface ModelworksClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080` (a trailing `/` is dropped). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (and `?token=` on the subscription, where browsers send no headers). */
  apiKey?: string | undefined;
  /** A paired browser session's token, sent as `X-Session-Token` (`?session=` on the subscription). */
  sessionToken?: string | undefined;
  /** The fetch to use (default: the platform's). */
  fetch?: typeof fetch;
  /** The WebSocket constructor for subscriptions (default: the platform's; on Node 20 pass `ws`'s). */
  WebSocket?: SocketConstructor;
}

/** The options of a write: compare-and-set on the revision, and an idempotency key for retries. */
export interface WriteOptions {
  /** Write only if the model is still at this revision; else VersionConflictError and nothing changes. */
  expectedRevision?: number;
  /** A retry with the same key and request gets the first answer (`replayed: true`) without writing again. */
  idempotencyKey?: string;
}

export interface MutateOptions extends WriteOptions {
  /** Ask for the cycle's derivation traces (default false). */
  includeTraces?: boolean;
  /** With a view id, the answer carries `viewDelta`: that view's components the write changed. */
  view?: string;
}

/** What POST /models answers. */
export interface Created {
  id: string;
  status: 'created';
}

export interface DownloadedBytes {
  bytes: Uint8Array;
  mediaType: string;
}

export interface Health {
  status: string;
  [key: string]: unknown;
}

type Query = Record<string, string | number | boolean | undefined>;

interface Request {
  query?: Query;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

const enc = encodeURIComponent;

function writeHeaders(options: WriteOptions & { view?: string }): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  if (options.view !== undefined) headers['x-view'] = options.view;
  return headers;
}

export class ModelworksClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly sessionToken: string | undefined;
  private readonly fetchFn: typeof fetch;
  private readonly socketCtor: SocketConstructor | undefined;

  constructor(options: ModelworksClientOptions) {
    if (typeof options?.baseUrl !== 'string' || options.baseUrl === '')
      throw new TypeError('ModelworksClient needs a baseUrl, e.g. http://127.0.0.1:8080');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey || undefined;
    this.sessionToken = options.sessionToken || undefined;
    const platformFetch =
      typeof globalThis.fetch === 'function' ? globalThis.fetch.bind(globalThis) : undefined;
    const chosen = options.fetch ?? platformFetch;
    if (!chosen) throw new TypeError('ModelworksClient needs fetch: this platform has none, pass one');
    this.fetchFn = chosen;
    this.socketCtor =
      options.WebSocket ?? (globalThis as { WebSocket?: SocketConstructor }).WebSocket ?? undefined;
  }

  // ------------------------------------------------------------ transport

  /** Sends one request; a non-2xx answer throws the matching ModelworksError. */
  async send(method: string, path: string, request: Request = {}): Promise<Response> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(request.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...(request.headers ?? {}) };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (this.sessionToken) headers['x-session-token'] = this.sessionToken;
    let body: string | FormData | undefined;
    if (request.body instanceof FormData) body = request.body;
    else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = request.contentType ?? 'application/json';
    }
    let res: Response;
    try {
      res = await this.fetchFn(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new ConnectionError(`cannot reach the Modelworks server at ${this.baseUrl}: ${why}`, 0);
    }
    if (res.ok) return res;
    let errorBody: ErrorBody = {};
    try {
      const parsed: unknown = await res.json();
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
        errorBody = parsed as ErrorBody;
    } catch {
      // not JSON: the status says enough
    }
    throw errorFromResponse(res.status, res.statusText, errorBody, res.headers.get('retry-after'));
  }

  private async json<T>(method: string, path: string, request?: Request): Promise<T> {
    const res = await this.send(method, path, request);
    const text = await res.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  private model(id: string, rest = ''): string {
    return `/models/${enc(id)}${rest}`;
  }

  // ------------------------------------------------------------ server

  health(): Promise<Health> {
    return this.json('GET', '/health');
  }

  /** The server's OpenAPI document. */
  openApi(): Promise<JsonObject> {
    return this.json('GET', '/openapi.json');
  }

  /** Prometheus metrics as text (when the server exposes them). */
  async metrics(): Promise<string> {
    return (await this.send('GET', '/metrics')).text();
  }

  // ------------------------------------------------------------ models

  listModels(): Promise<string[]> {
    return this.json('GET', '/models');
  }

  createModel(spec: unknown): Promise<Created> {
    return this.json('POST', '/models', { body: spec });
  }

  getModelInfo(id: string): Promise<ModelStatus> {
    return this.json('GET', this.model(id));
  }

  async deleteModel(id: string): Promise<void> {
    await this.send('DELETE', this.model(id));
  }

  getSpec(id: string): Promise<ModelSpec> {
    return this.json('GET', this.model(id, '/spec'));
  }

  getLineage(id: string): Promise<JsonValue[]> {
    return this.json('GET', this.model(id, '/lineage'));
  }

  pendingEffects(id: string): Promise<PendingEffect[]> {
    return this.json('GET', this.model(id, '/effects/pending'));
  }

  approveEffect(id: string, effectId: string): Promise<EffectApproval> {
    return this.json('POST', this.model(id, `/effects/${enc(effectId)}/approve`));
  }

  getLibrary(id: string): Promise<LibraryVocabulary> {
    return this.json('GET', this.model(id, '/library'));
  }

  // ------------------------------------------------------------ reads

  private stateQuery(options: StateOptions): Query {
    return { at: options.at, paths: options.paths?.join(','), depth: options.depth };
  }

  getState(id: string, options: StateOptions = {}): Promise<JsonValue> {
    return this.json('GET', this.model(id, '/state'), { query: this.stateQuery(options) });
  }

  /** The state and the revision it was read at (pass it as the next write's expectedRevision). */
  async readState(id: string, options: StateOptions = {}): Promise<{ state: JsonValue; revision: number }> {
    const res = await this.send('GET', this.model(id, '/state'), { query: this.stateQuery(options) });
    const revision = Number(res.headers.get('model-revision'));
    return { state: (await res.json()) as JsonValue, revision };
  }

  getField(id: string, path: string): Promise<JsonValue> {
    return this.json('GET', this.model(id, `/state/${enc(path)}`));
  }

  getHistory(id: string): Promise<string[]> {
    return this.json('GET', this.model(id, '/history'));
  }

  getEffectiveSchema(id: string, path: string): Promise<JsonObject> {
    return this.json('GET', this.model(id, `/schema/${enc(path)}`));
  }

  explain(id: string, path: string, limit?: number): Promise<DerivationTrace[]> {
    return this.json('GET', this.model(id, `/explain/${enc(path)}`), { query: { limit } });
  }

  getGraph(id: string): Promise<ModelGraph> {
    return this.json('GET', this.model(id, '/graph'));
  }

  getFlags(id: string): Promise<FlaggedConstraint[]> {
    return this.json('GET', this.model(id, '/flags'));
  }

  getVerification(id: string): Promise<VerificationReport> {
    return this.json('GET', this.model(id, '/verification'));
  }

  getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return this.json('GET', this.model(id, viewId === undefined ? '/view' : `/view/${enc(viewId)}`));
  }

  getAudit(id: string, filter: AuditFilter = {}): Promise<AuditRecord[]> {
    return this.json('GET', this.model(id, '/audit'), {
      query: { path: filter.pathPrefix, from: filter.from, to: filter.to, limit: filter.limit },
    });
  }

  verifyAudit(id: string): Promise<AuditVerification> {
    return this.json('GET', this.model(id, '/audit/verify'));
  }

  // ------------------------------------------------------------ writes

  /** Writes `{address: value, …}` as one reactive cycle. */
  mutate(
    id: string,
    mutations: Record<string, unknown>,
    options: MutateOptions = {},
  ): Promise<MutationSummary & { viewDelta?: Record<string, JsonObject> }> {
    return this.json('POST', this.model(id, '/mutations'), {
      body: mutations,
      query: { traces: options.includeTraces === true, expectedRevision: options.expectedRevision },
      headers: writeHeaders(options),
    });
  }

  /** Applies an RFC 6902 JSON Patch as one reactive cycle. */
  patch(id: string, operations: unknown[], options: MutateOptions = {}): Promise<MutationSummary> {
    return this.json('POST', this.model(id, '/mutations/patch'), {
      body: operations,
      contentType: 'application/json-patch+json',
      query: { traces: options.includeTraces === true, expectedRevision: options.expectedRevision },
      headers: writeHeaders(options),
    });
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.json('POST', this.model(id, '/snapshot'));
  }

  restore(
    id: string,
    snapshot: unknown,
    options: Pick<WriteOptions, 'idempotencyKey'> = {},
  ): Promise<RestoreResult> {
    return this.json('POST', this.model(id, '/restore'), { body: snapshot, headers: writeHeaders(options) });
  }

  evolveSpec(id: string, evolution: unknown, options: WriteOptions = {}): Promise<EvolveResult> {
    return this.json('POST', this.model(id, '/spec/evolve'), {
      body: evolution,
      query: { expectedRevision: options.expectedRevision },
      headers: writeHeaders(options),
    });
  }

  // ------------------------------------------------------------ what-if

  /** Monte Carlo over a stored model's inputs (a private copy: the model does not change). */
  simulate(id: string, args: Omit<SimulateArgs, 'id' | 'spec'>): Promise<SimulationResult> {
    return this.json('POST', this.model(id, '/simulations'), { body: args });
  }

  /** Monte Carlo over a spec given here. */
  simulateSpec(args: SimulateArgs & { spec: unknown }): Promise<SimulationResult> {
    return this.json('POST', '/simulations', { body: args });
  }

  /** Goal seek or optimise a stored model (on a copy unless `apply: true`). */
  solve(id: string, args: Omit<SolveArgs, 'id' | 'spec'>): Promise<SolveAnswer> {
    return this.json('POST', this.model(id, '/solve'), { body: args });
  }

  /** Goal seek or optimise a spec given here. */
  solveSpec(args: SolveArgs & { spec: unknown }): Promise<SolveAnswer> {
    return this.json('POST', '/solve', { body: args });
  }

  compositionGraph(): Promise<CompositionGraph> {
    return this.json('GET', '/composition/graph');
  }

  // ------------------------------------------------------------ generation (docs/generate.md)

  /** The prompt a generation would send (works without a provider). */
  previewGeneration(request: GenerateRequest): Promise<Prompt> {
    return this.json('POST', '/models/generate/preview', { body: request });
  }

  /** A spec from a description; `create: true` also stores it. */
  generateModel(request: GenerateRequest & { create?: boolean }): Promise<GenerationAnswer> {
    return this.json('POST', '/models/generate', { body: request });
  }

  /**
   * The same, with the loop's progress frames as they arrive (the server's SSE stream); resolves
   * with the `done` frame's answer, rejects with the `error` frame's problem.
   */
  async generateModelStream(
    request: GenerateRequest & { create?: boolean },
    onProgress: (frame: ProgressFrame) => void,
  ): Promise<GenerationAnswer> {
    const res = await this.send('POST', '/models/generate/stream', { body: request });
    if (!res.body) throw new ConnectionError('the generation stream sent no body', res.status);
    let outcome: { done: GenerationAnswer } | { error: ErrorBody } | undefined;
    const parser = createParser({
      onEvent: ({ event, data }) => {
        const value = JSON.parse(data) as unknown;
        if (event === 'done') outcome = { done: value as GenerationAnswer };
        else if (event === 'error') outcome = { error: value as ErrorBody };
        else onProgress(value as ProgressFrame);
      },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
    if (outcome && 'done' in outcome) return outcome.done;
    const error = outcome?.error ?? { detail: 'the generation stream ended without an answer' };
    const status = typeof error.status === 'number' ? error.status : 502;
    throw errorFromResponse(status, 'Generation failed', error, null);
  }

  /** An evolution of a stored model from a description of the change. */
  evolveSpecAi(
    id: string,
    request: GenerateRequest & { expectedRevision?: number },
  ): Promise<EvolveAiResult> {
    return this.json('POST', this.model(id, '/spec/evolve/ai'), { body: request });
  }

  /** The server's log of LLM calls (the operator's: needs the API key when one is set). */
  llmInteractions(): Promise<JsonObject> {
    return this.json('GET', '/llm/interactions');
  }

  // ------------------------------------------------------------ blobs

  uploadBlob(data: Blob | Uint8Array, mediaType = 'application/octet-stream'): Promise<BlobRef> {
    const form = new FormData();
    form.set('mediaType', mediaType);
    const blob = data instanceof Blob ? data : new Blob([data], { type: mediaType });
    form.set('file', blob, 'blob');
    return this.json('POST', '/blobs', { body: form });
  }

  async downloadBlob(blobId: string, modelId?: string): Promise<DownloadedBytes> {
    const path =
      modelId === undefined ? `/blobs/${enc(blobId)}` : this.model(modelId, `/blobs/${enc(blobId)}`);
    const res = await this.send('GET', path);
    return {
      bytes: new Uint8Array(await res.arrayBuffer()),
      mediaType: res.headers.get('content-type') ?? 'application/octet-stream',
    };
  }

  /** The orphan-blob report (`apply: true` deletes them; needs a keyed server). */
  collectBlobs(
    options: { apply?: boolean } = {},
  ): Promise<{ supported: boolean; orphans: string[]; applied: boolean }> {
    return this.json('POST', '/admin/blobs/gc', { query: { apply: options.apply } });
  }

  // ------------------------------------------------------------ subscriptions

  /**
   * A model's changes as they commit, through the server's WebSocket. It reconnects after a drop
   * (backoff 250 ms doubling to 8 s) and resumes: on reconnecting it reads the model again and
   * hands `{kind:'resumed', revision, state, missed}` to `onEvent`, so nothing is silently lost.
   */
  subscribe(id: string, handlers: SubscriptionHandlers): Subscription {
    if (!this.socketCtor)
      throw new TypeError('this platform has no WebSocket: pass one as the WebSocket option');
    const url = new URL(`${this.baseUrl.replace(/^http/, 'ws')}${this.model(id, '/subscribe')}`);
    if (handlers.paths && handlers.paths.length > 0) url.searchParams.set('paths', handlers.paths.join(','));
    if (this.sessionToken) url.searchParams.set('session', this.sessionToken);
    else if (this.apiKey) url.searchParams.set('token', this.apiKey);
    return openSubscription({
      url: url.toString(),
      modelId: id,
      Socket: this.socketCtor,
      readState: () => this.readState(id),
      handlers,
    });
  }
}
