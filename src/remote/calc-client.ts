/**
 * The calc operations over the REST API of a `modelworks serve` server: remote mode of the MCP
 * server and the console. REST error bodies become CalcErrors again (their `code` says which), so
 * MCP results keep the structured error shapes of embedded mode. Authoring runs locally.
 */
import WebSocket from 'ws';
import {
  CALC_ERROR_CODES,
  CalcError,
  type CalcErrorCode,
  type DerivationTrace,
  type EvaluatedView,
  type JsonObject,
  type JsonValue,
  type ModelInfo,
  type ModelSpec,
  type Snapshot,
} from '../calc/index.js';
import { ConnectionError, ModelworksClient, ModelworksError } from '../client/index.js';
import type { AuditVerification } from '../service/audit.js';
import type { CompositionGraph } from '../service/calc-composition.js';
import type { PendingEffect as AwaitingApproval } from '../service/effect-approvals.js';
import {
  checkExpectedRevision,
  type AuditFilter,
  type CalcApi,
  type DownloadedBlob,
  type EvolveResult,
  type RestoreResult,
  type LibraryVocabulary,
  type ModelEvent,
  type ModelListener,
  type ModelStatus,
  type MutationSummary,
  type StateOptions,
  type Unsubscribe,
  type WriteOptions,
} from '../service/calc-api.js';
import { authoring } from '../service/calc-authoring.js';
import { checkIdempotencyKey } from '../service/idempotency.js';
import type { ModelGraph, VerificationReport } from '../service/verification.js';
import type { AuditRecord, BlobRef } from '../store/store.js';

export interface CalcClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  apiKey?: string | undefined;
  /** A paired browser session's token (sent as X-Session-Token; the server limits it to its namespace). */
  sessionToken?: string | undefined;
}

/** Fields of an error body that are envelope, not CalcError details. */
const ENVELOPE = new Set(['type', 'title', 'status', 'detail', 'code', 'error', 'message', 'instance']);

const isCode = (code: unknown): code is CalcErrorCode =>
  typeof code === 'string' && Object.prototype.hasOwnProperty.call(CALC_ERROR_CODES, code);

const enc = encodeURIComponent;

/** The key a write was given, checked here as the embedded service checks it. */
function keyOption(options: { idempotencyKey?: string }): { idempotencyKey?: string } {
  const key = checkIdempotencyKey(options.idempotencyKey);
  return key === undefined ? {} : { idempotencyKey: key };
}

/** A write's revision and key, checked here as the embedded service checks them. */
function writeOptions(options: WriteOptions): {
  expectedRevision?: number;
  idempotencyKey?: string;
  includeTraces?: boolean;
} {
  const expectedRevision = checkExpectedRevision(options.expectedRevision);
  return {
    ...(expectedRevision === undefined ? {} : { expectedRevision }),
    ...keyOption(options),
    ...(options.includeTraces === true ? { includeTraces: true } : {}),
  };
}

export class CalcClient implements CalcApi {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly sessionToken: string | undefined;
  private readonly sockets = new Set<WebSocket>();
  /** The transport: the public browser-safe client, so both stay one implementation. */
  private readonly http: ModelworksClient;

  constructor(options: CalcClientOptions) {
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.apiKey = options.apiKey || undefined;
    this.sessionToken = options.sessionToken || undefined;
    this.http = new ModelworksClient({
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      sessionToken: this.sessionToken,
    });
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...extra,
      ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
      ...(this.sessionToken ? { 'x-session-token': this.sessionToken } : {}),
    };
  }

  /** A REST error answer as the error the embedded service would have thrown. */
  private errorOf(err: unknown): Error {
    if (err instanceof ConnectionError) return new Error(err.message);
    if (!(err instanceof ModelworksError)) return err instanceof Error ? err : new Error(String(err));
    const body = err.body;
    const words = [body.detail, body.error, body.message].find((w): w is string => typeof w === 'string');
    if (err.status === 401)
      return new Error(
        `the Modelworks server at ${this.baseUrl} refused the request (401): ${words ?? 'API key missing or wrong'}; set MODELWORKS_API_KEY or --api-key`,
      );
    if (isCode(body.code)) {
      // fromEntries defines each field: a `__proto__` in the server's body stays data, not a prototype
      const details = Object.fromEntries(Object.entries(body).filter(([k]) => !ENVELOPE.has(k)));
      return new CalcError(body.code, words ?? body.code, details);
    }
    return new Error(
      `the Modelworks server at ${this.baseUrl} answered ${err.status}: ${words ?? err.message.replace(/ \(\d+\)$/, '')}`,
    );
  }

  /** One call of the public client (modelworks/client); its errors become CalcErrors again. */
  private async call<T>(send: (http: ModelworksClient) => Promise<T>): Promise<T> {
    try {
      return await send(this.http);
    } catch (err) {
      throw this.errorOf(err);
    }
  }

  // ------------------------------------------------------------ registry

  listModels(): Promise<string[]> {
    return this.call((h) => h.listModels());
  }

  async createModel(spec: unknown): Promise<ModelInfo> {
    const created = await this.call((h) => h.createModel(spec));
    // create_model answers the model info, as in embedded mode (no revision)
    const { revision: _revision, ...info } = await this.getModelInfo(created.id);
    return info;
  }

  getModelInfo(id: string): Promise<ModelStatus> {
    return this.call((h) => h.getModelInfo(id));
  }

  getSpec(id: string): Promise<ModelSpec> {
    return this.call((h) => h.getSpec(id));
  }

  getLineage(id: string): Promise<JsonValue[]> {
    return this.call((h) => h.getLineage(id));
  }

  pendingEffects(id: string): Promise<AwaitingApproval[]> {
    return this.call((h) => h.pendingEffects(id));
  }

  approveEffect(id: string, effectId: string): Promise<{ id: string; effectId: string; approved: true }> {
    return this.call((h) => h.approveEffect(id, effectId));
  }

  compositionGraph(): Promise<CompositionGraph> {
    return this.call((h) => h.compositionGraph());
  }

  async deleteModel(id: string): Promise<{ deleted: true }> {
    await this.call((h) => h.deleteModel(id));
    return { deleted: true };
  }

  // ------------------------------------------------------------ reads

  getState(id: string, options: StateOptions = {}): Promise<JsonValue> {
    return this.call((h) => h.getState(id, options));
  }

  /** The state and the revision the server read it at (its Model-Revision header). */
  async readState(id: string, options: StateOptions = {}): Promise<{ state: JsonValue; revision: number }> {
    const read = await this.call((h) => h.readState(id, options));
    if (!Number.isInteger(read.revision) || read.revision < 0)
      throw new Error(`the Modelworks server at ${this.baseUrl} sent no Model-Revision with the state`);
    return read;
  }

  async getField(id: string, path: string, options: { missing?: 'null' | 'error' } = {}): Promise<JsonValue> {
    try {
      return await this.call((h) => h.getField(id, path));
    } catch (err) {
      if (options.missing !== 'error' && err instanceof CalcError && err.code === 'PATH_NOT_FOUND')
        return null;
      throw err;
    }
  }

  getEffectiveSchema(id: string, path: string): Promise<JsonObject> {
    return this.call((h) => h.getEffectiveSchema(id, path));
  }

  explain(id: string, path: string, limit?: number): Promise<DerivationTrace[]> {
    return this.call((h) => h.explain(id, path, limit));
  }

  getHistory(id: string): Promise<string[]> {
    return this.call((h) => h.getHistory(id));
  }

  getGraph(id: string): Promise<ModelGraph> {
    return this.call((h) => h.getGraph(id));
  }

  getVerification(id: string): Promise<VerificationReport> {
    return this.call((h) => h.getVerification(id));
  }

  getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return this.call((h) => h.getView(id, viewId));
  }

  getLibrary(id: string): Promise<LibraryVocabulary> {
    return this.call((h) => h.getLibrary(id));
  }

  // ------------------------------------------------------------ writes

  // expectedRevision and the idempotency key are checked here as the embedded service checks
  // them, so a bad one is the same INVALID_ARGUMENT in both modes (the server's query validation
  // would answer a bare 400). The body goes as given: the server refuses a malformed one.

  async mutate(id: string, mutations: unknown, options: WriteOptions = {}): Promise<MutationSummary> {
    const checked = writeOptions(options);
    return this.call((h) => h.mutate(id, mutations as Record<string, unknown>, checked));
  }

  async patchModel(id: string, patch: unknown, options: WriteOptions = {}): Promise<MutationSummary> {
    const checked = writeOptions(options);
    return this.call((h) => h.patch(id, patch as unknown[], checked));
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.call((h) => h.snapshot(id));
  }

  async restore(
    id: string,
    snapshot: unknown,
    options: Pick<WriteOptions, 'idempotencyKey'> = {},
  ): Promise<RestoreResult> {
    const checked = keyOption(options);
    return this.call((h) => h.restore(id, snapshot, checked));
  }

  async evolveSpec(
    id: string,
    evolution: unknown,
    options: Pick<WriteOptions, 'expectedRevision' | 'idempotencyKey'> = {},
  ): Promise<EvolveResult> {
    const checked = writeOptions(options);
    return this.call((h) => h.evolveSpec(id, evolution, checked));
  }

  getAudit(id: string, filter: AuditFilter = {}): Promise<AuditRecord[]> {
    return this.call((h) => h.getAudit(id, filter));
  }

  verifyAudit(id: string): Promise<AuditVerification> {
    return this.call((h) => h.verifyAudit(id));
  }

  // ------------------------------------------------------------ blobs

  uploadBlob(data: unknown, mediaType = 'application/octet-stream'): Promise<BlobRef> {
    let bytes: Uint8Array;
    if (data instanceof Uint8Array) bytes = data;
    else if (typeof data === 'string' && /^[A-Za-z0-9+/\r\n]*={0,2}$/.test(data))
      bytes = Buffer.from(data, 'base64');
    else return Promise.reject(new CalcError('INVALID_ARGUMENT', 'data must be base64 text'));
    return this.call((h) => h.uploadBlob(bytes, mediaType));
  }

  async downloadBlob(blobId: string, modelId?: string): Promise<DownloadedBlob> {
    const got = await this.call((h) => h.downloadBlob(blobId, modelId));
    const bytes = Buffer.from(got.bytes);
    return { blobId, bytes: bytes.length, data: bytes.toString('base64'), mediaType: got.mediaType };
  }

  // ------------------------------------------------------------ subscriptions

  /** Events of one model through the server's WebSocket; the unsubscribe closes it. */
  subscribe(id: string, listener: ModelListener): Unsubscribe {
    const url = `${this.baseUrl.replace(/^http/, 'ws')}/models/${enc(id)}/subscribe`;
    const socket = new WebSocket(url, { headers: this.headers() });
    this.sockets.add(socket);
    let registered: () => void = () => {};
    // the server's first frame says the subscription is in place; a failure settles it too
    const ready = new Promise<void>((resolve) => (registered = resolve));
    socket.on('message', (data: Buffer) => {
      let event: ModelEvent | { kind: 'subscribed' };
      try {
        event = JSON.parse(data.toString()) as ModelEvent | { kind: 'subscribed' };
      } catch {
        return;
      }
      if (event.kind === 'subscribed') registered();
      else listener(event);
    });
    // a refused or dropped subscription just stops sending updates; reads still work
    socket.on('error', () => registered());
    socket.on('close', () => {
      registered();
      this.sockets.delete(socket);
    });
    const off = (): void => {
      this.sockets.delete(socket);
      socket.close();
    };
    return Object.assign(off, { ready });
  }

  /** Resolves once a subscription's socket is open (tests and the console wait for it). */
  static opened(socket: WebSocket): Promise<void> {
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
  }

  // ------------------------------------------------------------ authoring (local)

  validateSpec(spec: unknown): ReturnType<CalcApi['validateSpec']> {
    return authoring.validateSpec(spec);
  }

  evalExpression(
    expr: string,
    input?: unknown,
    library?: unknown,
    constants?: Record<string, unknown>,
  ): ReturnType<CalcApi['evalExpression']> {
    return authoring.evalExpression(expr, input, library, constants);
  }

  testSpec(spec: unknown, tests?: unknown): ReturnType<CalcApi['testSpec']> {
    return authoring.testSpec(spec, tests);
  }

  dryRun(spec: unknown, mutations?: unknown): ReturnType<CalcApi['dryRun']> {
    return authoring.dryRun(spec, mutations);
  }

  /** Closes every subscription socket. */
  close(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    this.sockets.clear();
    return Promise.resolve();
  }
}
