/**
 * The ModelSpec validator (`validate_spec`): every finding carries a location such as
 * `derivations[3].expr`; errors make a spec invalid, warnings do not. Shape problems come from the
 * loader (`normalizeSpec`); this module adds the semantic checks, then — only for an error-free
 * spec — the dependency-cycle check and the embedded tests.
 */
import { parseCoordinate } from './coordinates.js';
import { parseAddress, WILDCARD } from './address.js';
import { findUnsafeValue, unsafeValueLocation, unsafeValueReason } from './safe-keys.js';
import { CalcError, publicMessage } from './errors.js';
import {
  compileExpression,
  CompiledExpressions,
  JSONATA_BUILTINS,
  RESERVED_BINDINGS,
  shapeMemberOf,
  type CompiledExpression,
} from './expression.js';
import { unsupportedRegexIn } from './safe-regex.js';
import type { SharedShape } from './expression-shape.js';
import { isObject, type JsonObject } from './json.js';
import { compileLibrary } from './library.js';
import { compileModel, type CompiledModel } from './program.js';
import { checkSchema } from './validator-schema.js';
import {
  checkAddress,
  checkUnique,
  key,
  nearest,
  Report,
  type ValidationFinding,
} from './validator-report.js';
import { checkView } from './validator-view.js';
import { metaKey, normalizeSpec, type Effect, type ModelSpec } from './spec.js';
import { runTests, type TestReport } from './test-runner.js';

export type { ValidationFinding } from './validator-report.js';

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

/**
 * Validates a ModelSpec: shape, identity, schema, addresses, expressions, library, effects, view,
 * then (if error-free) the dependency graph and, unless `runTests` is false, the embedded tests.
 * A failing test is an error; tests that cannot run at all are a warning.
 */
export async function validateSpec(input: unknown, options: ValidateOptions = {}): Promise<ValidationResult> {
  return (await validateAndCompile(input, options)).result;
}

/**
 * `validateSpec`, handing back the model its graph check compiled when the spec is valid, so
 * creating a model compiles it once (compiling 30,000 derivations twice cost a second).
 */
export async function validateAndCompile(
  input: unknown,
  options: ValidateOptions = {},
): Promise<{ result: ValidationResult; model?: CompiledModel }> {
  const report = new Report();
  // nothing below may walk a spec holding `__proto__` keys or nesting without bound
  const unsafe = findUnsafeValue(input);
  if (unsafe) {
    report.error(unsafeValueLocation(unsafe) || '(spec)', unsafeValueReason(unsafe));
    return { result: { valid: false, errors: report.errors, warnings: report.warnings } };
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

  const model =
    report.errors.length === 0
      ? await checkGraphAndTests(spec, options.runTests ?? true, report, names.compiled)
      : undefined;
  const result = { valid: report.errors.length === 0, errors: report.errors, warnings: report.warnings };
  return result.valid && model ? { result, model } : { result };
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

/** A coordinate, optionally with a version spec (`acme/quote@^1.2.0`; coordinates.ts). */
function isCoordinateRef(value: unknown): boolean {
  return parseCoordinate(value) !== undefined;
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

/** Names an expression may call or read as `$name`, and where checked expressions are kept. */
interface NameContext {
  /** Library exports; undefined when the library failed (its errors are reported instead). */
  exports: Set<string> | undefined;
  /** Every expression that compiled, for the graph check's compile to take (not compile again). */
  compiled: CompiledExpressions;
  /** What checking found in each expression shape's first member (see `checkExpression`). */
  byShape: Map<SharedShape, ShapeFindings>;
}

/** The findings of one expression, without their location. */
export interface ShapeFindings {
  lint: { error: boolean; message: string }[];
  regexProblem: string | undefined;
}

async function checkLibrary(spec: ModelSpec, report: Report): Promise<NameContext> {
  const compiled = new CompiledExpressions();
  const byShape = new Map<SharedShape, ShapeFindings>();
  if (spec.library === undefined) return { exports: new Set(), compiled, byShape };
  const { library, findings } = await compileLibrary(spec.library, spec.constants);
  for (const f of findings) {
    if (f.severity === 'error') report.error(f.location, f.message);
    else report.warn(f.location, f.message);
  }
  return {
    exports: library ? new Set(library.exports.map((e) => e.name)) : undefined,
    compiled,
    byShape,
  };
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
  names.compiled.add(compiled.expr);
  const { lint, regexProblem } = findingsOf(compiled.expr, names);
  for (const f of lint) {
    if (f.error) report.error(location, f.message);
    else report.warn(location, f.message);
  }
  if (regexProblem) {
    report.error(location, regexProblem);
    return false;
  }
  return true;
}

/**
 * What the name lint and the regex check find in an expression. Members of one expression shape
 * (expression-shape.ts) differ in their field names only, and neither check reads a field name
 * (they read `$` variables, calls, bindings and regex literals, all part of the shape), so the
 * shape's first tree is checked once for all of them; `test/calc/shape-analyses.test.ts` holds
 * this to checking each expression on its own.
 */
function findingsOf(expr: CompiledExpression, names: NameContext): ShapeFindings {
  return expressionFindings(expr, names.exports, names.byShape);
}

/**
 * The name lint's and the regex check's findings for one compiled expression (exported for the
 * differential test): with `byShape`, once per shape; without, on the expression's own tree.
 */
export function expressionFindings(
  expr: CompiledExpression,
  exports: Set<string> | undefined,
  byShape?: Map<SharedShape, ShapeFindings>,
): ShapeFindings {
  const member = byShape && shapeMemberOf(expr);
  const known = member && byShape.get(member.shape);
  if (known) return known;
  const ast = member ? member.shape.firstTree : expr.ast;
  const lint: ShapeFindings['lint'] = [];
  lintNames(ast as AstNode, exports, {
    error: (message) => lint.push({ error: true, message }),
    warn: (message) => lint.push({ error: false, message }),
  });
  const found = { lint, regexProblem: unsupportedRegexIn(ast) };
  if (member) byShape.set(member.shape, found);
  return found;
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
    // own keys without Object.entries' pair arrays: on 30,000 expressions these walks allocated
    // hundreds of megabytes the collector then spent a third of the create on
    for (const k in node) {
      if (Object.hasOwn(node, k) && k !== 'position' && k !== 'value') boundNames(node[k], out);
    }
  }
  return out;
}

/** Walks the AST: unknown `$f(` calls are errors, unresolved `$x` reads and `$lookup`/`$eval` calls warnings. */
function lintNames(
  ast: AstNode,
  exports: Set<string> | undefined,
  report: { error: (message: string) => void; warn: (message: string) => void },
): void {
  const bound = boundNames(ast, new Set());
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
          `$${name}() reads fields the dependency extractor cannot see, so the result may not refresh when they change`,
        );
      }
    } else if (!known(name) && exports !== undefined && once(`call:${name}`)) {
      report.error(unknownFunctionMessage(name, exports));
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
    for (const k in node) {
      if (Object.hasOwn(node, k) && k !== 'position' && k !== 'value' && k !== 'type') visit(node[k]);
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
    report.error(
      `${loc}.ref`,
      `target ref '${String(target.ref)}' is not a coordinate [namespace/]name[@version], the version an exact semver, a range (^ ~ >= > <= < = and a semver) or sha256:<64 hex>`,
    );
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
        `template ref '${String(template.ref)}' is not a coordinate [namespace/]name[@version], the version an exact semver, a range (^ ~ >= > <= < = and a semver) or sha256:<64 hex>`,
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
// Graph and tests (only for specs without errors)

/** The compiled model (when it compiles), its graph checked and its tests run. */
async function checkGraphAndTests(
  spec: ModelSpec,
  withTests: boolean,
  report: Report,
  compiled: CompiledExpressions,
): Promise<CompiledModel | undefined> {
  let model: CompiledModel;
  try {
    model = await compileModel(spec, { compiled });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e); // CalcError SPEC_INVALID
    const cyclic = e instanceof CalcError && Object.hasOwn(e.details, 'cycle');
    report.error(cyclic ? 'graph' : 'spec', message);
    return undefined;
  }
  if (!withTests || spec.tests.length === 0) return model;
  let result: TestReport;
  try {
    result = await runTests(model);
  } catch (e) {
    report.warn('tests', `the embedded tests could not run: ${publicMessage(e)}`);
    return model;
  }
  result.results.forEach((r, i) => {
    if (r.passed) return;
    const first = r.failures?.[0]?.message ?? 'unknown failure';
    // a spec whose own tests fail is not valid: create_model and evolve_spec refuse it
    report.error(`tests[${i}]`, `Test '${r.description}' failed: ${first}`);
  });
  return model;
}
