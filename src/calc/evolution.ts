/**
 * SpecEvolution: targeted edits to a live spec (keyed upserts/removals, schema tiers, view edits,
 * constants, library, tests), applied to a copy, validated, then carried onto a new runtime.
 */
import { parseAddress, WILDCARD, type Path } from './address.js';
import { CalcError } from './errors.js';
import { cloneJson, isObject, type JsonObject, type JsonValue } from './json.js';
import { libraryLayers } from './library.js';
import { nearest } from '../errors/nearest.js';
import { isMetaProperty, metaKey, type ModelSpec } from './spec.js';

export interface SpecEvolution {
  expectedVersion?: string;
  newVersion?: string;
  upsertDerivations?: JsonObject[];
  removeDerivations?: string[];
  upsertMetaDerivations?: JsonObject[];
  removeMetaDerivations?: string[];
  upsertConstraints?: JsonObject[];
  removeConstraints?: string[];
  upsertEffects?: JsonObject[];
  removeEffects?: string[];
  upsertDefaultValues?: JsonObject[];
  removeDefaultValues?: string[];
  newSchema?: JsonObject;
  upsertSchemaDefs?: Record<string, JsonObject>;
  removeSchemaDefs?: string[];
  upsertSchemaNodes?: { path: string; schema: JsonObject; required?: boolean }[];
  removeSchemaNodes?: string[];
  newViewDefinition?: JsonValue;
  newDefaultView?: string;
  upsertViews?: JsonObject[];
  removeViews?: string[];
  upsertComponents?: { viewId: string; component: JsonObject; parentId?: string; beforeId?: string }[];
  removeComponents?: { viewId: string; componentId: string }[];
  newConstants?: JsonObject;
  upsertConstants?: JsonObject;
  removeConstants?: string[];
  newLibrary?: JsonValue;
  newTests?: JsonValue[];
  backfill?: Record<string, JsonValue>;
}

/** Every key a SpecEvolution may hold; the type check below keeps it in step with the interface. */
export const EVOLUTION_KEYS = [
  'expectedVersion',
  'newVersion',
  'upsertDerivations',
  'removeDerivations',
  'upsertMetaDerivations',
  'removeMetaDerivations',
  'upsertConstraints',
  'removeConstraints',
  'upsertEffects',
  'removeEffects',
  'upsertDefaultValues',
  'removeDefaultValues',
  'newSchema',
  'upsertSchemaDefs',
  'removeSchemaDefs',
  'upsertSchemaNodes',
  'removeSchemaNodes',
  'newViewDefinition',
  'newDefaultView',
  'upsertViews',
  'removeViews',
  'upsertComponents',
  'removeComponents',
  'newConstants',
  'upsertConstants',
  'removeConstants',
  'newLibrary',
  'newTests',
  'backfill',
] as const satisfies readonly (keyof SpecEvolution)[];
// fails to compile when SpecEvolution gains a key the list above lacks
const everyKeyListed: Exclude<keyof SpecEvolution, (typeof EVOLUTION_KEYS)[number]> extends never
  ? true
  : never = true;
void everyKeyListed;

const KNOWN_KEYS: ReadonlySet<string> = new Set(EVOLUTION_KEYS);

/**
 * The keys a mistyped one most likely meant: those containing it (`constants` → the three constant
 * edits), else the nearest by edit distance.
 */
function suggestKeys(unknown: string): string[] {
  const lower = unknown.toLowerCase();
  const containing = EVOLUTION_KEYS.filter((k) => lower.length >= 3 && k.toLowerCase().includes(lower));
  if (containing.length > 0) return containing;
  const close = nearest(unknown, EVOLUTION_KEYS);
  return close === undefined ? [] : [close];
}

/** An unknown key would otherwise be ignored: the evolution "succeeds", bumps nothing useful. */
function unknownKeyProblems(evolution: object): EvolutionProblem[] {
  const problems: EvolutionProblem[] = [];
  for (const k of Object.keys(evolution)) {
    if (KNOWN_KEYS.has(k)) continue;
    const guesses = suggestKeys(k);
    const hint =
      guesses.length === 0
        ? `the keys are ${EVOLUTION_KEYS.join(', ')}`
        : `did you mean ${guesses.length === 1 ? guesses[0] : `one of ${guesses.join(', ')}`}?`;
    problems.push({ location: k, message: `unknown evolution key; ${hint}` });
  }
  return problems;
}

export interface EvolutionProblem {
  location: string;
  message: string;
}

function invalid(problems: EvolutionProblem[]): CalcError {
  const first = problems[0];
  return new CalcError(
    'EVOLUTION_INVALID',
    problems.length === 1 && first
      ? `Invalid evolution: ${first.location}: ${first.message}`
      : `Invalid evolution: ${problems.length} problems`,
    { errors: problems },
  );
}

type Keyed = {
  section: keyof ModelSpec;
  upsert: keyof SpecEvolution;
  remove: keyof SpecEvolution;
  key: (item: JsonObject) => string;
};

const KEYED: Keyed[] = [
  {
    section: 'derivations',
    upsert: 'upsertDerivations',
    remove: 'removeDerivations',
    key: (i) => String(i.path),
  },
  {
    section: 'metaDerivations',
    upsert: 'upsertMetaDerivations',
    remove: 'removeMetaDerivations',
    key: (i) =>
      isMetaProperty(i.property)
        ? metaKey(String(i.path), i.property)
        : `${String(i.path)}#${String(i.property)}`,
  },
  {
    section: 'constraints',
    upsert: 'upsertConstraints',
    remove: 'removeConstraints',
    key: (i) => String(i.id),
  },
  { section: 'effects', upsert: 'upsertEffects', remove: 'removeEffects', key: (i) => String(i.id) },
  {
    section: 'defaultValues',
    upsert: 'upsertDefaultValues',
    remove: 'removeDefaultValues',
    key: (i) => String(i.path),
  },
];

/** Keep order, drop removed keys, replace upserts in place, append the rest in input order. */
export function mergeKeyed(
  existing: JsonObject[],
  upserts: JsonObject[],
  removals: string[],
  key: (i: JsonObject) => string,
): JsonObject[] {
  const removed = new Set(removals);
  const latest = new Map<string, JsonObject>();
  for (const u of upserts) latest.set(key(u), u);
  const out: JsonObject[] = [];
  const placed = new Set<string>();
  for (const item of existing) {
    const k = key(item);
    if (removed.has(k)) continue; // remove + upsert of one key: the replacement moves to the end
    if (latest.has(k)) {
      out.push(latest.get(k)!);
      placed.add(k);
    } else out.push(item);
  }
  for (const [k, u] of latest) if (!placed.has(k)) out.push(u);
  return out;
}

const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Applies an evolution to a spec (as JSON) and returns the evolved spec JSON. Does not validate the
 * result; the caller runs the validator.
 * @throws CalcError EVOLUTION_INVALID for malformed input, illegal tier mixes, unknown ids, and
 *   removals still in use
 */
export function applyEvolution(current: ModelSpec, evolution: SpecEvolution): JsonObject {
  const problems: EvolutionProblem[] = [];
  if (!isObject(evolution))
    throw invalid([{ location: 'evolution', message: 'a SpecEvolution must be an object' }]);
  const unknownKeys = unknownKeyProblems(evolution);
  if (unknownKeys.length > 0) throw invalid(unknownKeys);
  const spec = cloneJson(current) as unknown as JsonObject;

  for (const k of KEYED) {
    const ups = evolution[k.upsert];
    const rms = evolution[k.remove];
    if (ups === undefined && rms === undefined) continue;
    if (ups !== undefined && !(Array.isArray(ups) && ups.every(isObject))) {
      problems.push({ location: String(k.upsert), message: 'must be an array of objects' });
      continue;
    }
    if (rms !== undefined && !isStringArray(rms)) {
      problems.push({ location: String(k.remove), message: 'must be an array of keys (strings)' });
      continue;
    }
    const existing = Array.isArray(spec[k.section]) ? (spec[k.section] as JsonObject[]) : [];
    spec[k.section] = mergeKeyed(existing, (ups as JsonObject[] | undefined) ?? [], rms ?? [], k.key);
  }

  if (typeof evolution.newVersion === 'string') spec.version = evolution.newVersion;
  evolveSchema(spec, evolution, problems);
  evolveView(spec, evolution, problems);
  evolveConstants(spec, current, evolution, problems);
  evolveLibrary(spec, current, evolution, problems);
  if (evolution.newTests !== undefined) {
    if (!Array.isArray(evolution.newTests))
      problems.push({ location: 'newTests', message: 'must be an array' });
    else spec.tests = cloneJson(evolution.newTests);
  }
  if (problems.length > 0) throw invalid(problems);
  return spec;
}

// ------------------------------------------------------------------ schema tiers

function evolveSchema(spec: JsonObject, ev: SpecEvolution, problems: EvolutionProblem[]): void {
  const tiers = ev.upsertSchemaDefs ?? ev.removeSchemaDefs ?? ev.upsertSchemaNodes ?? ev.removeSchemaNodes;
  if (ev.newSchema !== undefined) {
    if (tiers !== undefined) {
      problems.push({
        location: 'newSchema',
        message: 'newSchema replaces the whole schema; do not combine it with schema def/node edits',
      });
      return;
    }
    if (!isObject(ev.newSchema))
      problems.push({ location: 'newSchema', message: 'must be a JSON Schema object' });
    else spec.schema = cloneJson(ev.newSchema);
    return;
  }
  if (tiers === undefined) return;
  const schema = isObject(spec.schema) ? spec.schema : {};
  spec.schema = schema;
  // 1. def upserts
  if (ev.upsertSchemaDefs !== undefined) {
    if (!isObject(ev.upsertSchemaDefs))
      problems.push({ location: 'upsertSchemaDefs', message: 'must be an object of name → schema' });
    else {
      const defs = isObject(schema.$defs) ? schema.$defs : {};
      for (const [name, def] of Object.entries(ev.upsertSchemaDefs)) defs[name] = cloneJson(def);
      schema.$defs = defs;
    }
  }
  // 2. node removals
  for (const [i, raw] of (ev.removeSchemaNodes ?? []).entries()) {
    const loc = `removeSchemaNodes[${i}]`;
    const nav = navigateNode(schema, raw, loc, problems);
    if (!nav) continue;
    const { parent, last } = nav;
    if (typeof last === 'string') {
      const props = isObject(parent.properties) ? parent.properties : undefined;
      if (!props || !(last in props)) {
        problems.push({ location: loc, message: `no schema node at ${raw}` });
        continue;
      }
      delete props[last];
      if (Array.isArray(parent.required)) parent.required = parent.required.filter((r) => r !== last);
    } else {
      if (parent.items === undefined) {
        problems.push({ location: loc, message: `no schema node at ${raw}` });
        continue;
      }
      delete parent.items;
    }
  }
  // 3. node upserts
  for (const [i, up] of (ev.upsertSchemaNodes ?? []).entries()) {
    const loc = `upsertSchemaNodes[${i}]`;
    if (!isObject(up) || typeof up.path !== 'string' || !isObject(up.schema)) {
      problems.push({ location: loc, message: 'each node upsert needs a path and a schema object' });
      continue;
    }
    const nav = navigateNode(schema, up.path, loc, problems, true);
    if (!nav) continue;
    const { parent, last } = nav;
    if (typeof last === 'string') {
      const props = isObject(parent.properties) ? parent.properties : (parent.properties = {});
      props[last] = cloneJson(up.schema);
      if (up.required === true) {
        const req = Array.isArray(parent.required) ? parent.required : [];
        if (!req.includes(last)) req.push(last);
        parent.required = req;
      } else if (up.required === false && Array.isArray(parent.required)) {
        parent.required = parent.required.filter((r) => r !== last);
      }
    } else {
      parent.items = cloneJson(up.schema);
    }
  }
  // 4. def removals, refused while referenced
  for (const [i, name] of (ev.removeSchemaDefs ?? []).entries()) {
    const defs = isObject(schema.$defs) ? schema.$defs : undefined;
    if (!defs || !(name in defs)) continue;
    const refs = findRefs(schema, `#/$defs/${name}`, 'schema');
    if (refs.length > 0) {
      problems.push({
        location: `removeSchemaDefs[${i}]`,
        message: `$defs/${name} is still referenced at ${refs.join(', ')}`,
      });
      continue;
    }
    delete defs[name];
  }
}

/** Finds the parent schema node of a data path, creating `properties`/`items` when asked. */
function navigateNode(
  schema: JsonObject,
  raw: string,
  loc: string,
  problems: EvolutionProblem[],
  create = false,
): { parent: JsonObject; last: string | number } | undefined {
  const parsed = parseAddress(raw);
  if (!parsed.ok) {
    problems.push({ location: loc, message: parsed.message });
    return undefined;
  }
  const path: Path = parsed.path;
  if (path.length === 0) {
    problems.push({ location: loc, message: 'a schema node path cannot be $ (use newSchema)' });
    return undefined;
  }
  let node = schema;
  for (let i = 0; i < path.length - 1; i++) {
    if (typeof node.$ref === 'string') {
      problems.push({
        location: loc,
        message: `${raw} crosses a $ref; edit the definition with upsertSchemaDefs`,
      });
      return undefined;
    }
    const seg = path[i]!;
    let next: unknown;
    if (typeof seg === 'number' || seg === WILDCARD) {
      next = node.items;
      if (!isObject(next) && create) next = node.items = {};
    } else {
      let props = node.properties;
      if (!isObject(props) && create) props = node.properties = {};
      next = isObject(props) ? props[seg] : undefined;
      if (!isObject(next) && create && isObject(props))
        next = props[seg] = { type: typeof path[i + 1] === 'string' ? 'object' : 'array' };
    }
    if (!isObject(next)) {
      problems.push({ location: loc, message: `no schema node at ${raw}` });
      return undefined;
    }
    node = next as JsonObject;
  }
  if (typeof node.$ref === 'string') {
    problems.push({
      location: loc,
      message: `${raw} crosses a $ref; edit the definition with upsertSchemaDefs`,
    });
    return undefined;
  }
  const last = path[path.length - 1]!;
  return { parent: node, last: last === WILDCARD ? 0 : last };
}

function findRefs(node: unknown, ref: string, at: string): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => findRefs(n, ref, `${at}[${i}]`));
  if (!isObject(node)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && v === ref) out.push(at);
    else out.push(...findRefs(v, ref, `${at}.${k}`));
  }
  return out;
}

// ------------------------------------------------------------------ views

function evolveView(spec: JsonObject, ev: SpecEvolution, problems: EvolutionProblem[]): void {
  const targeted =
    ev.newDefaultView ?? ev.upsertViews ?? ev.removeViews ?? ev.upsertComponents ?? ev.removeComponents;
  if (ev.newViewDefinition !== undefined) {
    if (targeted !== undefined) {
      problems.push({
        location: 'newViewDefinition',
        message: 'newViewDefinition replaces the whole view definition; do not combine it with view edits',
      });
      return;
    }
    if (ev.newViewDefinition === null) delete spec.viewDefinition;
    else spec.viewDefinition = cloneJson(ev.newViewDefinition);
    return;
  }
  if (targeted === undefined) return;
  const vd = isObject(spec.viewDefinition) ? spec.viewDefinition : { renderer: 'builtin', views: [] };
  spec.viewDefinition = vd;
  let views = (Array.isArray(vd.views) ? vd.views : []) as JsonObject[];
  const removeViews = new Set(ev.removeViews ?? []);
  views = views.filter((v) => !removeViews.has(String(v.id))); // unknown ids are ignored here
  for (const v of ev.upsertViews ?? []) {
    if (!isObject(v) || typeof v.id !== 'string') {
      problems.push({ location: 'upsertViews', message: 'each view needs a string id' });
      continue;
    }
    const at = views.findIndex((x) => x.id === v.id);
    if (at >= 0) views[at] = cloneJson(v);
    else views.push(cloneJson(v));
  }
  vd.views = views;
  const viewById = (id: string, loc: string): JsonObject | undefined => {
    const view = views.find((v) => v.id === id);
    if (!view) problems.push({ location: loc, message: `unknown view '${id}'` });
    return view;
  };
  for (const [i, rc] of (ev.removeComponents ?? []).entries()) {
    const loc = `removeComponents[${i}]`;
    const view = viewById(rc.viewId, loc);
    if (!view) continue;
    if (!detach(view, rc.componentId))
      problems.push({
        location: loc,
        message: `unknown component '${rc.componentId}' in view '${rc.viewId}'`,
      });
  }
  for (const [i, uc] of (ev.upsertComponents ?? []).entries()) {
    const loc = `upsertComponents[${i}]`;
    const view = viewById(uc.viewId, loc);
    if (!view) continue;
    if (!isObject(uc.component) || typeof uc.component.id !== 'string') {
      problems.push({ location: loc, message: 'component needs a string id' });
      continue;
    }
    upsertComponent(view, uc, loc, problems);
  }
  if (ev.newDefaultView !== undefined) {
    if (!views.some((v) => v.id === ev.newDefaultView))
      problems.push({ location: 'newDefaultView', message: `unknown view '${ev.newDefaultView}'` });
    else vd.defaultView = ev.newDefaultView;
  }
}

function childrenOf(node: JsonObject): JsonObject[] {
  if (!Array.isArray(node.components)) node.components = [];
  return node.components as JsonObject[];
}

function findComponent(
  node: JsonObject,
  id: string,
): { owner: JsonObject; index: number; component: JsonObject } | undefined {
  const list = Array.isArray(node.components) ? (node.components as JsonObject[]) : [];
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c.id === id) return { owner: node, index: i, component: c };
    const inner = findComponent(c, id);
    if (inner) return inner;
  }
  return undefined;
}

function detach(view: JsonObject, id: string): JsonObject | undefined {
  const hit = findComponent(view, id);
  if (!hit) return undefined;
  childrenOf(hit.owner).splice(hit.index, 1);
  return hit.component;
}

function upsertComponent(
  view: JsonObject,
  uc: { component: JsonObject; parentId?: string; beforeId?: string },
  loc: string,
  problems: EvolutionProblem[],
): void {
  const id = String(uc.component.id);
  const existing = findComponent(view, id);
  const component = cloneJson(uc.component);
  if (existing && uc.parentId === undefined && uc.beforeId === undefined) {
    childrenOf(existing.owner)[existing.index] = component;
    return;
  }
  if (
    uc.parentId !== undefined &&
    existing &&
    (uc.parentId === id || findComponent(existing.component, uc.parentId))
  ) {
    problems.push({ location: loc, message: `component '${id}' cannot move into its own subtree` });
    return;
  }
  const parent = uc.parentId === undefined ? view : findComponent(view, uc.parentId)?.component;
  if (!parent) {
    problems.push({ location: loc, message: `unknown parent component '${uc.parentId}'` });
    return;
  }
  if (existing) detach(view, id);
  const list = childrenOf(parent);
  if (uc.beforeId !== undefined) {
    const at = list.findIndex((c) => c.id === uc.beforeId);
    if (at < 0) {
      problems.push({ location: loc, message: `unknown component '${uc.beforeId}' to insert before` });
      return;
    }
    list.splice(at, 0, component);
  } else list.push(component);
}

// ------------------------------------------------------------------ constants and library

/** Every expression-bearing text of a spec (for "is this name still used?" checks). */
export function specTexts(spec: ModelSpec | JsonObject): string[] {
  const s = spec as JsonObject;
  const texts: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (isObject(v)) Object.values(v).forEach(collect);
  };
  for (const key of [
    'derivations',
    'metaDerivations',
    'constraints',
    'effects',
    'defaultValues',
    'viewDefinition',
  ])
    collect(s[key]);
  return texts;
}

function evolveConstants(
  spec: JsonObject,
  current: ModelSpec,
  ev: SpecEvolution,
  problems: EvolutionProblem[],
): void {
  if (ev.newConstants !== undefined) {
    if (ev.upsertConstants !== undefined || ev.removeConstants !== undefined) {
      problems.push({
        location: 'newConstants',
        message:
          'newConstants replaces all constants; do not combine it with upsertConstants/removeConstants',
      });
      return;
    }
    if (!isObject(ev.newConstants)) problems.push({ location: 'newConstants', message: 'must be an object' });
    else spec.constants = cloneJson(ev.newConstants);
    return;
  }
  if (ev.upsertConstants === undefined && ev.removeConstants === undefined) return;
  const constants = isObject(spec.constants) ? spec.constants : {};
  const texts = specTexts(current);
  for (const [i, name] of (ev.removeConstants ?? []).entries()) {
    const uses = [`$const.${name}`, `$const."${name}"`];
    if (texts.some((t) => uses.some((u) => t.includes(u)))) {
      problems.push({
        location: `removeConstants[${i}]`,
        message: `constant '${name}' is still used by the current spec; remove its users first`,
      });
      continue;
    }
    delete constants[name];
  }
  if (ev.upsertConstants !== undefined) {
    if (!isObject(ev.upsertConstants))
      problems.push({ location: 'upsertConstants', message: 'must be an object' });
    else for (const [k, v] of Object.entries(ev.upsertConstants)) constants[k] = cloneJson(v);
  }
  spec.constants = constants;
}

/**
 * The names in the export list, the array literal of strings that ends a definition block
 * (`( …; ["a", "b"] )`); none when it does not end with one. Read backwards by hand: the regex
 * this replaces backtracked exponentially on a long list that was not closed.
 */
function exportNamesOf(define: string): string[] {
  let text = define.trim();
  if (text.endsWith(')')) text = text.slice(0, -1).trimEnd();
  if (!text.endsWith(']')) return [];
  const names: string[] = [];
  let i = text.length - 2;
  const skipSpace = (): void => {
    while (i >= 0 && /\s/.test(text[i]!)) i--;
  };
  for (;;) {
    // between items (and after the last one): spaces, at most one comma, spaces
    skipSpace();
    const comma = text[i] === ',';
    if (comma) {
      i--;
      skipSpace();
    }
    if (text[i] === '[' && !comma && names.length > 0) return names.reverse();
    if (text[i] !== '"') return [];
    const open = text.lastIndexOf('"', i - 1);
    if (open < 0) return [];
    names.push(text.slice(open + 1, i));
    i = open - 1;
  }
}

function evolveLibrary(
  spec: JsonObject,
  current: ModelSpec,
  ev: SpecEvolution,
  problems: EvolutionProblem[],
): void {
  if (!('newLibrary' in ev)) return;
  const lib = ev.newLibrary;
  const oldLayers = libraryLayers(current.library);
  const inherited = oldLayers.filter((l) => l.origin !== 'local');
  const oldOwn = oldLayers.filter((l) => l.origin === 'local');
  let ownDefine: string | undefined;
  if (lib === null) ownDefine = undefined;
  else if (typeof lib === 'string') ownDefine = lib;
  else if (isObject(lib) && typeof lib.define === 'string') ownDefine = lib.define;
  else {
    problems.push({
      location: 'newLibrary',
      message: 'must be a definition string, an object with "define", or null',
    });
    return;
  }
  // names that would vanish and are still called by the evolved spec
  const before = new Set(oldOwn.flatMap((l) => exportNamesOf(l.define)));
  const after = new Set([
    ...inherited.flatMap((l) => exportNamesOf(l.define)),
    ...(ownDefine ? exportNamesOf(ownDefine) : []),
  ]);
  const texts = specTexts(spec);
  for (const name of before) {
    if (after.has(name)) continue;
    if (texts.some((t) => t.includes(`$${name}(`))) {
      problems.push({
        location: 'newLibrary',
        message: `export '${name}' is still called by the spec; keep it or change its callers in the same evolution`,
      });
    }
  }
  if (inherited.length === 0) {
    if (ownDefine === undefined) delete spec.library;
    else spec.library = isObject(lib) ? cloneJson(lib) : ownDefine;
    return;
  }
  const layers: JsonValue[] = inherited.map((l) => ({
    ...(l.ref ? { ref: l.ref } : {}),
    ...(l.version ? { version: l.version } : {}),
    define: l.define,
  }));
  const base = isObject(current.library) ? (cloneJson(current.library) as unknown as JsonObject) : {};
  delete base.define;
  base.layers = layers;
  if (ownDefine !== undefined) base.define = ownDefine;
  spec.library = base;
}
