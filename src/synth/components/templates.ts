/**
 * Composite renderings (§4.5): `{name}` templates with optional `[...]` parts, the per-node
 * `format`/`locale` overrides and the formats config (`format.<type>.<locale>`, `format.locale`).
 */
import { plainMessage } from '../errors.js';
import type { BuildContext } from './component.js';

/** A compiled template: renders a field lookup to text. */
export type Template = (field: (name: string) => string | undefined) => string;

type Part = { text: string } | { field: string } | { optional: Part[] };

/** Optional `[...]` parts nest at most this deep (parsing and rendering recurse once per level). */
export const MAX_TEMPLATE_NESTING = 32;

function parse(source: string, at: { i: number }, nested: boolean, depth = 0): Part[] {
  if (depth > MAX_TEMPLATE_NESTING)
    throw new Error(`optional parts nest deeper than ${MAX_TEMPLATE_NESTING} levels in the template`);
  const parts: Part[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') parts.push({ text });
    text = '';
  };
  while (at.i < source.length) {
    const c = source[at.i]!;
    if (c === '\\' && at.i + 1 < source.length) {
      text += source[at.i + 1];
      at.i += 2;
    } else if (c === '{') {
      const end = source.indexOf('}', at.i);
      if (end < 0) throw new Error(`unclosed "{" in template "${shown(source)}"`);
      flush();
      parts.push({ field: source.slice(at.i + 1, end).trim() });
      at.i = end + 1;
    } else if (c === '[') {
      flush();
      at.i++;
      parts.push({ optional: parse(source, at, true, depth + 1) });
    } else if (c === ']') {
      if (!nested) throw new Error(`unbalanced "]" in template "${shown(source)}"`);
      at.i++;
      flush();
      return parts;
    } else {
      text += c;
      at.i++;
    }
  }
  if (nested) throw new Error(`unclosed "[" in template "${shown(source)}"`);
  flush();
  return parts;
}

/** A template as quoted in a message: a long one is cut. */
function shown(source: string): string {
  return source.length > 200 ? `${source.slice(0, 200)}…` : source;
}

function fieldsOf(parts: Part[]): string[] {
  return parts.flatMap((p) => ('field' in p ? [p.field] : 'optional' in p ? fieldsOf(p.optional) : []));
}

function render(parts: Part[], field: (name: string) => string | undefined): string {
  let out = '';
  for (const p of parts) {
    if ('text' in p) out += p.text;
    else if ('field' in p) out += field(p.field) ?? '';
    else {
      const names = fieldsOf(p.optional);
      // An optional part disappears when every field it mentions is empty (literal-only parts stay).
      if (names.length > 0 && names.every((n) => (field(n) ?? '') === '')) continue;
      out += render(p.optional, field);
    }
  }
  return out;
}

/**
 * Compiles a template, checking its field names.
 * @throws Error with a readable message on bad syntax or an unknown field
 */
export function compileTemplate(source: string, known: readonly string[]): Template {
  const parts = parse(source, { i: 0 }, false);
  for (const name of fieldsOf(parts))
    if (name !== 'formatted' && !known.includes(name))
      throw new Error(`template field "{${name}}" is not one of ${known.join(', ')}`);
  return (field) => render(parts, field);
}

/**
 * The template a node uses: its `format` attribute, else `format.<type>.<locale>` from the formats
 * config (locale from the node, else `format.locale`), else `format.<type>`, else the default.
 * A rejected template is a load failure of the node.
 */
export function nodeTemplate(
  ctx: BuildContext,
  type: string,
  known: readonly string[],
  fallback: string,
): Template {
  const own = ctx.params.has('format') ? ctx.params.text('format') : undefined;
  const locale =
    (ctx.params.has('locale') ? ctx.params.text('locale') : undefined) ?? ctx.formats.get('format.locale');
  const configured =
    (locale === undefined ? undefined : ctx.formats.get(`format.${type}.${locale}`)) ??
    ctx.formats.get(`format.${type}`);
  const source = own ?? configured ?? fallback;
  try {
    return compileTemplate(source, known);
  } catch (err) {
    return ctx.params.reject(plainMessage(err, 'the template cannot be compiled'));
  }
}

/** Parses `.properties` text (`key=value` or `key: value`, `#`/`!` comments) into a map. */
export function parseProperties(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:]\s*(.*)$/.exec(line);
    if (m !== null) map.set(m[1]!, m[2]!);
  }
  return map;
}
