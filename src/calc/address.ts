/**
 * Addresses: canonical JSON Paths used as data (`$.a.b[0].c`, `$.items[*].x`).
 * Parsed once into segments and compared structurally.
 */

import { FORBIDDEN_KEY_REASON, isForbiddenKey } from './safe-keys.js';

/** `[*]`: matches any one segment. */
export const WILDCARD = '*' as const;
// `[*]` is the WILDCARD string; a literal object key "*" cannot be told from it (accepted limitation).
export type Segment = string | number;

/**
 * A parsed address. Name segments are stored as `{name}` objects only in spirit: we keep them as
 * plain strings and use numbers for indices, and the WILDCARD marker for `[*]`. A literal object key
 * `*` cannot be told from the wildcard (accepted limitation, as with digit-only keys).
 */
export type Path = readonly Segment[];

/** A bracketed, quoted key at the start of the text: `['a b']` or `["a b"]` (no quote inside). */
const QUOTED_NAME = /^\[\s*(['"])([^'"]*)\1\s*\]/;
/** A quoted key holding one of these has no canonical spelling: its rewrite would name other keys. */
const UNSPELLABLE = /[.[\]]/;

/** Splits a raw path string the lenient way (used to build canonical rewrites and hints). */
function lenientSegments(raw: string, unspellable = new Set<number>()): Segment[] {
  let text = raw.trim();
  if (text.startsWith('$.')) text = text.slice(2);
  else if (text.startsWith('$')) text = text.slice(1);
  const out: Segment[] = [];
  let current = '';
  const flush = (): void => {
    if (current === '') return;
    out.push(/^\d+$/.test(current) ? Number(current) : current);
    current = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '.') {
      flush();
    } else if (ch === '[') {
      const close = text.indexOf(']', i);
      const inner = close < 0 ? '' : text.slice(i + 1, close);
      const quoted = QUOTED_NAME.exec(text.slice(i));
      if (close > 0 && (inner === '*' || /^\d+$/.test(inner))) {
        flush();
        out.push(inner === '*' ? WILDCARD : Number(inner));
        i = close;
      } else if (quoted && current === '') {
        // `['unit price']` names a key: its canonical form is `.unit price`, never `.['unit price']`
        flush();
        if (UNSPELLABLE.test(quoted[2]!)) unspellable.add(out.length);
        out.push(quoted[2]!);
        i += quoted[0].length - 1;
      } else {
        current += ch; // any other bracket stays literal in the name
      }
    } else {
      current += ch;
    }
  }
  flush();
  return out;
}

/** Formats segments as a canonical address. */
export function formatPath(path: Path): string {
  let out = '$';
  for (const seg of path) {
    if (seg === WILDCARD) out += '[*]';
    else if (typeof seg === 'number') out += `[${seg}]`;
    else out += `.${seg}`;
  }
  return out;
}

/** The canonical rewrite of any path-like string (`items.0.x` → `$.items[0].x`). */
export function canonicalize(raw: string): string {
  return formatPath(lenientSegments(raw));
}

export type ParseResult = { ok: true; path: Path } | { ok: false; message: string; canonical?: string };

const parseCache = new Map<string, ParseResult>();

/** Parses a canonical address; a non-canonical one fails with its canonical rewrite. */
export function parseAddress(raw: string): ParseResult {
  const cached = parseCache.get(raw);
  if (cached) return cached;
  const result = parseUncached(raw);
  if (parseCache.size > 50_000) parseCache.clear();
  parseCache.set(raw, result);
  return result;
}

function parseUncached(raw: string): ParseResult {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, message: 'address is empty' };
  const unspellable = new Set<number>();
  const segments = lenientSegments(raw, unspellable);
  if (segments.some(isForbiddenKey))
    return { ok: false, message: `address '${raw}': ${FORBIDDEN_KEY_REASON}` };
  const canonical = formatPath(segments);
  if (unspellable.size > 0)
    return {
      ok: false,
      message: `address '${raw}' names a key containing '.', '[' or ']', which an address cannot spell; rename the key`,
    };
  if (canonical !== raw) {
    return {
      ok: false,
      canonical,
      message: `address '${raw}' is not canonical; write it as '${canonical}'`,
    };
  }
  return { ok: true, path: Object.freeze(segments) };
}

/** Parses or throws; for addresses the validator has already accepted. */
export function mustParse(raw: string): Path {
  const r = parseAddress(raw);
  if (!r.ok) throw new Error(r.message);
  return r.path;
}

export function hasWildcard(path: Path): boolean {
  return path.includes(WILDCARD);
}

/** `[*]` on either side matches any one segment; lengths must be equal. */
export function patternMatches(pattern: Path, concrete: Path): boolean {
  if (pattern.length !== concrete.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const c = concrete[i];
    if (p !== WILDCARD && c !== WILDCARD && p !== c) return false;
  }
  return true;
}

/** True when `prefix` is a proper segment-prefix of `path` (`[*]` matching any segment). */
export function isProperPrefix(prefix: Path, path: Path): boolean {
  if (prefix.length >= path.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const p = prefix[i];
    const c = path[i];
    if (p !== WILDCARD && c !== WILDCARD && p !== c) return false;
  }
  return true;
}

/** Drops every index and wildcard segment (`$.items[0].price` → `items.price`). */
export function namesOnly(path: Path): readonly string[] {
  // most paths hold names only: then the path itself (read-only), not a copy per call
  // an index loop: `for…of` made an iterator per call (megabytes over a large spec's graph)
  for (let k = 0; k < path.length; k++) {
    const s = path[k];
    if (typeof s !== 'string' || s === WILDCARD)
      return path.filter((x): x is string => typeof x === 'string' && x !== WILDCARD);
  }
  return path as readonly string[];
}

/** One names-only path is a prefix of (or equal to) the other. */
export function namesRelated(a: Path, b: Path): boolean {
  const na = namesOnly(a);
  const nb = namesOnly(b);
  const n = Math.min(na.length, nb.length);
  for (let i = 0; i < n; i++) if (na[i] !== nb[i]) return false;
  return true;
}

/** Address → JSON Pointer (`$.a[0]` → `/a/0`). */
export function toPointer(path: Path): string {
  return path
    .map(
      (s) =>
        `/${String(s === WILDCARD ? '*' : s)
          .replace(/~/g, '~0')
          .replace(/\//g, '~1')}`,
    )
    .join('');
}

/** JSON Pointer → address segments; all-digit tokens become indices. */
export function fromPointer(pointer: string): Path {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((t) => (/^\d+$/.test(t) ? Number(t) : t));
}

/** Replaces the first `count` segments of `path` with the concrete `prefix`. */
export function withPrefix(prefix: Path, path: Path): Path {
  return [...prefix, ...path.slice(prefix.length)];
}

/** Index of the first `[*]`, or -1. */
export function firstWildcard(path: Path): number {
  return path.indexOf(WILDCARD);
}
