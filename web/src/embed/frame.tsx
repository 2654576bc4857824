/**
 * The embed page (GET /embed): the model card inside a host page's <iframe>. What to show comes
 * from the URL fragment (`#e=`, never sent to a server); the card talks to its own server only, and
 * to the host page through postMessage, checking that messages come from the parent window and
 * the parent's origin, which the server must allow (MODELWORKS_EMBED_ALLOWED_ORIGINS).
 */
import { StrictMode, useSyncExternalStore } from 'react';
import type { Root } from 'react-dom/client';
import type { Backend, ToolAnswer } from '../backend';
import { shareBackend } from '../backend';
import { Card, nextCard } from '../card';
import type { CardPayload, Component, Json, View } from '../model';
import { decodeRequest, hostMessage, parentAllowed, type EmbedRequest } from './protocol';

export interface EmbedConfig {
  /** The embed routes, e.g. /embed/api. */
  api: string;
  /** The share routes a spec's card recomputes with. */
  share: string;
  parents: string[] | 'any' | 'loopback';
}

type Shown =
  | { kind: 'loading' }
  | { kind: 'failed'; message: string }
  | { kind: 'card'; card: CardPayload; seq: number };

type Post = (type: string, data?: Record<string, unknown>) => void;

const READ_ONLY_MESSAGE = 'This model is read-only here';

/** Every component read-only (a readonly embed's inputs cannot be edited). */
function lockComponents(components: Component[]): Component[] {
  return components.map((c) => ({
    ...c,
    readOnly: true,
    ...(c.components ? { components: lockComponents(c.components) } : {}),
    ...(c.rows ? { rows: c.rows.map((r) => ({ ...r, components: lockComponents(r.components) })) } : {}),
  }));
}

/** The views the host asked for (one, when `view` names it), locked when read-only. */
function shownViews(views: View[], request: EmbedRequest): View[] {
  const picked = request.view ? views.filter((v) => v.viewId === request.view) : views;
  const chosen = picked.length > 0 ? picked : views;
  return request.mode === 'readonly'
    ? chosen.map((v) => ({ ...v, components: lockComponents(v.components) }))
    : chosen;
}

/** The origin of the page that framed us, if the browser says (ancestorOrigins, else the referrer). */
function parentOrigin(request: EmbedRequest): string | undefined {
  const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] ?? undefined;
  if (document.referrer) {
    try {
      return new URL(document.referrer).origin;
    } catch {
      // fall through
    }
  }
  return request.origin;
}

/** The way to the host page: posts go to the parent at its origin, only when the server allows it. */
function hostChannel(
  request: EmbedRequest,
  config: EmbedConfig,
): { post: Post; accepts: (e: MessageEvent) => boolean } {
  const framed = window.parent !== window;
  const origin = framed ? parentOrigin(request) : undefined;
  const talk = origin !== undefined && parentAllowed(origin, config.parents);
  return {
    post: (type, data = {}) => {
      if (talk) window.parent.postMessage({ type, ...data }, origin);
    },
    // only the page that framed us, from the origin we talk to; anything else is ignored
    accepts: (event) => talk && event.source === window.parent && event.origin === origin,
  };
}

/** What is on screen, for React to subscribe to. */
function shownStore() {
  let value: Shown = { kind: 'loading' };
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set: (next: Shown): void => {
      value = next;
      for (const l of listeners) l();
    },
    subscribe: (l: () => void): (() => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

function EmbedRoot({ store, backend }: { store: ReturnType<typeof shownStore>; backend: Backend }) {
  const shown = useSyncExternalStore(store.subscribe, store.get);
  if (shown.kind === 'failed')
    return (
      <main className="card embedded">
        <div className="callout error load-error" role="alert">
          <strong>The model could not be shown.</strong> {shown.message}
        </div>
      </main>
    );
  if (shown.kind === 'loading')
    return (
      <p className="waiting" role="status" aria-busy="true">
        Loading the model…
      </p>
    );
  return <Card key={shown.seq} initial={shown.card} backend={backend} embedded />;
}

const messageOf = (s: Record<string, unknown> | undefined, fallback: string): string =>
  typeof s?.message === 'string' ? s.message : typeof s?.error === 'string' ? s.error : fallback;

/** One embedded card: its server calls, what it tells the host, and the host's edits. */
class EmbeddedCard {
  current: CardPayload | undefined;
  private lastState: string | undefined;
  private seq = 0;
  readonly store = shownStore();
  readonly backend: Backend;
  private readonly headers: Record<string, string> = { 'content-type': 'application/json' };

  constructor(
    private readonly request: EmbedRequest,
    private readonly config: EmbedConfig,
    private readonly post: Post,
  ) {
    if (request.token) this.headers['x-session-token'] = request.token;
    this.backend = this.makeBackend();
  }

  fail(message: string): void {
    this.post('modelworks:error', { message });
    if (!this.current) this.store.set({ kind: 'failed', message });
  }

  private async postJson(path: string, body: unknown): Promise<ToolAnswer> {
    const res = await fetch(`${this.config.api}${path}`, {
      method: 'POST',
      headers: this.headers,
      body: JSON.stringify(body),
    });
    const answer = (await res.json().catch(() => ({}))) as ToolAnswer & { detail?: string; error?: string };
    if (!res.ok)
      return {
        isError: true,
        structuredContent: { message: answer.detail ?? answer.error ?? `HTTP ${res.status}` },
      };
    return answer;
  }

  /** Reports an answer to the host and keeps the card it leads to. */
  private observe(answer: ToolAnswer, given?: Record<string, Json>): ToolAnswer {
    const s = answer.structuredContent;
    if (answer.isError || !s) {
      this.fail(messageOf(s, 'The server refused the request'));
      return answer;
    }
    if (s.rejected === true) {
      this.post('modelworks:constraint', {
        violations: Array.isArray(s.issues) ? s.issues : [],
        rejected: true,
      });
      return answer;
    }
    const views = Array.isArray(s.views) ? shownViews(s.views as View[], this.request) : undefined;
    const shown = views ? { ...s, views } : s;
    if (this.current) this.current = nextCard(this.current, shown, given);
    // a stored card reads its model back every few seconds: only a different state is a change
    const key = JSON.stringify(s.state);
    if (key !== this.lastState) {
      this.lastState = key;
      this.post('modelworks:change', { state: s.state, flags: s.flags ?? [] });
      if (Array.isArray(s.flags) && s.flags.length > 0)
        this.post('modelworks:constraint', { violations: s.flags, rejected: false });
    }
    return { ...answer, structuredContent: shown };
  }

  private makeBackend(): Backend {
    const readonly = this.request.mode === 'readonly';
    const refusal: ToolAnswer = {
      structuredContent: { rejected: true, issues: [{ message: READ_ONLY_MESSAGE }] },
    };
    const share = shareBackend(this.config.share);
    return {
      call: async (name, args) => {
        if (name === 'valem_recompute') {
          if (readonly && args.share !== true) return refusal;
          return this.observe(await share.call(name, args), (args.inputs ?? {}) as Record<string, Json>);
        }
        if (name === 'valem_card_edit') {
          const mutations = (args.mutations ?? {}) as Record<string, unknown>;
          if (readonly && Object.keys(mutations).length > 0) return refusal;
          const path = `/models/${encodeURIComponent(String(args.id))}/card`;
          return this.observe(await this.postJson(path, { specHash: args.specHash, mutations }));
        }
        return share.call(name, args);
      },
      updateContext: () => Promise.resolve(),
    };
  }

  /** The host's edit: applied as the card's own edits are, then the card shows the result. */
  async set(mutations: Record<string, unknown>): Promise<void> {
    const current = this.current;
    if (!current) return this.fail('The model is not shown yet');
    if (this.request.mode === 'readonly') return this.fail(READ_ONLY_MESSAGE);
    const answer =
      current.mode === 'stateless'
        ? await this.backend.call('valem_recompute', {
            specHash: current.specHash,
            inputs: { ...(current.given ?? {}), ...(mutations as Record<string, Json>) },
            spec: current.spec,
          })
        : await this.backend.call('valem_card_edit', {
            id: current.modelId,
            specHash: current.specHash,
            mutations,
          });
    if (!answer.isError && answer.structuredContent?.rejected !== true && this.current)
      this.store.set({ kind: 'card', card: this.current, seq: ++this.seq });
  }

  /** Opens what the fragment names: a spec's private copy or a stored model. */
  async open(): Promise<boolean> {
    const request = this.request;
    let answer: ToolAnswer;
    if (typeof request.model === 'string')
      answer = await this.postJson(`/models/${encodeURIComponent(request.model)}/card`, {});
    else if (request.spec !== undefined)
      answer = await this.postJson('/open', { spec: request.spec, inputs: request.inputs ?? {} });
    else {
      this.fail('This embed names no model: give the element a src or a spec');
      return false;
    }
    const s = answer.structuredContent;
    if (answer.isError || !s) {
      const errors = Array.isArray(s?.errors)
        ? (s.errors as { message?: string }[]).map((e) => e.message).join('; ')
        : '';
      this.fail(errors || messageOf(s, 'The model could not be opened'));
      return false;
    }
    const payload = { ...(s as unknown as CardPayload) };
    payload.views = shownViews(payload.views, request);
    this.current = payload;
    this.lastState = JSON.stringify(payload.state);
    this.store.set({ kind: 'card', card: payload, seq: ++this.seq });
    this.post('modelworks:ready', { modelId: payload.modelId, state: payload.state });
    return true;
  }
}

export function startEmbed(root: Root, config: EmbedConfig): void {
  const request = decodeRequest(location.hash) ?? {};
  // the fragment has done its work: keep it out of the history and of anything that reads the URL
  history.replaceState(null, '', location.pathname);
  const dark =
    request.theme === 'dark' ||
    (request.theme !== 'light' && window.matchMedia?.('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';

  const host = hostChannel(request, config);
  const card = new EmbeddedCard(request, config, host.post);
  window.addEventListener('message', (event: MessageEvent) => {
    if (!host.accepts(event)) return;
    const message = hostMessage(event.data);
    if (message?.type === 'modelworks:set')
      void card.set(message.mutations).catch((e: unknown) => card.fail(String(e)));
    if (message?.type === 'modelworks:dispose') root.unmount();
  });

  let lastHeight = -1;
  const reportHeight = (): void => {
    const px = Math.ceil(document.documentElement.scrollHeight);
    if (px === lastHeight) return;
    lastHeight = px;
    host.post('modelworks:height', { px });
  };
  new ResizeObserver(reportHeight).observe(document.body);

  root.render(
    <StrictMode>
      <EmbedRoot store={card.store} backend={card.backend} />
    </StrictMode>,
  );
  void card
    .open()
    .then((opened) => opened && reportHeight())
    .catch((e: unknown) => card.fail(e instanceof Error ? e.message : String(e)));
}
