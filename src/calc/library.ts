/**
 * Spec libraries: JSONata definitions that bind names and end with an array of export names.
 * Layers compile in order (inherited first, own last; a later export wins a clash).
 */
import {
  compileExpression,
  guardLibraryFrames,
  JSONATA_BUILTINS,
  RESERVED_BINDINGS,
  type JsonataNode,
} from './expression.js';
import { publicMessage } from './errors.js';
import { cloneJson, isObject, type JsonValue } from './json.js';
import type { LibraryObject } from './spec.js';
import { unsupportedRegexIn } from './safe-regex.js';

export const MAX_LIBRARY_CHARS = 20_000;
export const MAX_LIBRARY_LAYERS = 8;
export const MANY_EXPORTS = 64;

export interface LibraryLayer {
  origin: string;
  ref?: string;
  version?: string;
  digest?: string;
  define: string;
}

export interface LibraryExport {
  name: string;
  kind: 'function' | 'constant';
  signature?: string;
  arity?: number;
  value?: JsonValue;
  origin: string;
}

export interface CompiledLibrary {
  description?: string;
  layers: LibraryLayer[];
  exports: LibraryExport[];
  /** Bound into every evaluation: export name → function or value. */
  bindings: Record<string, unknown>;
}

export interface LibraryFinding {
  location: string;
  message: string;
  severity: 'error' | 'warning';
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The layers of a library value, in compile order. */
export function libraryLayers(library: string | LibraryObject | undefined): LibraryLayer[] {
  if (library === undefined) return [];
  if (typeof library === 'string') return [{ origin: 'local', define: library }];
  const layers: LibraryLayer[] = [];
  for (const raw of library.layers ?? []) {
    if (typeof raw === 'string') layers.push({ origin: 'local', define: raw });
    else if (isObject(raw) && typeof raw.define === 'string') {
      const layer: LibraryLayer = { origin: 'local', define: raw.define };
      if (typeof raw.ref === 'string') {
        layer.ref = raw.ref;
        layer.origin = typeof raw.version === 'string' ? `${raw.ref}@${raw.version}` : raw.ref;
      }
      if (typeof raw.version === 'string') layer.version = raw.version;
      if (typeof raw.digest === 'string') layer.digest = raw.digest;
      if (typeof raw.origin === 'string') layer.origin = raw.origin;
      layers.push(layer);
    }
  }
  if (typeof library.define === 'string') layers.push({ origin: 'local', define: library.define });
  return layers;
}

/** Finds document reads and forbidden calls in a library definition's AST. */
function lintDefinition(ast: JsonataNode): string[] {
  const problems = new Set<string>();
  const visit = (node: unknown, documentContext: boolean): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n, documentContext);
      return;
    }
    if (!isObject(node)) return;
    const type = node.type;
    if (type === 'path' && Array.isArray(node.steps)) {
      const steps = node.steps as Record<string, unknown>[];
      const head = steps[0];
      if (documentContext && head) {
        if (head.type === 'name' || head.type === 'wildcard' || head.type === 'descendant') {
          problems.add(`reads the document ('${String(head.value)}')`);
        }
        if (head.type === 'variable' && (head.value === '' || head.value === '$')) {
          problems.add(`reads the document ('$${String(head.value)}')`);
        }
      }
      // Steps after the head navigate whatever the head produced, not the document.
      steps.forEach((s, i) => visitChildren(s, documentContext && i === 0));
      return;
    }
    if (type === 'variable' && documentContext && (node.value === '' || node.value === '$')) {
      problems.add(`reads the document ('$${String(node.value)}')`);
    }
    if (type === 'bind') {
      // `$name := …` binds a name; only the value side can use a forbidden function
      visit(node.rhs, documentContext);
      return;
    }
    if (type === 'variable' && (node.value === 'now' || node.value === 'millis' || node.value === 'random')) {
      problems.add(
        `uses $${String(node.value)}(), which is not allowed in a library (results must not depend on time or chance)`,
      );
    }
    if ((type === 'wildcard' || type === 'descendant') && documentContext)
      problems.add('reads the document (*)');
    if (type === 'name' && documentContext) problems.add(`reads the document ('${String(node.value)}')`);
    visitChildren(node, documentContext);
  };
  const visitChildren = (node: Record<string, unknown>, documentContext: boolean): void => {
    for (const [key, child] of Object.entries(node)) {
      if (key === 'position' || key === 'value' || key === 'type') continue;
      if (key === 'stages' || key === 'predicate') visit(child, false);
      else visit(child, documentContext);
    }
  };
  visit(ast, true);
  return [...problems];
}

/** Wraps a `( …; [names] )` block so it returns the bound values instead of the names. */
function exportsExpression(define: string, names: string[]): string | undefined {
  const text = define.trim();
  if (!text.startsWith('(') || !text.endsWith(')')) return undefined;
  const inner = text.slice(1, -1);
  const obj = names.map((n) => `${JSON.stringify(n)}: $${n}`).join(', ');
  return `(${inner}\n; {${obj}})`;
}

function isLambda(v: unknown): v is { arguments?: unknown[]; signature?: { definition?: string } } {
  return (
    isObject(v) &&
    (v._jsonata_lambda === true || typeof (v as { implementation?: unknown }).implementation === 'function')
  );
}

/**
 * Compiles a library: checks the rules, evaluates each layer with `$const` (and earlier layers'
 * exports) bound, and returns the export bindings. Findings carry ERROR/WARNING severity; a library
 * with errors has no usable bindings.
 */
export async function compileLibrary(
  library: string | LibraryObject | undefined,
  constants: Record<string, unknown>,
  baseLocation = 'library',
): Promise<{ library?: CompiledLibrary; findings: LibraryFinding[] }> {
  const findings: LibraryFinding[] = [];
  if (library === undefined) return { findings };
  const layers = libraryLayers(library);
  const err = (location: string, message: string): void => {
    findings.push({ location, message, severity: 'error' });
  };
  if (layers.length === 0) {
    err(baseLocation, 'library has no definition (give a string, "define", or "layers")');
    return { findings };
  }
  if (layers.length > MAX_LIBRARY_LAYERS)
    err(baseLocation, `library has ${layers.length} layers; at most ${MAX_LIBRARY_LAYERS} are allowed`);

  const bindings: Record<string, unknown> = {};
  const exports = new Map<string, LibraryExport>();
  const signatures = typeof library === 'object' && isObject(library.signatures) ? library.signatures : {};

  for (let li = 0; li < layers.length; li++) {
    const layer = layers[li]!;
    const own = li === layers.length - 1;
    const ownDefine = typeof library !== 'string' && typeof library.define === 'string' && own;
    const loc =
      typeof library === 'string'
        ? baseLocation
        : ownDefine
          ? `${baseLocation}.define`
          : `${baseLocation}.layers[${li}]`;
    if (layer.define.length > MAX_LIBRARY_CHARS) {
      err(
        loc,
        `library definition is ${layer.define.length} characters; at most ${MAX_LIBRARY_CHARS} are allowed`,
      );
      continue;
    }
    const compiled = compileExpression(layer.define);
    if (!compiled.ok) {
      err(loc, `library does not compile: ${compiled.message}`);
      continue;
    }
    for (const p of lintDefinition(compiled.expr.ast)) err(loc, `library ${p}`);
    const regexProblem = unsupportedRegexIn(compiled.expr.ast);
    if (regexProblem) err(loc, `library ${regexProblem}`);
    if (findings.some((f) => f.severity === 'error')) continue;

    let names: unknown;
    try {
      names = await compiled.expr.evaluate({}, { ...bindings, const: constants });
    } catch (e) {
      err(loc, `library failed to evaluate: ${describe(e)}`);
      continue;
    }
    if (typeof names === 'string') names = [names];
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
      err(
        loc,
        'library exports nothing: its last expression must be an array of export names, e.g. ["money"]',
      );
      continue;
    }
    const list = names;
    let ok = true;
    for (const name of list) {
      if (!IDENT.test(name)) {
        err(loc, `library export '${name}' is not a simple identifier`);
        ok = false;
      } else if (JSONATA_BUILTINS.has(name) || RESERVED_BINDINGS.has(name)) {
        err(loc, `library export '${name}' clashes with a built-in or reserved name`);
        ok = false;
      }
    }
    if (!ok) continue;
    const wrapped = exportsExpression(layer.define, list);
    const valuesExpr = wrapped === undefined ? undefined : compileExpression(wrapped);
    if (!valuesExpr || !valuesExpr.ok) {
      err(
        loc,
        'library must be a parenthesised block ending with its array of export names: ( $f := …; ["f"] )',
      );
      continue;
    }
    let values: unknown;
    try {
      values = await valuesExpr.expr.evaluate({}, { ...bindings, const: constants });
    } catch (e) {
      err(loc, `library failed to evaluate: ${describe(e)}`);
      continue;
    }
    if (isObject(values)) guardLibraryFrames(Object.values(values));
    for (const name of list) {
      const value = isObject(values) ? values[name] : undefined;
      if (value === undefined) {
        err(loc, `library export '${name}' is not bound in the definition`);
        continue;
      }
      if (own && exports.has(name) && exports.get(name)!.origin !== layer.origin) {
        findings.push({
          location: loc,
          message: `library export '${name}' shadows an inherited export`,
          severity: 'warning',
        });
      }
      bindings[name] = value;
      const entry: LibraryExport = isLambda(value)
        ? {
            name,
            kind: 'function',
            arity: Array.isArray(value.arguments) ? value.arguments.length : 0,
            origin: layer.origin,
          }
        : { name, kind: 'constant', value: cloneJson(value) as JsonValue, origin: layer.origin };
      if (typeof signatures[name] === 'string') entry.signature = signatures[name];
      exports.delete(name);
      exports.set(name, entry);
    }
  }
  if (exports.size > MANY_EXPORTS) {
    findings.push({
      location: baseLocation,
      message: `library has ${exports.size} exports; more than ${MANY_EXPORTS} is hard to use`,
      severity: 'warning',
    });
  }
  if (findings.some((f) => f.severity === 'error')) return { findings };
  const result: CompiledLibrary = { layers, exports: [...exports.values()], bindings };
  if (typeof library === 'object' && typeof library.description === 'string')
    result.description = library.description;
  return { library: result, findings };
}

function describe(e: unknown): string {
  return publicMessage(e);
}
