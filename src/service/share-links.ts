/**
 * Share links for model cards: a link carries the spec and the values on screen (deflated JSON,
 * base64url), so anyone can open a live copy in a browser with nothing stored on the server.
 * Links longer than MAX_LINK_CHARS are dropped rather than truncated.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { isObject } from '../calc/index.js';

export const MAX_LINK_CHARS = 8000;
/** The largest payload we inflate: a 64 KB spec plus inputs, with room to spare. */
const MAX_INFLATED_BYTES = 256 * 1024;

export interface SharePayload {
  spec: Record<string, unknown>;
  inputs: Record<string, unknown>;
}

export interface ShareLinks {
  /** A live copy to open in a browser; undefined when the link would be too long. */
  shareUrl(payload: SharePayload): string | undefined;
  /** The same for an `<iframe>`. */
  embedUrl(payload: SharePayload): string | undefined;
}

export function encodeSharePayload(payload: SharePayload): string {
  return deflateRawSync(Buffer.from(JSON.stringify({ s: payload.spec, i: payload.inputs }), 'utf8'), {
    level: 9,
  }).toString('base64url');
}

/** The payload of a link's `m` parameter; undefined when it is not one of ours. */
export function decodeSharePayload(text: string): SharePayload | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length > MAX_LINK_CHARS) return undefined;
  try {
    const json = inflateRawSync(Buffer.from(text, 'base64url'), { maxOutputLength: MAX_INFLATED_BYTES });
    const parsed: unknown = JSON.parse(json.toString('utf8'));
    if (!isObject(parsed) || !isObject(parsed.s)) return undefined;
    return { spec: parsed.s, inputs: isObject(parsed.i) ? parsed.i : {} };
  } catch {
    return undefined;
  }
}

/** Links under `baseUrl` (e.g. "https://models.example.com"), as served by share-routes.ts. */
export function shareLinkBuilder(baseUrl: string): ShareLinks {
  const base = baseUrl.replace(/\/+$/, '');
  const build = (kind: 'card' | 'embed', payload: SharePayload): string | undefined => {
    const url = `${base}/share/${kind}?m=${encodeSharePayload(payload)}`;
    return url.length > MAX_LINK_CHARS ? undefined : url;
  };
  return {
    shareUrl: (p) => build('card', p),
    embedUrl: (p) => build('embed', p),
  };
}
