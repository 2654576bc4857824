/**
 * `validate_spec`'s compile check: the schema as writes prepare it (write-schema.ts), compiled by
 * Ajv, so a schema that does not compile is refused where it is authored.
 *
 * Ajv generates code for every subschema it meets, and a generated or converted model's schema is
 * thousands of fields of a few shapes (`{"type": "number", "default": 3}` at 60,000 names): the
 * whole compile cost about a second per 20,000 fields, most of a 30,000-formula create. Whether a
 * subschema compiles depends on its content, not on the name it stands under, so the schema
 * compiled here keeps, in each `properties` map, one field per distinct content (annotations
 * aside, which Ajv's compile never reads with `strict: false`): the same code paths, each once.
 * A field whose text names `$id`, `$anchor` or `$dynamicAnchor` anywhere is always kept, since two
 * equal identifiers are themselves a compile error. `test/calc/schema-compile-check.test.ts` holds
 * the condensed compile to the whole one on generated schemas, broken ones included.
 */
import { canonicalJson, isObject, type JsonObject } from './json.js';
import { BoundedCache, newDraft2020Ajv } from './schema-cache.js';
import { WriteSchemaPreparation } from './write-schema.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES } from './schema-keywords.js';

/** Keywords that only annotate: Ajv (strict mode off, no `useDefaults`) compiles nothing for them. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** Identifiers Ajv registers while compiling: a repeat of one is an error, so never merged. */
const IDENTIFIERS = /"\$(?:id|anchor|dynamicAnchor)"/;

/** What decides whether a field's subschema compiles: its content without top-level annotations. */
function compileKey(sub: unknown): string | undefined {
  const text = canonicalJson(sub);
  if (IDENTIFIERS.test(text)) return undefined;
  if (!isObject(sub)) return text;
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sub)) if (!ANNOTATIONS.has(k)) kept[k] = v;
  return canonicalJson(kept);
}

/** A copy of `node` whose `properties` maps keep one field per distinct compile key (every depth). */
export function condensedForCompile(node: JsonObject): JsonObject {
  const out: JsonObject = { ...node };
  for (const k of SCHEMA_MAPS) {
    const map = node[k];
    if (!isObject(map)) continue;
    const kept: JsonObject = {};
    const seen = new Set<string>();
    for (const [name, sub] of Object.entries(map)) {
      if (k === 'properties') {
        const key = compileKey(sub);
        if (key !== undefined) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
      }
      kept[name] = isObject(sub) ? condensedForCompile(sub) : sub;
    }
    out[k] = kept;
  }
  for (const k of SCHEMA_LISTS) {
    const list = node[k];
    if (Array.isArray(list)) out[k] = list.map((sub) => (isObject(sub) ? condensedForCompile(sub) : sub));
  }
  for (const k of SCHEMA_SINGLES) {
    const sub = node[k];
    if (isObject(sub)) out[k] = condensedForCompile(sub);
  }
  return out;
}

/** Verdicts by the condensed schema's text: a spec validated, dry-run and tested compiles once. */
const verdicts = new BoundedCache<string, string | null>(256);

/**
 * Compiles the schema as writes prepare it, condensed (see the module comment), in an Ajv instance
 * of its own that is dropped afterwards; the verdict is kept by content (bounded).
 * @throws an Error with Ajv's message for a schema that does not compile
 */
export function checkWriteSchemaCompiles(schema: JsonObject): void {
  const condensed = condensedForCompile(new WriteSchemaPreparation(schema, () => []).prepare(schema, true));
  const key = canonicalJson(condensed);
  let verdict = verdicts.get(key);
  if (verdict === undefined) {
    try {
      newDraft2020Ajv().compile(condensed as object);
      verdict = null;
    } catch (e) {
      verdict = e instanceof Error ? e.message : String(e);
    }
    verdicts.set(key, verdict);
  }
  if (verdict !== null) throw new Error(verdict);
}
