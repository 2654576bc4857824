/**
 * The ModelSpec validator (`validate_spec`): every finding carries a location such as
 * `derivations[3].expr`; errors make a spec invalid, warnings do not. Shape problems come from the
 * loader (`normalizeSpec`); this module adds the semantic checks, then — only for an error-free
 * spec — the dependency-cycle check and the embedded tests.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { parseAddress, WILDCARD, type Path } from './address.js';
import { findUnsafeValue, unsafeValueLocation, unsafeValueReason } from './safe-keys.js';
import { CalcError, publicMessage } from './errors.js';
import { compileExpression, JSONATA_BUILTINS, RESERVED_BINDINGS } from './expression.js';
import { safeRegExp, unsupportedRegexIn, UnsupportedRegexError } from './safe-regex.js';
import { isObject, type JsonObject } from './json.js';
import { compileLibrary } from './library.js';
import { compileModel, type CompiledModel } from './program.js';
import { deref } from './schema.js';
import { metaKey, normalizeSpec, SPEC_SECTIONS, type Effect, type ModelSpec } from './spec.js';
import { runTests, type TestReport } from './test-runner.js';
import {
  COMPONENT_TYPES,
  DISPLAY_EXPRESSION_FIELDS,
  isComponentType,
  PLAIN_TEXT_FIELDS,
} from './view-catalog.js';

export interface ValidationFinding {
  location: string;
  message: string;
}

export interface ValidationResult {
  valid: boolean;
  errors: ValidationFinding[];
  warnings: ValidationFinding[];
}

/** The name other modules import the result under. */
export type ValidationReport = ValidationResult;

export interface ValidateOptions {
  /** Run the embedded tests (default true). */
  runTests?: boolean;
}

/** Collects findings; remembers error locations so one slip is not reported twice. */
class Report {
  readonly errors: ValidationFinding[] = [];
  readonly warnings: ValidationFinding[] = [];
  private readonly errorLocations = new Set<string>();

  error(location: string, message: string): void {
    this.errors.push({ location, message });
    this.errorLocations.add(location);
  }
  warn(location: string, message: string): void {
    this.warnings.push({ location, message });
  }
  hasErrorAt(location: string): boolean {
    return this.errorLocations.has(location);
  }
}

/**
 * Validates a ModelSpec: shape, identity, schema, addresses, expressions, library, effects, view,
 * then (if error-free) the dependency graph and, unless `runTests` is false, the embedded tests.
 * A failing test is an error; tests that cannot run at all are a warning.
 */
export async function validateSpec(input: unknown, options: ValidateOptions = {}): Promise<ValidationResult> {
  const report = new Report();
  // nothing below may walk a spec holding `__proto__` keys or nesting without bound
  const unsafe = findUnsafeValue(input);
  if (unsafe) {
    report.error(unsafeValueLocation(unsafe) || '(spec)', unsafeValueReason(unsafe));
    return { valid: false, errors: report.errors, warnings: report.warnings };
  }
  const { spec, findings } = normalizeSpec(input);
  for (const f of findings) report.error(f.location, f.message);
  const raw = isObject(input) ? input : {};

  checkIdentity(raw, report);
  checkSchema(raw.schema, report);
  checkConstants(spec.constants, report);
  const names = await checkLibrary(spec, report);
  checkDerivations(spec, names, report);
  checkMetaDerivations(spec, names, report);
  checkDefaults(spec, names, report);
  checkConstraints(spec, raw, names, report);
  checkEffects(spec, raw, names, report);
  checkTemplate(raw, report);
  checkView(spec, report);

  if (report.errors.length === 0) await checkGraphAndTests(spec, options.runTests ?? true, report);
  return { valid: report.errors.length === 0, errors: report.errors, warnings: report.warnings };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const SEGMENT = '[A-Za-z][A-Za-z0-9_-]*';
const COORDINATE = new RegExp(`^(?:${SEGMENT}(?:\\.${SEGMENT})*/)?${SEGMENT}$`);
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SEMVER_PRE_ID = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
const SEMVER = new RegExp(
  `^(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)(?:-${SEMVER_PRE_ID}(?:\\.${SEMVER_PRE_ID})*)?$`,
);

/** `[namespace/]name`, each segment `[A-Za-z][A-Za-z0-9_-]*`, namespace possibly dotted. */
export function isCoordinate(value: unknown): value is string {
  return typeof value === 'string' && COORDINATE.test(value);
}

/** A coordinate, optionally pinned to a version (`acme/quote@1.2.0`). */
function isCoordinateRef(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const at = value.indexOf('@');
  if (at < 0) return isCoordinate(value);
  return isCoordinate(value.slice(0, at)) && value.slice(at + 1).trim() !== '';
}

/** `loc.name` for identifier-like keys, `loc["odd key"]` otherwise. */
function key(location: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? `${location}.${name}`
    : `${location}[${JSON.stringify(name)}]`;
}

/** Levenshtein distance; names are short, so the quadratic table is fine. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest candidate within max(1, len/3) edits, if any. */
function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Checks a required address; returns its parsed path when canonical. */
function checkAddress(address: string, location: string, report: Report): Path | undefined {
  if (report.hasErrorAt(location)) return undefined; // already reported missing by the loader
  const parsed = parseAddress(address);
  if (!parsed.ok) {
    report.error(location, parsed.message);
    return undefined;
  }
  return parsed.path;
}

/** Flags a repeated key in a keyed list section. */
function checkUnique(
  seen: Map<string, string>,
  value: string,
  location: string,
  what: string,
  report: Report,
): void {
  if (value === '') return;
  const first = seen.get(value);
  if (first !== undefined)
    report.error(location, `duplicate ${what} '${value}' (first declared at ${first})`);
  else seen.set(value, location);
}

// ---------------------------------------------------------------------------------------------
// Identity: id, version

function checkIdentity(raw: Record<string, unknown>, report: Report): void {
  const id = raw.id;
  if (id !== undefined) {
    if (typeof id !== 'string' || id.trim() === '') {
      report.error('id', "'id' must be a non-blank string");
    } else if (id.includes('@')) {
      report.error('id', `id '${id}' must not contain '@' (a version goes in 'version')`);
    } else if (!isCoordinate(id)) {
      report.error(
        'id',
        `id '${id}' is not a coordinate [namespace/]name: each segment starts with a letter and holds letters, digits, '_' or '-'; the namespace may be dotted (acme.eu/quote)`,
      );
    }
  }
  const version = raw.version;
  if (version === undefined || version === null) return;
  if (typeof version !== 'string') {
    report.warn(
      'version',
      '\'version\' should be a string such as "1.0.0"; this one is ignored and 1.0.0 is used',
    );
  } else if (version.trim() !== '' && !SEMVER.test(version)) {
    report.warn(
      'version',
      `version '${version}' is not semver MAJOR.MINOR.PATCH[-pre] (e.g. "1.0.0"); accepted as is`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Schema

type AjvInstance = InstanceType<typeof Ajv2020Module.default>;
const AjvCtor = Ajv2020Module.default;
let sharedAjv: AjvInstance | undefined;

/** One shared instance keeps the meta-schema compiled once; schemas are removed after use. */
function ajv(): AjvInstance {
  sharedAjv ??= new AjvCtor({ strict: false, allErrors: true });
  return sharedAjv;
}

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
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_SINGLES = [
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];

interface SchemaWalk {
  root: JsonObject;
  refs: Set<string>;
  nestedIds: boolean;
  blocking: boolean; // a finding that would make ajv.compile throw a less helpful error
}

function checkSchema(schema: unknown, report: Report): void {
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
      `keywords beside $ref (${siblings.join(', ')}) are ignored by schema navigation and write validation; move them into the definition`,
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
  const validator = ajv();
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
  const instance = walk.nestedIds ? new AjvCtor({ strict: false }) : validator;
  try {
    instance.compile(copy);
  } catch (e) {
    report.error('schema', `schema does not compile: ${publicMessage(e)}`);
  } finally {
    instance.removeSchema(copy);
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

// ---------------------------------------------------------------------------------------------
// Constants and library

function checkConstants(constants: JsonObject, report: Report): void {
  for (const name of Object.keys(constants)) {
    if (!IDENT.test(name)) {
      report.warn(
        key('constants', name),
        `constant name '${name}' is not a simple identifier; expressions must write $const."${name}"`,
      );
    }
  }
}

/** Names an expression may call or read as `$name`. */
interface NameContext {
  /** Library exports; undefined when the library failed (its errors are reported instead). */
  exports: Set<string> | undefined;
}

async function checkLibrary(spec: ModelSpec, report: Report): Promise<NameContext> {
  if (spec.library === undefined) return { exports: new Set() };
  const { library, findings } = await compileLibrary(spec.library, spec.constants);
  for (const f of findings) {
    if (f.severity === 'error') report.error(f.location, f.message);
    else report.warn(f.location, f.message);
  }
  return { exports: library ? new Set(library.exports.map((e) => e.name)) : undefined };
}

// ---------------------------------------------------------------------------------------------
// Expressions

type AstNode = Record<string, unknown>;

/** Compiles an expression and lints its `$name` references; returns false when it does not compile. */
function checkExpression(text: string, location: string, names: NameContext, report: Report): boolean {
  if (report.hasErrorAt(location)) return false; // missing: already reported by the loader
  if (text.trim() === '') {
    report.error(location, 'expression is empty');
    return false;
  }
  const compiled = compileExpression(text);
  if (!compiled.ok) {
    report.error(location, `expression does not compile: ${compiled.message}`);
    return false;
  }
  lintNames(compiled.expr.ast as unknown as AstNode, location, names, report);
  const regexProblem = unsupportedRegexIn(compiled.expr.ast);
  if (regexProblem) {
    report.error(location, regexProblem);
    return false;
  }
  return true;
}

/** Variables an expression binds itself: `:=` targets, lambda parameters, `@$x` / `#$i` steps. */
function boundNames(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const n of node) boundNames(n, out);
  } else if (isObject(node)) {
    if (node.type === 'bind' && isObject(node.lhs) && typeof node.lhs.value === 'string') {
      out.add(node.lhs.value);
    }
    if (node.type === 'lambda' && Array.isArray(node.arguments)) {
      for (const a of node.arguments) if (isObject(a) && typeof a.value === 'string') out.add(a.value);
    }
    if (typeof node.focus === 'string') out.add(node.focus);
    if (typeof node.index === 'string') out.add(node.index);
    for (const [k, child] of Object.entries(node)) {
      if (k !== 'position' && k !== 'value') boundNames(child, out);
    }
  }
  return out;
}

/** Walks the AST: unknown `$f(` calls are errors, unresolved `$x` reads and `$lookup`/`$eval` calls warnings. */
function lintNames(ast: AstNode, location: string, names: NameContext, report: Report): void {
  const bound = boundNames(ast, new Set());
  const exports = names.exports;
  const known = (n: string): boolean =>
    JSONATA_BUILTINS.has(n) || RESERVED_BINDINGS.has(n) || bound.has(n) || (exports?.has(n) ?? true);
  const reported = new Set<string>();
  /** True the first time a tag is seen: one finding per name and expression. */
  const once = (tag: string): boolean => {
    if (reported.has(tag)) return false;
    reported.add(tag);
    return true;
  };
  const checkCall = (name: string): void => {
    if ((name === 'lookup' || name === 'eval') && !bound.has(name)) {
      if (once(`dyn:${name}`)) {
        report.warn(
          location,
          `$${name}() reads fields the dependency extractor cannot see, so the result may not refresh when they change`,
        );
      }
    } else if (!known(name) && exports !== undefined && once(`call:${name}`)) {
      report.error(location, unknownFunctionMessage(name, exports));
    }
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (!isObject(node)) return;
    if (node.type === 'function' || node.type === 'partial') {
      const proc = node.procedure;
      if (isObject(proc) && proc.type === 'variable') checkCall(String(proc.value));
      else visit(proc); // e.g. an immediately applied lambda
      visit(node.arguments);
      return;
    }
    if (node.type === 'variable') {
      const name = String(node.value);
      if (name !== '' && name !== '$' && !known(name) && exports !== undefined && once(`var:${name}`)) {
        report.warn(
          location,
          `$${name} is not bound here (no library export, reserved name or := in this expression), so it evaluates to nothing; for a field write ${name}`,
        );
      }
    }
    if (node.type === 'bind') {
      visit(node.rhs);
      return;
    }
    if (node.type === 'lambda') {
      visit(node.body);
      return;
    }
    visitChildren(node);
  };
  const visitChildren = (node: AstNode): void => {
    for (const [k, child] of Object.entries(node)) {
      if (k !== 'position' && k !== 'value' && k !== 'type') visit(child);
    }
  };
  visit(ast);
}

function unknownFunctionMessage(name: string, exports: Set<string>): string {
  const guess = nearest(name, [...exports, ...JSONATA_BUILTINS]);
  const hint = guess ? `; did you mean $${guess}()?` : '';
  return `unknown function $${name}(): not a JSONata built-in, library export, reserved name or variable bound in this expression${hint}`;
}

// ---------------------------------------------------------------------------------------------
// Derivations, meta, defaults, constraints

function checkDerivations(spec: ModelSpec, names: NameContext, report: Report): void {
  const seen = new Map<string, string>();
  spec.derivations.forEach((d, i) => {
    const loc = `derivations[${i}]`;
    const path = checkAddress(d.path, `${loc}.path`, report);
    if (path && path.filter((s) => s === WILDCARD).length > 1) {
      report.error(
        `${loc}.path`,
        `derivation target '${d.path}' has more than one [*]; per-row targets support a single [*] (derive the inner rows as a whole array instead)`,
      );
    }
    if (path) checkUnique(seen, d.path, `${loc}.path`, 'derivation path', report);
    checkExpression(d.expr, `${loc}.expr`, names, report);
  });
}

function checkMetaDerivations(spec: ModelSpec, names: NameContext, report: Report): void {
  const seen = new Map<string, string>();
  spec.metaDerivations.forEach((m, i) => {
    const loc = `metaDerivations[${i}]`;
    const path = checkAddress(m.path, `${loc}.path`, report);
    if (path && !report.hasErrorAt(`${loc}.property`)) {
      checkUnique(seen, metaKey(m.path, m.property), `${loc}.property`, 'meta derivation', report);
    }
    checkExpression(m.expr, `${loc}.expr`, names, report);
  });
}

function checkDefaults(spec: ModelSpec, names: NameContext, report: Report): void {
  const seen = new Map<string, string>();
  spec.defaultValues.forEach((d, i) => {
    const loc = `defaultValues[${i}]`;
    if (checkAddress(d.path, `${loc}.path`, report)) {
      checkUnique(seen, d.path, `${loc}.path`, 'default path', report);
    }
    checkExpression(d.expr, `${loc}.expr`, names, report);
  });
}

function rawItem(raw: Record<string, unknown>, section: string, i: number): Record<string, unknown> {
  const list = raw[section];
  const item = Array.isArray(list) ? (list as unknown[])[i] : undefined;
  return isObject(item) ? item : {};
}

/** An id must be present (the loader reports a missing one), non-blank and unique in its section. */
function checkId(
  id: string,
  location: string,
  what: string,
  seen: Map<string, string>,
  report: Report,
): void {
  if (report.hasErrorAt(location)) return;
  if (id.trim() === '') report.error(location, `${what} 'id' must not be blank`);
  else checkUnique(seen, id, location, `${what} id`, report);
}

function checkConstraints(
  spec: ModelSpec,
  raw: Record<string, unknown>,
  names: NameContext,
  report: Report,
): void {
  const seen = new Map<string, string>();
  spec.constraints.forEach((c, i) => {
    const loc = `constraints[${i}]`;
    checkId(c.id, `${loc}.id`, 'constraint', seen, report);
    if (typeof c.path === 'string') checkAddress(c.path, `${loc}.path`, report);
    else if (Array.isArray(c.path)) c.path.forEach((p, j) => checkAddress(p, `${loc}.path[${j}]`, report));
    checkExpression(c.expr, `${loc}.expr`, names, report);
    const message = rawItem(raw, 'constraints', i).message;
    if (typeof message !== 'string' || message.trim() === '') {
      report.warn(
        `${loc}.message`,
        'constraint has no message; a violation will be reported without an explanation',
      );
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Effects

const EXECUTORS = ['caller', 'server', 'llm', 'timer'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function checkEffects(
  spec: ModelSpec,
  raw: Record<string, unknown>,
  names: NameContext,
  report: Report,
): void {
  const seen = new Map<string, string>();
  spec.effects.forEach((e, i) => {
    const loc = `effects[${i}]`;
    const authored = rawItem(raw, 'effects', i);
    checkId(e.id, `${loc}.id`, 'effect', seen, report);
    checkCommonEffectFields(e, loc, names, report);
    if (authored.executor !== undefined && typeof authored.executor !== 'string') {
      report.error(`${loc}.executor`, `'executor' must be a string, one of ${EXECUTORS.join(', ')}`);
      return;
    }
    checkExecutor(e, authored, loc, report);
  });
}

function checkCommonEffectFields(e: Effect, loc: string, names: NameContext, report: Report): void {
  // compiled whatever the executor: the model compiler compiles every one of them
  for (const field of ['trigger', 'dedupeKey', 'requests', 'prompt', 'at', 'afterMs'] as const) {
    const text = e[field];
    if (typeof text === 'string') checkExpression(text, `${loc}.${field}`, names, report);
  }
  if (e.statusPath !== undefined) checkAddress(e.statusPath, `${loc}.statusPath`, report);
  for (const [k, v] of Object.entries(e.payload ?? {})) {
    checkExpression(v, key(`${loc}.payload`, k), names, report);
  }
  for (const [address, v] of Object.entries(e.response?.set ?? {})) {
    const at = key(`${loc}.response.set`, address);
    const parsed = parseAddress(address);
    if (!parsed.ok) report.error(at, parsed.message);
    else checkExpression(v, at, names, report);
  }
}

function checkExecutor(e: Effect, authored: Record<string, unknown>, loc: string, report: Report): void {
  switch (e.executor) {
    case 'caller':
      // an `emit` of the wrong type is reported where the spec is read
      if ((e.emit === undefined && !given(authored.emit)) || e.emit?.trim() === '') {
        report.error(`${loc}.emit`, "a caller effect needs 'emit' (the event name the caller receives)");
      }
      break;
    case 'server':
      checkServerEffect(authored, loc, report);
      break;
    case 'llm':
      if (e.prompt === undefined) {
        report.error(`${loc}.prompt`, "an llm effect needs 'prompt' (a JSONata expression)");
      }
      break;
    case 'timer':
      if (!given(authored.at) && !given(authored.afterMs))
        report.error(loc, "a timer effect needs 'at' (epoch ms or ISO-8601) or 'afterMs'");
      checkTimerEffect(e, loc, report);
      break;
    default: {
      const guess = nearest(e.executor, EXECUTORS);
      report.error(
        `${loc}.executor`,
        `unknown executor '${e.executor}'; known: ${EXECUTORS.join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}`,
      );
    }
  }
  if (e.executor !== 'server' && authored.body !== undefined) {
    report.error(
      `${loc}.body`,
      "a top-level 'body' is only allowed on a server effect with a 'target' (write-link)",
    );
  }
}

function checkServerEffect(authored: Record<string, unknown>, loc: string, report: Report): void {
  const given = (['request', 'requests', 'target'] as const).filter(
    (k) => authored[k] !== undefined && authored[k] !== null,
  );
  if (given.length !== 1) {
    report.error(
      loc,
      given.length === 0
        ? "a server effect needs exactly one of 'request', 'requests' or 'target'"
        : `a server effect takes exactly one of 'request', 'requests' or 'target', not ${given.join(' and ')}`,
    );
  }
  if (authored.request !== undefined && authored.request !== null)
    checkRequest(authored.request, `${loc}.request`, report);
  if (authored.target !== undefined && authored.target !== null)
    checkTarget(authored.target, `${loc}.target`, report);
  if (authored.body !== undefined && !given.includes('target')) {
    report.error(
      `${loc}.body`,
      "a top-level 'body' is only allowed with a 'target' (write-link); put a request body in 'request.body'",
    );
  }
}

function checkRequest(request: unknown, loc: string, report: Report): void {
  if (!isObject(request)) {
    report.error(loc, "'request' must be an object {method, url, headers?, body?}");
    return;
  }
  if (typeof request.url !== 'string' || request.url.trim() === '')
    report.error(`${loc}.url`, "'request.url' is required");
  const method = request.method ?? 'GET';
  if (typeof method !== 'string' || !METHODS.includes(method)) {
    report.error(`${loc}.method`, `request method '${String(method)}' is not one of ${METHODS.join(', ')}`);
  }
}

function checkTarget(target: unknown, loc: string, report: Report): void {
  if (!isObject(target)) {
    report.error(loc, "'target' must be an object {ref, path | read}");
    return;
  }
  if (!isCoordinateRef(target.ref)) {
    report.error(`${loc}.ref`, `target ref '${String(target.ref)}' is not a coordinate [namespace/]name`);
  }
  const hasPath = target.path !== undefined;
  const hasRead = target.read !== undefined;
  if (hasPath === hasRead) report.error(loc, "a target needs exactly one of 'path' (write-link) or 'read'");
  for (const k of ['path', 'read'] as const) {
    const v = target[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') report.error(`${loc}.${k}`, `'target.${k}' must be an address string`);
    else checkAddress(v, `${loc}.${k}`, report);
  }
}

const given = (v: unknown): boolean => v !== undefined && v !== null;

function checkTimerEffect(e: Effect, loc: string, report: Report): void {
  // `at` is an expression: a bare ISO timestamp must be quoted as a JSONata string
  if (typeof e.at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(e.at.trim()) && report.hasErrorAt(`${loc}.at`)) {
    report.error(
      `${loc}.at`,
      `'at' is a JSONata expression; write a fixed time as a string: "'${e.at.trim()}'"`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Template and lineage

function checkTemplate(raw: Record<string, unknown>, report: Report): void {
  const template = raw.template;
  if (template !== undefined && template !== null) {
    if (!isObject(template)) report.error('template', "'template' must be an object {ref}");
    else if (!isCoordinateRef(template.ref)) {
      report.error(
        'template.ref',
        `template ref '${String(template.ref)}' is not a coordinate [namespace/]name`,
      );
    }
  }
  const lineage = raw.lineage;
  if (lineage === undefined || lineage === null) return;
  if (!Array.isArray(lineage)) {
    report.error('lineage', "'lineage' must be an array");
    return;
  }
  const seen = new Map<string, string>();
  lineage.forEach((entry: unknown, i) => {
    const loc = `lineage[${i}]`;
    if (!isObject(entry))
      report.error(loc, 'a lineage entry must be an object {ref, version, digest, repo, owner}');
    else if (!isCoordinate(entry.ref))
      report.error(`${loc}.ref`, `lineage ref '${String(entry.ref)}' is not a coordinate`);
    else checkUnique(seen, entry.ref, `${loc}.ref`, 'lineage ref', report);
  });
}

// ---------------------------------------------------------------------------------------------
// View

interface ViewContext {
  spec: ModelSpec;
  viewIds: Set<string>;
  fieldNames: Set<string>;
  report: Report;
}

function checkView(spec: ModelSpec, report: Report): void {
  let def: unknown = spec.viewDefinition;
  if (def === undefined) return;
  if (typeof def === 'string') {
    try {
      def = JSON.parse(def);
    } catch {
      report.error('viewDefinition', 'viewDefinition is a string that does not parse as JSON');
      return;
    }
  }
  if (!isObject(def)) {
    report.error('viewDefinition', 'viewDefinition must be an object {defaultView?, views: [...]}');
    return;
  }
  if (!Array.isArray(def.views)) {
    report.error('viewDefinition.views', "'views' must be an array of views");
    return;
  }
  const ctx: ViewContext = {
    spec,
    viewIds: collectViewIds(def.views, report),
    fieldNames: fieldNames(spec),
    report,
  };
  if (def.defaultView !== undefined && def.defaultView !== null) {
    checkViewRef(def.defaultView, 'viewDefinition.defaultView', 'defaultView', ctx);
  }
  def.views.forEach((view: unknown, i) => {
    if (isObject(view))
      checkComponents(view.components, `viewDefinition.views[${i}].components`, new Map(), ctx);
  });
}

function collectViewIds(views: unknown[], report: Report): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, string>();
  views.forEach((view, i) => {
    const loc = `viewDefinition.views[${i}]`;
    if (!isObject(view)) {
      report.error(loc, 'a view must be an object {id, label?, layout?, components}');
      return;
    }
    if (typeof view.id !== 'string' || view.id.trim() === '') {
      report.error(`${loc}.id`, "a view needs a non-blank 'id'");
      return;
    }
    checkUnique(seen, view.id, `${loc}.id`, 'view id', report);
    ids.add(view.id);
  });
  return ids;
}

function checkViewRef(value: unknown, location: string, field: string, ctx: ViewContext): void {
  if (typeof value === 'string' && ctx.viewIds.has(value)) return;
  const guess = typeof value === 'string' ? nearest(value, ctx.viewIds) : undefined;
  ctx.report.error(
    location,
    `${field} '${String(value)}' names no view; views: ${[...ctx.viewIds].join(', ') || '(none)'}${guess ? ` (did you mean '${guess}'?)` : ''}`,
  );
}

/** Checks a component list recursively; `seen` spans the whole view so nested ids must be unique too. */
function checkComponents(list: unknown, location: string, seen: Map<string, string>, ctx: ViewContext): void {
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) {
    ctx.report.error(location, "'components' must be an array");
    return;
  }
  list.forEach((c: unknown, j) => {
    const loc = `${location}[${j}]`;
    if (!isObject(c)) {
      ctx.report.error(loc, 'a component must be an object {id, type, …}');
      return;
    }
    if (typeof c.id !== 'string' || c.id.trim() === '')
      ctx.report.error(`${loc}.id`, "a component needs a non-blank 'id'");
    else checkUnique(seen, c.id, `${loc}.id`, 'component id in this view', ctx.report);
    checkComponentType(c.type, `${loc}.type`, ctx.report);
    if (c.itemView !== undefined && c.itemView !== null)
      checkViewRef(c.itemView, `${loc}.itemView`, 'itemView', ctx);
    lintComponent(c, loc, ctx);
    checkComponents(c.components, `${loc}.components`, seen, ctx);
  });
}

function checkComponentType(type: unknown, location: string, report: Report): void {
  if (typeof type !== 'string' || type.trim() === '') {
    report.error(location, "a component needs a 'type'");
  } else if (!isComponentType(type)) {
    const guess = nearest(type, COMPONENT_TYPES);
    report.error(location, `unknown component type '${type}'${guess ? `; did you mean '${guess}'?` : ''}`);
  }
}

/** Warnings only: binds to nothing, quoted plain text, `$`-less display text naming a field. */
function lintComponent(c: Record<string, unknown>, loc: string, ctx: ViewContext): void {
  for (const field of ['bind', 'bindFrom', 'bindTo']) {
    const bind = c[field];
    if (typeof bind === 'string') lintBind(bind, `${loc}.${field}`, ctx);
  }
  for (const field of PLAIN_TEXT_FIELDS) {
    const text = c[field];
    if (typeof text === 'string' && /^\s*(['"]).*\1\s*$/s.test(text) && text.trim().length >= 2) {
      ctx.report.warn(
        `${loc}.${field}`,
        `'${field}' is plain text and never evaluated, so the quotes will show; write ${text.trim().slice(1, -1)} without them`,
      );
    }
  }
  for (const field of DISPLAY_EXPRESSION_FIELDS) {
    const text = c[field];
    if (typeof text === 'string' && !text.includes('$') && ctx.fieldNames.has(text.trim())) {
      ctx.report.warn(
        `${loc}.${field}`,
        `'${text}' has no '$', so it is shown literally rather than evaluated; to show the field write '$.${text.trim()}'`,
      );
    }
  }
}

function lintBind(bind: string, location: string, ctx: ViewContext): void {
  const parsed = parseAddress(bind);
  if (!parsed.ok) {
    ctx.report.warn(location, `bind ${parsed.message}`);
    return;
  }
  if (schemaDeclares(ctx.spec.schema, parsed.path) || derivationCovers(ctx.spec, parsed.path)) return;
  ctx.report.warn(
    location,
    `bind '${bind}' matches no schema field and no derivation (nor an effect status or result path)`,
  );
}

/** True when every step of the path is declared by the schema (`properties` / `items`, through `$ref`). */
function schemaDeclares(root: JsonObject, path: Path): boolean {
  let node = deref(root, root);
  for (const seg of path) {
    if (typeof seg === 'number' || seg === WILDCARD) {
      if (!isObject(node.items)) return false;
      node = deref(root, node.items);
    } else {
      const props = node.properties;
      if (!isObject(props) || !Object.prototype.hasOwnProperty.call(props, seg)) return false;
      node = deref(root, props[seg]);
    }
  }
  return true;
}

/**
 * A path the engine writes besides the base fields — a derivation target, an effect `statusPath` or a
 * `response.set` key — equal to the bind or an ancestor of it (a bind into a derived array, a status `phase`).
 */
function derivationCovers(spec: ModelSpec, path: Path): boolean {
  const written = [
    ...spec.derivations.map((d) => d.path),
    ...spec.effects.flatMap((e) => [
      ...(e.statusPath ? [e.statusPath] : []),
      ...Object.keys(e.response?.set ?? {}),
    ]),
  ];
  return written.some((address) => {
    const parsed = parseAddress(address);
    if (!parsed.ok || parsed.path.length > path.length) return false;
    return parsed.path.every(
      (s, i) => s === path[i] || s === WILDCARD || path[i] === WILDCARD || typeof path[i] === 'number',
    );
  });
}

/** Every property name in the schema plus every derivation's last name: what a bare field reference would name. */
function fieldNames(spec: ModelSpec): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > 64) return;
    if (isObject(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        out.add(name);
        visit(sub, depth + 1);
      }
    }
    visit(node.items, depth + 1);
    if (isObject(node.$defs)) for (const sub of Object.values(node.$defs)) visit(sub, depth + 1);
  };
  visit(spec.schema, 0);
  for (const d of spec.derivations) {
    const parsed = parseAddress(d.path);
    const last = parsed.ok ? parsed.path[parsed.path.length - 1] : undefined;
    if (typeof last === 'string' && last !== WILDCARD) out.add(last);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Graph and tests (only for specs without errors)

async function checkGraphAndTests(spec: ModelSpec, withTests: boolean, report: Report): Promise<void> {
  let model: CompiledModel;
  try {
    model = await compileModel(spec);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e); // CalcError SPEC_INVALID
    const cyclic = e instanceof CalcError && Object.hasOwn(e.details, 'cycle');
    report.error(cyclic ? 'graph' : 'spec', message);
    return;
  }
  if (!withTests || spec.tests.length === 0) return;
  let result: TestReport;
  try {
    result = await runTests(model);
  } catch (e) {
    report.warn('tests', `the embedded tests could not run: ${publicMessage(e)}`);
    return;
  }
  result.results.forEach((r, i) => {
    if (r.passed) return;
    const first = r.failures?.[0]?.message ?? 'unknown failure';
    // a spec whose own tests fail is not valid: create_model and evolve_spec refuse it
    report.error(`tests[${i}]`, `Test '${r.description}' failed: ${first}`);
  });
}
