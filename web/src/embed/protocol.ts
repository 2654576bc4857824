/**
 * The embed page's fragment and its postMessage protocol with the host page (docs/embedding.md).
 * The `<modelworks-model>` element (web/embed/element.ts) writes the same shapes.
 *
 * Frame → host: modelworks:ready {modelId, state}, modelworks:change {state, flags},
 * modelworks:constraint {violations, rejected}, modelworks:error {message}, modelworks:height {px}.
 * Host → frame: modelworks:set {mutations}, modelworks:dispose.
 */

/** What the `#e=` fragment carries (base64url of this as JSON). */
export interface EmbedRequest {
  /** A spec to show on a private, expiring copy… */
  spec?: unknown;
  /** …with these inputs over its defaults; */
  inputs?: Record<string, unknown>;
  /** or a stored model's id (read with `token`, a paired session's token, when the server is keyed). */
  model?: string;
  token?: string;
  mode?: 'interactive' | 'readonly';
  theme?: 'auto' | 'light' | 'dark';
  /** Show only this view. */
  view?: string;
  /** The host page's origin, as the element saw it: the only one the frame answers. */
  origin?: string;
}

export type HostMessage =
  { type: 'modelworks:set'; mutations: Record<string, unknown> } | { type: 'modelworks:dispose' };

/** base64url of UTF-8 JSON, as the element writes it. */
export function decodeRequest(fragment: string): EmbedRequest | undefined {
  const m = /(?:^#|&)e=([A-Za-z0-9_-]+)/.exec(fragment);
  if (!m) return undefined;
  try {
    const b64 = m[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A host message the frame acts on, or undefined for anything else. */
export function hostMessage(data: unknown): HostMessage | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const m = data as { type?: unknown; mutations?: unknown };
  if (m.type === 'modelworks:dispose') return { type: 'modelworks:dispose' };
  if (
    m.type === 'modelworks:set' &&
    m.mutations !== null &&
    typeof m.mutations === 'object' &&
    !Array.isArray(m.mutations)
  )
    return { type: 'modelworks:set', mutations: m.mutations as Record<string, unknown> };
  return undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether the server allows `origin` as a parent: a list, any, or loopback pages only. */
export function parentAllowed(origin: string, parents: string[] | 'any' | 'loopback'): boolean {
  if (parents === 'any') return true;
  if (Array.isArray(parents)) return parents.includes(origin);
  try {
    return LOOPBACK.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
