/**
 * Schema navigation by address, the effective schema (static fragment + live meta overlay), and
 * the keyword subset checked on every write.
 */
import { WILDCARD, type Path } from './address.js';
import { cloneJson, isObject, jsonEqual, jsonTypeName, type JsonObject } from './json.js';
import { META_KEYWORDS, META_PROPERTIES, type MetaProperty } from './spec.js';
import { safeRegExp } from './safe-regex.js';
import { findUnsafeValue, unsafeValueViolation } from './safe-keys.js';

const MAX_REF_HOPS = 32;
const META_PROPERTY_LIST = Object.keys(META_PROPERTIES) as MetaProperty[];
export const MAX_PATTERN_INPUT = 100_000;

/** Follows local `$ref` chains (`#/$defs/Name`, `#/definitions/Name`); absent or too long → `{}`. */
export function deref(root: JsonObject, node: unknown): JsonObject {
  let cur = node;
  for (let hops = 0; hops <= MAX_REF_HOPS; hops++) {
    if (!isObject(cur)) return {};
    const ref = cur.$ref;
    if (typeof ref !== 'string') return cur as JsonObject;
    cur = resolveLocalRef(root, ref);
    if (cur === undefined) return {};
  }
  return {};
}

/** `#/$defs/Name` → the definition, or undefined. */
export function resolveLocalRef(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const token of ref.slice(2).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** The static schema fragment at an address (`{}` when the path is unknown). */
export function schemaAt(root: JsonObject, path: Path): JsonObject {
  let node = deref(root, root);
  for (const seg of path) {
    if (typeof seg === 'number' || seg === WILDCARD) {
      node = deref(root, node.items);
    } else {
      const props = node.properties;
      if (!isObject(props) || !Object.prototype.hasOwnProperty.call(props, seg)) return {};
      node = deref(root, props[seg]);
    }
    if (Object.keys(node).length === 0) return {};
  }
  return node;
}

/** Overlays live meta values (`address#prop` → value) onto a copy of the static fragment. */
export function effectiveSchema(
  root: JsonObject,
  path: Path,
  address: string,
  meta: ReadonlyMap<string, unknown>,
): JsonObject {
  return cloneJson(writeSchema(root, path, address, meta));
}

/** The schema a write at `address` is checked against; shares the static fragment when no meta applies. */
export function writeSchema(
  root: JsonObject,
  path: Path,
  address: string,
  meta: ReadonlyMap<string, unknown>,
): JsonObject {
  const fragment = schemaAt(root, path);
  if (meta.size === 0) return fragment;
  let out: JsonObject | undefined;
  for (const prop of META_PROPERTY_LIST) {
    const v = meta.get(`${address}#${META_PROPERTIES[prop]}`);
    if (v === undefined || v === null) continue;
    out ??= { ...fragment };
    out[META_KEYWORDS[prop]] = v as never;
  }
  return out ?? fragment;
}

export interface SchemaViolation {
  /** The address of the value that breaks the keyword. */
  path: string;
  keyword: string;
  message: string;
  /** The keyword's value in the schema (the limit, the type, the list, …). */
  expected?: unknown;
  /** The value found (a count, a type name or a short value; long values by their type). */
  actual?: unknown;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

const regexCache = new Map<string, RegExp | null>();
function wholeMatchRegex(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = safeRegExp(`^(?:${pattern})$`, 'u');
    } catch {
      re = null; // a pattern that does not compile (or needs backtracking) is skipped, not a violation
    }
    if (regexCache.size > 5000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/** Characters as JSON Schema counts them (code points: a surrogate pair is one). */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** `multipleOf` exactly as Ajv decides it (the quotient is a whole number; 0 divides nothing). */
function isMultipleOf(value: number, divisor: number): boolean {
  if (divisor === 0) return false;
  const q = value / divisor;
  return q === parseInt(String(q), 10);
}

/**
 * Checks one value against the keyword subset the engine enforces on writes.
 * `readOnly` and `type` stop the check; the rest are all reported.
 */
export function checkValue(
  schema: JsonObject,
  value: unknown,
  address: string,
  options: { ignoreReadOnly?: boolean } = {},
): SchemaViolation[] {
  const unsafe = findUnsafeValue(value);
  if (unsafe) return [unsafeValueViolation(address, unsafe)];
  const out: SchemaViolation[] = [];
  if (!options.ignoreReadOnly && schema.readOnly === true) {
    return [{ path: address, keyword: 'readOnly', message: `${address} is read-only` }];
  }
  if (typeof schema.type === 'string' && !typeMatches(schema.type, value)) {
    return [
      {
        path: address,
        keyword: 'type',
        message: `${address} must be of type ${schema.type}, got ${jsonTypeName(value)}`,
      },
    ];
  }
  if (typeof value === 'number') {
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) {
      out.push({
        path: address,
        keyword: 'exclusiveMinimum',
        message: `${address} must be > ${schema.exclusiveMinimum}, got ${value}`,
      });
    }
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) {
      out.push({
        path: address,
        keyword: 'exclusiveMaximum',
        message: `${address} must be < ${schema.exclusiveMaximum}, got ${value}`,
      });
    }
    if (typeof schema.multipleOf === 'number' && !isMultipleOf(value, schema.multipleOf)) {
      out.push({
        path: address,
        keyword: 'multipleOf',
        message: `${address} must be a multiple of ${schema.multipleOf}, got ${value}`,
      });
    }
    if (typeof schema.minimum === 'number' && value < schema.minimum) {
      out.push({
        path: address,
        keyword: 'minimum',
        message: `${address} must be >= ${schema.minimum}, got ${value}`,
      });
    }
    if (typeof schema.maximum === 'number' && value > schema.maximum) {
      out.push({
        path: address,
        keyword: 'maximum',
        message: `${address} must be <= ${schema.maximum}, got ${value}`,
      });
    }
  }
  if (typeof value === 'string') {
    const length = codePoints(value);
    if (typeof schema.minLength === 'number' && length < schema.minLength) {
      out.push({
        path: address,
        keyword: 'minLength',
        message: `${address} must be at least ${schema.minLength} characters long`,
      });
    }
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
      out.push({
        path: address,
        keyword: 'maxLength',
        message: `${address} must be at most ${schema.maxLength} characters long`,
      });
    }
    if (typeof schema.pattern === 'string') {
      if (value.length > MAX_PATTERN_INPUT) {
        out.push({
          path: address,
          keyword: 'pattern',
          message: `${address} is too long to match against a pattern (${value.length} > ${MAX_PATTERN_INPUT})`,
        });
      } else {
        const re = wholeMatchRegex(schema.pattern);
        if (re && !re.test(value)) {
          out.push({
            path: address,
            keyword: 'pattern',
            message: `${address} must match the pattern ${schema.pattern}`,
          });
        }
      }
    }
  }
  if (schema.const !== undefined && !jsonEqual(schema.const, value)) {
    out.push({
      path: address,
      keyword: 'const',
      message: `${address} must equal ${JSON.stringify(schema.const)}`,
    });
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, value))) {
    out.push({
      path: address,
      keyword: 'enum',
      message: `${address} must be one of ${JSON.stringify(schema.enum)}`,
    });
  }
  return out;
}

/**
 * Seeds schema `default` keywords into a base document where absent or null. Recurses through
 * `properties` only; `$ref` is not followed (a default beside it still seeds). Returns written paths.
 */
export function seedSchemaDefaults(
  schema: JsonObject,
  doc: Record<string, unknown>,
  isDerivedTarget: (path: Path) => boolean,
  write: (path: Path, value: unknown) => void,
): Path[] {
  const written: Path[] = [];
  const visit = (node: JsonObject, at: Path, container: unknown): void => {
    const props = node.properties;
    if (!isObject(props)) return;
    for (const [name, sub] of Object.entries(props)) {
      if (!isObject(sub)) continue;
      const path = [...at, name];
      const current = isObject(container) ? container[name] : undefined;
      if (sub.default !== undefined && sub.default !== null) {
        if ((current === undefined || current === null) && !isDerivedTarget(path)) {
          write(path, cloneJson(sub.default));
          written.push(path);
        }
        continue;
      }
      if (isObject(sub.properties)) visit(sub, path, current);
    }
  };
  visit(schema, [], doc);
  return written;
}
