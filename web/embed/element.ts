/**
 * `modelworks/embed`: the `<modelworks-model>` custom element. It frames the server's embed page
 * (GET /embed) with what to show in the URL fragment (`#e=`, which browsers never send to a
 * server), re-dispatches the frame's messages as DOM events, and sends it edits. Messages count
 * only from its own frame's window and the server's origin. Docs: docs/embedding.md.
 *
 *   <script type="module" src="https://models.example.com/embed/element.js"></script>
 *   <modelworks-model src="https://models.example.com/models/car-loan" mode="readonly"></modelworks-model>
 *
 * Attributes: `src` (a stored model's URL on the server) or `spec` (a ModelSpec as JSON, shown on
 * a private, expiring copy), `server` (the server's URL when the script came from elsewhere),
 * `mode` (interactive | readonly), `theme` (auto | light | dark), `view` (one view id),
 * `height` (auto | pixels), `lazy` (load when scrolled near), `token` (a paired session's token,
 * for a stored model on a keyed server).
 * Events (CustomEvent, `detail` is the message): modelworks-ready, modelworks-change {state, flags},
 * modelworks-constraint {violations, rejected}, modelworks-error {message}, modelworks-height {px}.
 */

export type EmbedMode = 'interactive' | 'readonly';
export type EmbedTheme = 'auto' | 'light' | 'dark';

export interface ModelworksEventMap {
  'modelworks-ready': CustomEvent<{ modelId: string; state: unknown }>;
  'modelworks-change': CustomEvent<{ state: unknown; flags: unknown[] }>;
  'modelworks-constraint': CustomEvent<{ violations: unknown[]; rejected: boolean }>;
  'modelworks-error': CustomEvent<{ message: string }>;
  'modelworks-height': CustomEvent<{ px: number }>;
}

const MESSAGES = new Set(['ready', 'change', 'constraint', 'error', 'height']);
const ATTRIBUTES = ['src', 'spec', 'server', 'mode', 'theme', 'view', 'height', 'lazy', 'token'] as const;

/** base64url of UTF-8 JSON: the fragment's encoding. */
export function encodeFragment(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Where the element's script came from: the default server (the embed page's origin). */
function scriptOrigin(): string | undefined {
  try {
    const url = new URL(import.meta.url);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Node (server rendering) has no HTMLElement: the class is defined there but never registered. */
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

export class ModelworksModelElement extends Base {
  static readonly observedAttributes = ATTRIBUTES;
  #frame: HTMLIFrameElement | undefined;
  #origin: string | undefined;
  #specValue: unknown;
  #rendered = '';

  /** The spec as an object (instead of the `spec` attribute's JSON text). */
  get spec(): unknown {
    if (this.#specValue !== undefined) return this.#specValue;
    const text = this.getAttribute('spec');
    return text === null ? undefined : (JSON.parse(text) as unknown);
  }
  set spec(value: unknown) {
    // React 19 sets properties of custom elements, older React sets attributes: JSON text either way
    this.#specValue = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    if (this.isConnected) this.#render();
  }

  connectedCallback(): void {
    window.addEventListener('message', this.#onMessage);
    this.#render();
  }

  disconnectedCallback(): void {
    window.removeEventListener('message', this.#onMessage);
    this.#post({ type: 'modelworks:dispose' });
    this.#frame?.remove();
    this.#frame = undefined;
    this.#rendered = '';
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#render();
  }

  /** Writes `{address: value}` into the model, as the card's own edits do (refused when read-only). */
  set(mutations: Record<string, unknown>): void {
    this.#post({ type: 'modelworks:set', mutations });
  }

  /** Ends the frame's card (the element stays; changing an attribute shows it again). */
  dispose(): void {
    this.#post({ type: 'modelworks:dispose' });
  }

  #post(message: Record<string, unknown>): void {
    if (this.#frame?.contentWindow && this.#origin)
      this.#frame.contentWindow.postMessage(message, this.#origin);
  }

  #fail(message: string): void {
    this.dispatchEvent(
      new CustomEvent('modelworks-error', { detail: { message }, bubbles: true, composed: true }),
    );
  }

  /** The server and the fragment's request, from the attributes. */
  #target(): { server: string; request: Record<string, unknown> } | string {
    const src = this.getAttribute('src');
    const serverAttr = this.getAttribute('server');
    const request: Record<string, unknown> = { origin: location.origin };
    let server: string | undefined;
    try {
      server = serverAttr ? new URL(serverAttr, location.href).origin : undefined;
    } catch {
      return `server '${serverAttr}' is not a URL`;
    }
    if (src) {
      let url: URL;
      try {
        url = new URL(src, serverAttr ?? scriptOrigin() ?? location.href);
      } catch {
        return `src '${src}' is not a model URL`;
      }
      const m = /\/models\/([^/]+)\/?$/.exec(url.pathname);
      if (!m) return `src '${src}' is not a model URL (…/models/<id>)`;
      request.model = decodeURIComponent(m[1]!);
      server ??= url.origin;
    } else {
      let spec: unknown;
      try {
        spec = this.spec;
      } catch {
        return 'spec is not JSON';
      }
      if (spec === undefined) return 'give the element a src (a model URL) or a spec';
      request.spec = spec;
    }
    server ??= scriptOrigin();
    if (!server) return 'say which server: a server attribute, or load the element from the server';
    const mode = this.getAttribute('mode');
    if (mode === 'readonly') request.mode = 'readonly';
    const theme = this.getAttribute('theme');
    if (theme === 'light' || theme === 'dark') request.theme = theme;
    const view = this.getAttribute('view');
    if (view) request.view = view;
    const token = this.getAttribute('token');
    if (token) request.token = token;
    return { server, request };
  }

  #render(): void {
    const target = this.#target();
    if (typeof target === 'string') return this.#fail(target);
    const lazy = this.hasAttribute('lazy');
    const src = `${target.server}/embed#e=${encodeFragment(target.request)}`;
    const key = `${src}|${lazy}`;
    this.#applyHeight();
    if (key === this.#rendered) return;
    this.#rendered = key;
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    this.#frame?.remove();
    const frame = document.createElement('iframe');
    frame.title = this.getAttribute('title') ?? 'Model';
    frame.style.cssText = 'border:0;width:100%;display:block;color-scheme:normal';
    if (lazy) frame.loading = 'lazy';
    frame.referrerPolicy = 'origin';
    this.#origin = target.server;
    this.#frame = frame;
    this.#applyHeight();
    frame.src = src;
    root.replaceChildren(frame);
  }

  #applyHeight(px?: number): void {
    if (!this.#frame) return;
    const height = this.getAttribute('height') ?? 'auto';
    if (/^\d+$/.test(height)) this.#frame.style.height = `${height}px`;
    else if (px !== undefined) this.#frame.style.height = `${px}px`;
    else if (!this.#frame.style.height) this.#frame.style.height = '320px';
  }

  #onMessage = (event: MessageEvent): void => {
    // only our own frame, from the server's origin: another page or frame cannot speak for it
    if (!this.#frame || event.source !== this.#frame.contentWindow || event.origin !== this.#origin) return;
    const data = event.data as { type?: unknown } | null;
    if (data === null || typeof data !== 'object' || typeof data.type !== 'string') return;
    const name = data.type.replace(/^modelworks:/, '');
    if (!data.type.startsWith('modelworks:') || !MESSAGES.has(name)) return;
    const { type: _type, ...detail } = data as Record<string, unknown>;
    if (name === 'height' && typeof detail.px === 'number') this.#applyHeight(detail.px);
    this.dispatchEvent(new CustomEvent(`modelworks-${name}`, { detail, bubbles: true, composed: true }));
  };
}

if (typeof customElements !== 'undefined' && !customElements.get('modelworks-model'))
  customElements.define('modelworks-model', ModelworksModelElement);

declare global {
  interface HTMLElementTagNameMap {
    'modelworks-model': ModelworksModelElement;
  }
}
