/**
 * Writes checked against the model's whole JSON Schema (2020-12, by Ajv), at every depth a write
 * touches, without validating the whole document on every write.
 *
 * A document is valid against a schema exactly when (1) each node's own keywords hold for that
 * node and (2) each child holds against the subschema `properties`/`items` give it. So a write at
 * `p` is checked by validating the value now at `p` against the whole subschema there (every depth
 * inside it: whole arrays and objects included) and each ancestor of `p` against a *shallow* copy
 * of its schema: its `properties` and `items` subschemas replaced by `true` (the children the walk
 * reaches are checked on their own), every other keyword kept whole (`required`, `uniqueItems`,
 * `additionalProperties`, `allOf`, `patternProperties`, …). Ancestors whose shallow schema only
 * annotates cost nothing.
 *
 * The schema is prepared once per spec: `pattern` matches the whole string (the engine's rule since
 * the first version), a derived field is never `required` (it lives outside the base document),
 * and `$schema`/`$id` are dropped (references are local `#/$defs/Name` only).
 */
import type { ValidateFunction, ErrorObject } from 'ajv';
import { formatPath, fromPointer, WILDCARD, type Path } from './address.js';
import { canonicalJson, isObject, jsonTypeName, type JsonObject } from './json.js';
import { BoundedCache, contentKey, newDraft2020Ajv } from './schema-cache.js';
import { deref } from './schema.js';
import type { SchemaViolation } from './schema.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES } from './schema-keywords.js';

/** Keywords that only annotate: a schema holding nothing else accepts every value. */
const ANNOTATIONS = new Set([
  '$comment',
  '$defs',
  'definitions',
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'x-valem-relevant',
]);
/** Compiled subschemas one model keeps before its instance is started afresh (recursive schemas). */
const MAX_COMPILED_PER_MODEL = 2048;
/** An `actual` longer than this (as JSON) is reported by its type only. */
const MAX_ACTUAL_JSON = 200;

const ANCHOR_OPEN = '^(?:';
const ANCHOR_CLOSE = ')$';

/** `pattern` as the engine reads it: the whole string must match. */
function anchored(pattern: string): string {
  return `${ANCHOR_OPEN}${pattern}${ANCHOR_CLOSE}`;
}
function unanchored(pattern: string): string {
  return pattern.startsWith(ANCHOR_OPEN) && pattern.endsWith(ANCHOR_CLOSE)
    ? pattern.slice(ANCHOR_OPEN.length, -ANCHOR_CLOSE.length)
    : pattern;
}

/**
 * Subschemas made ready for writes on demand (see the module comment): a write compiles the few
 * subschemas its path reaches, so preparing (and copying) a schema of 60,000 fields on a model's
 * first write would cost more than the write. Each prepared copy is deep (the subschema and every
 * subschema inside it); data-valued keywords (`enum`, `const`, `default`) are shared, never changed.
 */
export class WriteSchemaPreparation {
  /** `required` lists (by identity) → the derived names dropped from them; built on first need. */
  private drops: Map<unknown[], Set<string>> | undefined;
  private defs: JsonObject | undefined;

  constructor(
    readonly root: JsonObject,
    private readonly derivedTargets: () => Iterable<Path>,
  ) {}

  /** The prepared copy of `node`, every depth inside it; `atRoot` for the root (or its shallow copy). */
  prepare(node: JsonObject, atRoot = false): JsonObject {
    const out = this.copy(node);
    if (atRoot) {
      delete out.$schema;
      // a model starts empty and fills field by field, so the root's list could never hold
      // (validate_spec refuses it; a spec stored before that rule keeps writing)
      delete out.required;
    }
    return out;
  }

  /** The root's `$defs`, prepared once (every compiled subschema carries them for its `$ref`s). */
  preparedDefs(): JsonObject | undefined {
    const raw = this.root.$defs;
    if (!isObject(raw)) return undefined;
    this.defs ??= this.copyMap(raw);
    return this.defs;
  }

  private copy(node: JsonObject): JsonObject {
    const out: JsonObject = { ...node };
    delete out.$id; // references are local `#/$defs/Name` only
    if (typeof out.pattern === 'string') out.pattern = anchored(out.pattern);
    if (Array.isArray(node.required)) {
      const drop = this.dropped().get(node.required);
      if (drop) out.required = node.required.filter((r) => typeof r !== 'string' || !drop.has(r));
    }
    for (const k of SCHEMA_MAPS) {
      const map = node[k];
      if (isObject(map)) out[k] = this.copyMap(map);
    }
    for (const k of SCHEMA_LISTS) {
      const list = node[k];
      if (Array.isArray(list)) out[k] = list.map((sub) => (isObject(sub) ? this.copy(sub) : sub));
    }
    for (const k of SCHEMA_SINGLES) {
      const sub = node[k];
      if (isObject(sub)) out[k] = this.copy(sub);
    }
    return out;
  }

  private copyMap(map: JsonObject): JsonObject {
    const out: JsonObject = {};
    for (const [name, sub] of Object.entries(map)) out[name] = isObject(sub) ? this.copy(sub) : sub;
    return out;
  }

  /** A derived field is never `required`: it lives outside the base document. */
  private dropped(): Map<unknown[], Set<string>> {
    if (this.drops) return this.drops;
    const drops = new Map<unknown[], Set<string>>();
    for (const target of this.derivedTargets()) {
      if (target.length === 0) continue;
      const name = target[target.length - 1];
      if (typeof name !== 'string' || name === WILDCARD) continue;
      const parent = navigate(this.root, target.slice(0, -1));
      if (!isObject(parent)) continue;
      const node = deref(this.root, parent);
      if (!Array.isArray(node.required)) continue;
      const names = drops.get(node.required) ?? new Set<string>();
      names.add(name);
      drops.set(node.required, names);
    }
    this.drops = drops;
    return drops;
  }
}

/** A copy of the whole schema ready for writes (see the module comment). */
export function prepareWriteSchema(schema: JsonObject, derivedTargets: Iterable<Path>): JsonObject {
  const preparation = new WriteSchemaPreparation(schema, () => derivedTargets);
  return preparation.prepare(schema, true);
}

/**
 * The raw subschema (a `$ref` not yet followed, so its siblings count) that `properties`/`items`
 * give the node at `path`; undefined when the schema says nothing there (an ancestor's other
 * keywords, such as `patternProperties`, then hold it).
 */
function navigate(root: JsonObject, path: Path): JsonObject | boolean | undefined {
  let node: unknown = root;
  for (const seg of path) {
    const target = deref(root, node);
    if (typeof seg === 'number' || seg === WILDCARD) {
      if (target.prefixItems !== undefined) return undefined;
      node = target.items;
    } else {
      const props = target.properties;
      node = isObject(props) && Object.hasOwn(props, seg) ? props[seg] : undefined;
    }
    if (typeof node === 'boolean') return node;
    if (!isObject(node)) return undefined;
  }
  return node as JsonObject;
}

/** True when a schema object holds a keyword that can refuse a value. */
function validates(schema: JsonObject): boolean {
  for (const k of Object.keys(schema)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-')) continue;
    if (k === 'properties' && isObject(schema.properties)) {
      if (Object.values(schema.properties).some((v) => v !== true)) return true;
      continue;
    }
    if (k === 'items' && schema.items === true) continue;
    return true;
  }
  return false;
}

/** The node's own keywords: `properties`/`items` subschemas become `true`; the rest stay whole. */
function shallowOf(root: JsonObject, raw: JsonObject): JsonObject {
  const strip = (node: JsonObject): JsonObject => {
    // unevaluated* read what properties/items evaluated: such a node is kept whole
    if (node.unevaluatedProperties !== undefined || node.unevaluatedItems !== undefined) return node;
    const out: JsonObject = { ...node };
    if (isObject(node.properties)) {
      // `true` everywhere: only additionalProperties reads which names are listed, so without it
      // the keyword is dropped (a root of 60,000 fields compiled a 60,000-entry no-op on its
      // first write)
      if (node.additionalProperties === undefined) delete out.properties;
      else out.properties = Object.fromEntries(Object.keys(node.properties).map((k) => [k, true]));
    }
    if (node.items !== undefined && node.prefixItems === undefined) out.items = true;
    return out;
  };
  if (typeof raw.$ref !== 'string') return strip(raw);
  // `$ref` beside other keywords is the conjunction of both; navigation follows the reference
  const { $ref: _ref, ...siblings } = raw;
  return { ...siblings, allOf: [strip(deref(root, raw))] };
}

type Compiled = ValidateFunction | null;

/** One model's write checker: compiled subschemas by schema position (`$.items[*].price`). */
export class WriteSchemaChecker {
  private ajv = newDraft2020Ajv();
  private full = new Map<string, Compiled>();
  private shallow = new Map<string, Compiled>();
  /**
   * Compiled functions by subschema content: a model's many fields of one schema (`{"type":
   * "number"}` at 30,000 addresses) share one function instead of compiling one per address on
   * its first write (a compile costs milliseconds). A function checks a value, never its address.
   */
  private byContent = new Map<string, Compiled>();
  private readonly preparation: WriteSchemaPreparation;
  /** The raw schema as the spec holds it (navigation reads it; compiled pieces are prepared copies). */
  readonly root: JsonObject;

  constructor(schema: JsonObject, derivedTargets: () => Iterable<Path> = () => []) {
    this.root = schema;
    this.preparation = new WriteSchemaPreparation(schema, derivedTargets);
  }

  /**
   * Violations of the value at `path` (whole subschema, every depth inside it) and of each
   * ancestor's own keywords, skipping ancestors listed in `checkedAncestors` (then adding them).
   * `read` reads the document as it stands after the write.
   */
  check(
    path: Path,
    read: (p: Path) => unknown,
    out: SchemaViolation[],
    checkedAncestors?: Set<string>,
  ): void {
    const pattern = path.map((s) => (typeof s === 'number' ? WILDCARD : s));
    // the schema-position keys ($, $.items, $.items[*], …) built once, prefix by prefix
    const keys = patternKeys(pattern);
    for (let n = 0; n < path.length; n++) {
      if (checkedAncestors) {
        const concrete = formatPath(path.slice(0, n));
        if (checkedAncestors.has(concrete)) continue;
        checkedAncestors.add(concrete);
      }
      const validate = this.compiled(this.shallow, pattern.slice(0, n), true, keys[n]);
      if (validate) {
        const at = path.slice(0, n);
        this.run(validate, at, read(at), out);
      }
    }
    const validate = this.compiled(this.full, pattern, false, keys[path.length]);
    if (validate) this.run(validate, path, read(path), out);
  }

  /** How many distinct functions are compiled now (a test reads it). */
  compiledFunctions(): number {
    return this.byContent.size;
  }

  private compiled(
    cache: Map<string, Compiled>,
    pattern: Path,
    shallow: boolean,
    key = formatPath(pattern),
  ): Compiled {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const raw = pattern.length === 0 ? this.root : navigate(this.root, pattern);
    let schema: JsonObject | boolean | undefined;
    if (typeof raw === 'boolean') schema = raw ? undefined : false;
    else if (raw !== undefined) {
      const own = this.preparation.prepare(shallow ? shallowOf(this.root, raw) : raw, pattern.length === 0);
      schema = validates(own) ? own : undefined;
    }
    let fn: Compiled = null;
    if (schema !== undefined) {
      if (this.full.size + this.shallow.size >= MAX_COMPILED_PER_MODEL) this.restart();
      const defs = this.preparation.preparedDefs();
      const withDefs =
        typeof schema === 'boolean' || defs === undefined ? schema : { ...schema, $defs: defs };
      const content = canonicalJson(schema);
      const known = this.byContent.get(content);
      if (known !== undefined) fn = known;
      else {
        try {
          fn = this.ajv.compile(withDefs as object);
        } catch {
          // validate_spec refuses a schema that does not compile; one stored before that rule is
          // held to what does compile of it rather than refusing every write
          fn = null;
        }
        this.byContent.set(content, fn);
      }
    }
    cache.set(key, fn);
    return fn;
  }

  /** Drops every compiled function (a deeply recursive schema reached by many depths). */
  private restart(): void {
    this.ajv = newDraft2020Ajv();
    this.full = new Map();
    this.shallow = new Map();
    this.byContent = new Map();
  }

  private run(validate: ValidateFunction, at: Path, value: unknown, out: SchemaViolation[]): void {
    if (value === undefined || validate(value)) return;
    for (const e of relevantErrors(validate.errors ?? [])) out.push(violationOf(e, at));
  }
}

/** `formatPath` of every prefix of a pattern path (`$`, `$.a`, `$.a[*]`, …), in one pass. */
function patternKeys(pattern: Path): string[] {
  const out = ['$'];
  let key = '$';
  for (const seg of pattern) {
    key = seg === WILDCARD ? `${key}[*]` : `${key}.${JSON.stringify(seg)}`;
    out.push(key);
  }
  return out;
}

/** `anyOf`/`oneOf`/`not` summaries stand for their branches' errors, which are dropped. */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const summaries = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if')
    .map((e) => `${e.schemaPath}/`);
  if (summaries.length === 0) return errors;
  return errors.filter((e) => !summaries.some((s) => e.schemaPath.startsWith(s)));
}

function shownValue(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= MAX_ACTUAL_JSON ? text : jsonTypeName(value);
}

/** An Ajv error in the engine's violation shape: address, keyword, our sentence, expected, actual. */
export function violationOf(e: ErrorObject, base: Path): SchemaViolation {
  const at = [...base, ...fromPointer(e.instancePath)];
  const params = e.params as Record<string, unknown>;
  let path = formatPath(at);
  let expected: unknown = e.schema;
  let actual: unknown = e.data;
  let message: string;
  switch (e.keyword) {
    case 'type':
      message = `${path} must be of type ${[e.schema].flat().join(' or ')}, got ${jsonTypeName(e.data)}`;
      actual = jsonTypeName(e.data);
      break;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      message = `${path} must be ${String(params.comparison)} ${String(params.limit)}, got ${shownValue(e.data)}`;
      break;
    case 'multipleOf':
      message = `${path} must be a multiple of ${String(params.multipleOf)}, got ${shownValue(e.data)}`;
      break;
    case 'minLength':
      message = `${path} must be at least ${String(params.limit)} characters long`;
      break;
    case 'maxLength':
      message = `${path} must be at most ${String(params.limit)} characters long`;
      break;
    case 'pattern':
      expected = unanchored(String(params.pattern));
      message = `${path} must match the pattern ${String(expected)}`;
      break;
    case 'format':
      message = `${path} must be a valid ${String(params.format)}`;
      break;
    case 'enum':
      message = `${path} must be one of ${JSON.stringify(e.schema)}`;
      break;
    case 'const':
      message = `${path} must equal ${JSON.stringify(e.schema)}`;
      break;
    case 'minItems':
      message = `${path} must hold at least ${String(params.limit)} items, got ${(e.data as unknown[]).length}`;
      actual = (e.data as unknown[]).length;
      break;
    case 'maxItems':
      message = `${path} must hold at most ${String(params.limit)} items, got ${(e.data as unknown[]).length}`;
      actual = (e.data as unknown[]).length;
      break;
    case 'uniqueItems':
      message = `${path} must not repeat an item (items ${String(params.j)} and ${String(params.i)} are equal)`;
      actual = [params.j, params.i];
      break;
    case 'required':
      message = `${path} is missing the required field '${String(params.missingProperty)}'`;
      expected = e.schema;
      actual = Object.keys(isObject(e.data) ? e.data : {});
      break;
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      path = formatPath([...at, extra]);
      message = `${path} is not a field the schema allows here`;
      expected = false;
      actual = isObject(e.data) ? (e.data[extra] ?? null) : null;
      break;
    }
    case 'false schema':
      message = `${path} must be absent: the schema allows no value here`;
      expected = false;
      break;
    default:
      message = `${path} ${e.message ?? `breaks '${e.keyword}'`}`;
  }
  const out: SchemaViolation = { path, keyword: e.keyword, message };
  if (expected !== undefined) out.expected = expected;
  if (actual !== undefined) {
    const text = JSON.stringify(actual);
    out.actual = text !== undefined && text.length <= MAX_ACTUAL_JSON ? actual : jsonTypeName(actual);
  }
  return out;
}

/** Checkers kept (each owns an Ajv instance and what it compiled). */
const MODEL_CACHE_SIZE = 64;
const checkers = new BoundedCache<unknown, WriteSchemaChecker>(MODEL_CACHE_SIZE);
/** Past this many subschemas a schema's checker is keyed by its model, not by its content. */
const CONTENT_KEY_LIMIT = 2000;

/** Whether the schema holds more than `limit` subschemas (stops counting there). */
export function largerThan(schema: JsonObject, limit: number): boolean {
  let count = 0;
  const visit = (node: JsonObject): boolean => {
    if (++count > limit) return true;
    for (const k of SCHEMA_MAPS) {
      const map = node[k];
      if (!isObject(map)) continue;
      // each entry counts at least one: a wide map answers before any entry's keywords are read
      // (visiting 2,000 fields' keywords was a third of a 30,000-formula model's first write);
      // for…in stops with the count, where Object.values copied a whole 6,000-field map
      let entries = count;
      for (const name in map)
        if (Object.hasOwn(map, name) && isObject(map[name]) && ++entries > limit) return true;
      for (const name in map)
        if (Object.hasOwn(map, name) && isObject(map[name]) && visit(map[name])) return true;
    }
    for (const k of SCHEMA_LISTS) {
      const list = node[k];
      if (Array.isArray(list)) for (const sub of list) if (isObject(sub) && visit(sub)) return true;
    }
    for (const k of SCHEMA_SINGLES) {
      const sub = node[k];
      if (isObject(sub) && visit(sub)) return true;
    }
    return false;
  };
  return visit(schema);
}

/**
 * The write checker of one compiled model (`owner`), made on its first write and kept in a
 * bounded LRU (runtimes look it up on each write rather than hold it). A schema of up to 2,000
 * subschemas is keyed by its content and derived targets, so every model of one spec (a dry run's,
 * each test's) shares one checker and what it compiled; a larger one is keyed by its model, since
 * a key over its content (a hash of 60,000 fields) cost its first write more than 50 ms. Either
 * way nothing is computed over the whole schema: subschemas are prepared and compiled as writes
 * reach them.
 */
export function writeSchemaChecker(
  owner: object,
  schema: JsonObject,
  derivedTargets: () => Iterable<Path>,
): WriteSchemaChecker {
  const key: unknown = largerThan(schema, CONTENT_KEY_LIMIT)
    ? owner
    : contentKey([schema, [...derivedTargets()].map((t) => formatPath(t))]);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new WriteSchemaChecker(schema, derivedTargets);
    checkers.set(key, checker);
  }
  return checker;
}
