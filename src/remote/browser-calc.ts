/**
 * Model tools in remote mode with `--browser`: nothing works until pair_browser has paired this
 * MCP server with a browser session; then every call goes to the server with the session's token,
 * and model ids are namespaced on the wire (`<namespaceId>__<id>`) and translated back, so the
 * agent sees its own ids and the browser sees the same models.
 */
import type {
  AuditFilter,
  CalcApi,
  ModelListener,
  StateOptions,
  Unsubscribe,
  WriteOptions,
} from '../service/calc-api.js';
import { authoring } from '../service/calc-authoring.js';
import type { CompositionGraph } from '../service/calc-composition.js';
import type { BrowserPairing } from './browser-pairing.js';
import { CalcClient } from './calc-client.js';

export const NOT_PAIRED =
  'Not paired with a browser session yet — call pair_browser, open the link it returns and approve, then retry.';

const SEPARATOR = '__';

/** Id fields of results (ModelInfo, snapshots, audit records, events, graphs) to translate back. */
const ID_FIELDS = new Set(['id', 'modelId']);

export class BrowserCalc implements CalcApi {
  private client: CalcClient | undefined;
  private clientToken: string | undefined;

  constructor(
    private readonly pairing: BrowserPairing,
    private readonly options: { url: string; apiKey?: string | undefined },
  ) {}

  /** The REST client of the paired session, or the "pair first" error. */
  private remote(): { client: CalcClient; prefix: string } {
    const session = this.pairing.current;
    if (!session) throw new Error(NOT_PAIRED);
    if (!this.client || this.clientToken !== session.sessionToken) {
      this.client = new CalcClient({
        url: this.options.url,
        apiKey: this.options.apiKey,
        sessionToken: session.sessionToken,
      });
      this.clientToken = session.sessionToken;
    }
    return { client: this.client, prefix: `${session.namespaceId}${SEPARATOR}` };
  }

  private wire(id: string): { client: CalcClient; wireId: string; prefix: string } {
    const { client, prefix } = this.remote();
    return { client, wireId: prefix + id, prefix };
  }

  /** Strips the namespace from id fields, a few levels deep (results are small records). */
  private unwire<T>(value: T, prefix: string, depth = 0): T {
    if (depth > 3 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v: unknown) => this.unwire(v, prefix, depth + 1)) as T;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] =
        ID_FIELDS.has(k) && typeof v === 'string' && v.startsWith(prefix)
          ? v.slice(prefix.length)
          : this.unwire(v, prefix, depth + 1);
    }
    return out as T;
  }

  async listModels(): Promise<string[]> {
    const { client, prefix } = this.remote();
    return (await client.listModels())
      .filter((id) => id.startsWith(prefix))
      .map((id) => id.slice(prefix.length));
  }

  async createModel(spec: unknown) {
    const { client, prefix } = this.remote();
    const s = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>) : {};
    const wireSpec = typeof s.id === 'string' ? { ...s, id: prefix + s.id } : spec;
    return this.unwire(await client.createModel(wireSpec), prefix);
  }

  private async call<T>(id: string, run: (client: CalcClient, wireId: string) => Promise<T>): Promise<T> {
    const { client, wireId, prefix } = this.wire(id);
    return this.unwire(await run(client, wireId), prefix);
  }

  getModelInfo = (id: string) => this.call(id, (c, w) => c.getModelInfo(w));
  getSpec = (id: string) => this.call(id, (c, w) => c.getSpec(w));
  getLineage = (id: string) => this.call(id, (c, w) => c.getLineage(w));
  pendingEffects = (id: string) => this.call(id, (c, w) => c.pendingEffects(w));
  approveEffect = (id: string, effectId: string) => this.call(id, (c, w) => c.approveEffect(w, effectId));

  /** The graph of the paired namespace's models only, their ids without the namespace. */
  async compositionGraph(): Promise<CompositionGraph> {
    const { client, prefix } = this.remote();
    const graph = await client.compositionGraph();
    const mine = (id: string) => id.startsWith(prefix);
    const local = (id: string) => id.slice(prefix.length);
    return {
      nodes: graph.nodes.filter((n) => mine(n.ref)).map((n) => ({ ...n, ref: local(n.ref) })),
      linkEdges: graph.linkEdges
        .filter((e) => mine(e.from) && mine(e.to))
        .map((e) => ({ ...e, from: local(e.from), to: local(e.to) })),
      lineageEdges: graph.lineageEdges
        .filter((e) => mine(e.branch) && mine(e.template))
        .map((e) => ({ branch: local(e.branch), template: local(e.template) })),
    };
  }
  deleteModel = (id: string) => this.call(id, (c, w) => c.deleteModel(w));
  getState = (id: string, options?: StateOptions) => this.call(id, (c, w) => c.getState(w, options));
  readState = (id: string, options?: StateOptions) => this.call(id, (c, w) => c.readState(w, options));
  getField = (id: string, path: string, options?: { missing?: 'null' | 'error' }) =>
    this.call(id, (c, w) => c.getField(w, path, options));
  getEffectiveSchema = (id: string, path: string) => this.call(id, (c, w) => c.getEffectiveSchema(w, path));
  explain = (id: string, path: string, limit?: number) => this.call(id, (c, w) => c.explain(w, path, limit));
  getHistory = (id: string) => this.call(id, (c, w) => c.getHistory(w));
  getGraph = (id: string) => this.call(id, (c, w) => c.getGraph(w));
  getVerification = (id: string) => this.call(id, (c, w) => c.getVerification(w));
  getView = (id: string, viewId?: string) => this.call(id, (c, w) => c.getView(w, viewId));
  getLibrary = (id: string) => this.call(id, (c, w) => c.getLibrary(w));
  mutate = (id: string, mutations: unknown, options?: WriteOptions) =>
    this.call(id, (c, w) => c.mutate(w, mutations, options));
  patchModel = (id: string, patch: unknown, options?: WriteOptions) =>
    this.call(id, (c, w) => c.patchModel(w, patch, options));
  snapshot = (id: string) => this.call(id, (c, w) => c.snapshot(w));
  restore = (id: string, snapshot: unknown) =>
    this.call(id, (c, w) => {
      const s =
        snapshot !== null && typeof snapshot === 'object' ? (snapshot as Record<string, unknown>) : {};
      // a snapshot handed back verbatim names the agent's id: put the namespace back
      return c.restore(w, typeof s.modelId === 'string' ? { ...s, modelId: w } : snapshot);
    });
  evolveSpec = (id: string, evolution: unknown, options?: Pick<WriteOptions, 'expectedRevision'>) =>
    this.call(id, (c, w) => c.evolveSpec(w, evolution, options));
  getAudit = (id: string, filter?: AuditFilter) => this.call(id, (c, w) => c.getAudit(w, filter));
  verifyAudit = (id: string) => this.call(id, (c, w) => c.verifyAudit(w));

  uploadBlob(data: unknown, mediaType?: string) {
    return this.remote().client.uploadBlob(data, mediaType);
  }

  downloadBlob(blobId: string, modelId?: string) {
    const { client, prefix } = this.remote();
    return client.downloadBlob(blobId, modelId === undefined ? undefined : prefix + modelId);
  }

  subscribe(id: string, listener: ModelListener): Unsubscribe {
    const { client, wireId, prefix } = this.wire(id);
    return client.subscribe(wireId, (event) => listener(this.unwire(event, prefix)));
  }

  // authoring runs here, before and after pairing
  validateSpec: CalcApi['validateSpec'] = (spec) => authoring.validateSpec(spec);
  evalExpression: CalcApi['evalExpression'] = (expr, input, library, constants) =>
    authoring.evalExpression(expr, input, library, constants);
  testSpec: CalcApi['testSpec'] = (spec, tests) => authoring.testSpec(spec, tests);
  dryRun: CalcApi['dryRun'] = (spec, mutations) => authoring.dryRun(spec, mutations);

  async close(): Promise<void> {
    await this.client?.close();
  }
}
