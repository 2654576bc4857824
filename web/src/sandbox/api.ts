/**
 * The sandbox's REST client. Every call carries the paired session's token in `X-Session-Token`
 * (the server maps it to the session's namespace) and goes to the page's own origin only.
 */
import type { Flag, Graph, Json, JsonObject, View } from '../model';

/** Where the approve page leaves the browser's session token. */
export const TOKEN_KEY = 'modelworks.sandboxToken';

/** One audited cycle, as GET /models/{id}/audit answers (newest first). */
export interface AuditEntry {
  sequence: number;
  timestamp: string;
  source: string;
  mutations: Record<string, Json>;
  derivedUpdated: string[];
  flaggedConstraints?: string[];
}

/** A refusal of the server, with the words it gave (`detail`, `error`, violations). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }

  /** The messages of a schema or rollback-rule refusal (empty for other errors). */
  violations(): string[] {
    const b = this.body as { violations?: unknown } | null;
    if (!b || !Array.isArray(b.violations)) return [];
    return b.violations.flatMap((v: unknown) =>
      v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string'
        ? [(v as { message: string }).message]
        : [],
    );
  }
}

function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const parts = [b.error, b.message, b.detail].filter((x): x is string => typeof x === 'string');
    const unique = parts.filter((p, i) => parts.indexOf(p) === i);
    if (unique.length > 0) return unique.join(': ');
  }
  return `The server answered ${status}`;
}

export interface SandboxApi {
  listModels(): Promise<string[]>;
  view(id: string, viewId?: string): Promise<View>;
  state(id: string): Promise<JsonObject>;
  spec(id: string): Promise<JsonObject>;
  audit(id: string): Promise<AuditEntry[]>;
  graph(id: string): Promise<Graph>;
  /** The flag rules failing now. */
  flags(id: string): Promise<Flag[]>;
  mutate(id: string, mutations: Record<string, Json>): Promise<JsonObject>;
  /** Goal seek on a private copy of the model (with `apply: true`, the answer written as one cycle). */
  solve(id: string, request: Record<string, unknown>): Promise<unknown>;
  /** The WebSocket URL of a model's change feed (the token rides in the query: no headers there). */
  subscribeUrl(id: string): string;
}

export function sandboxApi(token: string, origin: URL = new URL(window.location.href)): SandboxApi {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { 'x-session-token': token, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      cache: 'no-store',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new ApiError(res.status, messageOf(res.status, parsed), parsed);
    return parsed as T;
  };
  const m = (id: string): string => `/models/${encodeURIComponent(id)}`;
  return {
    // ids; entries shaped {id} are accepted too, in case the list grows details
    listModels: async () =>
      (await call<unknown[]>('GET', '/models')).flatMap((m) =>
        typeof m === 'string'
          ? [m]
          : m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string'
            ? [(m as { id: string }).id]
            : [],
      ),
    view: (id, viewId) =>
      call<View>(
        'GET',
        viewId === undefined ? `${m(id)}/view` : `${m(id)}/view/${encodeURIComponent(viewId)}`,
      ),
    state: (id) => call<JsonObject>('GET', `${m(id)}/state`),
    spec: (id) => call<JsonObject>('GET', `${m(id)}/spec`),
    audit: (id) => call<AuditEntry[]>('GET', `${m(id)}/audit?limit=200`),
    graph: (id) => call<Graph>('GET', `${m(id)}/graph`),
    flags: (id) => call<Flag[]>('GET', `${m(id)}/flags`),
    // the REST body is the mutations themselves: {"$.address": value, …}
    mutate: (id, mutations) => call<JsonObject>('POST', `${m(id)}/mutations?traces=false`, mutations),
    solve: (id, request) => call<unknown>('POST', `${m(id)}/solve`, request),
    subscribeUrl: (id) => {
      const scheme = origin.protocol === 'https:' ? 'wss:' : 'ws:';
      return `${scheme}//${origin.host}${m(id)}/subscribe?session=${encodeURIComponent(token)}`;
    },
  };
}

/** `nsabc__demo` → `demo`: the namespace is the part before the first `__`. */
export function splitNamespaced(id: string): { namespace: string | undefined; name: string } {
  const at = id.indexOf('__');
  return at > 0 ? { namespace: id.slice(0, at), name: id.slice(at + 2) } : { namespace: undefined, name: id };
}
