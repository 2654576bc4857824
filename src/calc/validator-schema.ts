/**
 * `validate_spec`'s schema section: local references, patterns RE2 can run, keywords writes cannot
 * enforce, then the JSON Schema 2020-12 meta-schema and a compile as writes will use it.
 */
import { isObject, type JsonObject } from './json.js';
import { publicMessage } from './errors.js';
import { safeRegExp, UnsupportedRegexError } from './safe-regex.js';
import { isKnownFormat, knownFormats, metaSchemaChecker } from './schema-cache.js';
import { SPEC_SECTIONS } from './spec.js';
import { key, nearest, type Report } from './validator-report.js';
import { checkWriteSchemaCompiles } from './schema-compile-check.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES } from './schema-keywords.js';

/** Keywords JSON Schema defines but Ajv does not check: a schema naming them would promise too much. */
const UNENFORCED_KEYWORDS = [
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
];

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
/** Keywords that only annotate and so may sit beside a `$ref` harmlessly (`default` beside a ref still seeds). */
const REF_SIBLINGS_OK = new Set([
  '$ref',
  '$comment',
  'title',
  'description',
  'examples',
  'deprecated',
  'default',
]);

interface SchemaWalk {
  root: JsonObject;
  refs: Set<string>;
  nestedIds: boolean;
  blocking: boolean; // a finding that would make ajv.compile throw a less helpful error
}

export function checkSchema(schema: unknown, report: Report): void {
  if (!isObject(schema)) return; // missing / not an object: reported by the loader
  const root = schema as JsonObject;
  for (const section of SPEC_SECTIONS) {
    if (Object.prototype.hasOwnProperty.call(root, section)) {
      report.error(
        `schema.${section}`,
        `'${section}' is a spec section and belongs at the top level of the spec, not inside 'schema'`,
      );
    }
  }
  const walk: SchemaWalk = { root, refs: new Set(), nestedIds: false, blocking: false };
  walkSchema(root, 'schema', walk, report, true);
  checkUnusedDefs(root, walk, report);
  checkSchemaWithAjv(root, walk, report);
}

/** Visits every subschema (never data-valued keywords such as `enum` or `default`). */
function walkSchema(node: unknown, location: string, walk: SchemaWalk, report: Report, isRoot = false): void {
  if (!isObject(node)) return;
  if (!isRoot && typeof node.$id === 'string') walk.nestedIds = true;
  if (typeof node.$ref === 'string') checkRef(node, location, walk, report);
  checkWriteKeywords(node, location, report);
  if (typeof node.pattern === 'string') {
    try {
      new RegExp(node.pattern, 'u');
      safeRegExp(node.pattern, 'u');
    } catch (e) {
      walk.blocking = true;
      report.error(
        `${location}.pattern`,
        e instanceof UnsupportedRegexError
          ? e.message
          : `pattern does not compile as a regular expression: ${(e as Error).message}`,
      );
    }
  }
  for (const k of SCHEMA_MAPS) {
    const map = node[k];
    if (isObject(map))
      for (const [name, sub] of Object.entries(map))
        walkSchema(sub, key(`${location}.${k}`, name), walk, report);
  }
  for (const k of SCHEMA_LISTS) {
    const list = node[k];
    if (Array.isArray(list))
      list.forEach((sub, i) => walkSchema(sub, `${location}.${k}[${i}]`, walk, report));
  }
  for (const k of SCHEMA_SINGLES) {
    const sub = node[k];
    if (Array.isArray(sub)) sub.forEach((s, i) => walkSchema(s, `${location}.${k}[${i}]`, walk, report));
    else walkSchema(sub, `${location}.${k}`, walk, report);
  }
}

function checkRef(node: Record<string, unknown>, location: string, walk: SchemaWalk, report: Report): void {
  const ref = String(node.$ref);
  const loc = `${location}.$ref`;
  const m = /^#\/\$defs\/([^/]+)$/.exec(ref);
  if (!m) {
    walk.blocking = true;
    const hint = /^#\/definitions\/[^/]+$/.test(ref)
      ? `; move the definition to $defs and write '#/$defs/${ref.slice(14)}'`
      : '';
    report.error(loc, `$ref '${ref}' must have the form '#/$defs/Name' (local definitions only)${hint}`);
    return;
  }
  const name = m[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
  walk.refs.add(name);
  const defs = walk.root.$defs;
  if (!isObject(defs) || !Object.prototype.hasOwnProperty.call(defs, name)) {
    walk.blocking = true;
    const known = isObject(defs) ? Object.keys(defs) : [];
    const guess = nearest(name, known);
    report.error(
      loc,
      `$ref '${ref}' points at no $defs entry${guess ? `; did you mean '#/$defs/${guess}'?` : known.length ? ` (defined: ${known.join(', ')})` : ''}`,
    );
  }
  const siblings = Object.keys(node).filter((k) => !REF_SIBLINGS_OK.has(k));
  if (siblings.length > 0) {
    report.warn(
      location,
      `keywords beside $ref (${siblings.join(', ')}) hold on writes together with the definition, but getEffectiveSchema and views read only the definition; move them into it`,
    );
  }
}

function checkUnusedDefs(root: JsonObject, walk: SchemaWalk, report: Report): void {
  const defs = root.$defs;
  if (!isObject(defs)) return;
  for (const name of Object.keys(defs)) {
    if (!walk.refs.has(name))
      report.warn(key('schema.$defs', name), `$defs entry '${name}' is never referenced`);
  }
}

/** Meta-schema validation, then a compile (broken references) when nothing above already explains it. */
function checkSchemaWithAjv(root: JsonObject, walk: SchemaWalk, report: Report): void {
  const copy: JsonObject = { ...root };
  if (typeof copy.$schema === 'string' && !DRAFT_2020.test(copy.$schema)) {
    report.warn(
      'schema.$schema',
      `'$schema' ${copy.$schema} is not draft 2020-12; the schema is read as 2020-12`,
    );
  }
  delete copy.$schema;
  delete copy.$id; // a root $id would collide in the shared instance; local refs do not need it
  const validator = metaSchemaChecker();
  try {
    if (!validator.validateSchema(copy)) {
      reportMetaSchemaErrors(validator.errors ?? [], report);
      return;
    }
  } catch (e) {
    report.error('schema', `schema cannot be checked against JSON Schema 2020-12: ${publicMessage(e)}`);
    return;
  }
  if (walk.blocking) return;
  try {
    // the schema as writes prepare it, each distinct field shape compiled once
    checkWriteSchemaCompiles(root);
  } catch (e) {
    report.error('schema', `schema does not compile: ${publicMessage(e)}`);
  }
}

/**
 * Keywords no write could ever satisfy or that Ajv would pass over: refused where they stand, so
 * none is silently ignored (docs/model-spec.md lists what writes enforce).
 */
function checkWriteKeywords(node: Record<string, unknown>, location: string, report: Report): void {
  for (const k of UNENFORCED_KEYWORDS) {
    if (node[k] !== undefined)
      report.error(`${location}.${k}`, `'${k}' is not checked on writes (it only annotates); remove it`);
  }
  if (typeof node.format === 'string' && !isKnownFormat(node.format)) {
    report.error(
      `${location}.format`,
      `format '${node.format}' is not one writes can check; known formats: ${knownFormats().join(', ')}`,
    );
  }
}

interface MetaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Groups meta-schema errors by location; `anyOf`/`oneOf` summaries add nothing to their branches. */
function reportMetaSchemaErrors(errors: MetaError[], report: Report): void {
  const byPath = new Map<string, string[]>();
  for (const e of errors) {
    if (
      (e.keyword === 'anyOf' || e.keyword === 'oneOf') &&
      errors.some((o) => o !== e && o.instancePath === e.instancePath)
    )
      continue;
    const allowed = Array.isArray(e.params.allowedValues) ? ` (${e.params.allowedValues.join(', ')})` : '';
    const text = `${e.message ?? e.keyword}${allowed}`;
    const list = byPath.get(e.instancePath) ?? [];
    if (!list.includes(text)) list.push(text);
    byPath.set(e.instancePath, list);
  }
  for (const [pointer, messages] of byPath) {
    report.error(pointerLocation(pointer), `invalid JSON Schema: ${messages.join(' or ')}`);
  }
}

/** `/properties/x/allOf/0` → `schema.properties.x.allOf[0]`. */
function pointerLocation(pointer: string): string {
  let loc = 'schema';
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    loc = /^\d+$/.test(token) ? `${loc}[${token}]` : key(loc, token);
  }
  return loc;
}
