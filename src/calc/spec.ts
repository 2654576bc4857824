/** ModelSpec types and the loader's normalisation (defaults filled, unknown fields dropped). */
import { isObject, type JsonObject, type JsonValue } from './json.js';

export interface Derivation {
  path: string;
  expr: string;
  evaluation: 'eager' | 'lazy';
  description?: string;
}
export interface MetaDerivation {
  path: string;
  property: MetaProperty;
  expr: string;
  description?: string;
}
export interface DefaultValueRule {
  path: string;
  expr: string;
  description?: string;
}
export interface Constraint {
  id: string;
  path?: string | string[];
  expr: string;
  message: string;
  policy: 'rollback' | 'flag';
}
export interface EffectPolicy {
  timeoutMs: number;
  retries: number;
  backoff?: string;
  egressProfile?: string;
  model?: string;
  temperature?: number;
}
export interface Effect {
  id: string;
  executor: string;
  trigger?: string;
  dedupeKey?: string;
  statusPath?: string;
  emit?: string;
  payload?: Record<string, string>;
  request?: JsonObject;
  requests?: string;
  target?: JsonObject;
  body?: JsonValue;
  prompt?: string;
  responseSchema?: JsonValue;
  at?: string | number;
  afterMs?: string | number;
  response?: { set?: Record<string, string> };
  origin?: JsonObject;
  policy: EffectPolicy;
}
export interface SpecTest {
  description?: string;
  given: Record<string, JsonValue>;
  expect: Record<string, JsonValue>;
}
export interface LibraryObject {
  description?: string;
  define?: string;
  signatures?: Record<string, string>;
  layers?: JsonValue[];
  extends?: JsonValue;
}
export interface ModelSpec {
  id: string;
  version: string;
  schema: JsonObject;
  constants: JsonObject;
  library?: string | LibraryObject;
  defaultValues: DefaultValueRule[];
  derivations: Derivation[];
  metaDerivations: MetaDerivation[];
  constraints: Constraint[];
  effects: Effect[];
  tests: SpecTest[];
  viewDefinition?: JsonValue;
  template?: JsonValue;
  lineage: JsonValue[];
}

/** Meta properties and their cache-key suffixes (`#read_only`, not `#readOnly`). */
export const META_PROPERTIES = {
  required: 'required',
  minimum: 'minimum',
  maximum: 'maximum',
  multipleOf: 'multiple_of',
  minLength: 'min_length',
  maxLength: 'max_length',
  pattern: 'pattern',
  enum: 'enum',
  readOnly: 'read_only',
  relevant: 'relevant',
} as const;
export type MetaProperty = keyof typeof META_PROPERTIES;

/** Effective-schema keyword for each meta property. */
export const META_KEYWORDS: Record<MetaProperty, string> = {
  required: 'required',
  minimum: 'minimum',
  maximum: 'maximum',
  multipleOf: 'multipleOf',
  minLength: 'minLength',
  maxLength: 'maxLength',
  pattern: 'pattern',
  enum: 'enum',
  readOnly: 'readOnly',
  relevant: 'x-valem-relevant',
};

export function isMetaProperty(p: unknown): p is MetaProperty {
  return typeof p === 'string' && Object.prototype.hasOwnProperty.call(META_PROPERTIES, p);
}

/** `$.x#read_only` style key of a meta derivation. */
export function metaKey(path: string, property: MetaProperty): string {
  return `${path}#${META_PROPERTIES[property]}`;
}

/** The sections a spec keeps at top level; finding one inside `schema` is an authoring slip. */
export const SPEC_SECTIONS = [
  'derivations',
  'metaDerivations',
  'constraints',
  'defaultValues',
  'effects',
  'tests',
  'constants',
  'viewDefinition',
] as const;

/** A problem found while reading a spec's shape (before any semantic check). */
export interface ShapeFinding {
  location: string;
  message: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function exprText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return undefined; // missing: reported as required
  return JSON.stringify(v); // a JSON literal written without quotes is still an expression
}

function list(
  raw: Record<string, unknown>,
  key: string,
  findings: ShapeFinding[],
): Record<string, unknown>[] {
  const v = raw[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    findings.push({ location: key, message: `'${key}' must be an array` });
    return [];
  }
  return v.map((item, i) => {
    if (!isObject(item)) {
      findings.push({ location: `${key}[${i}]`, message: `'${key}[${i}]' must be an object` });
      return {};
    }
    return item;
  });
}

/**
 * Reads any JSON value as a ModelSpec: fills defaults, keeps known fields, and reports shape problems
 * (missing required fields, wrong types, legacy `initialState`/`actions`) as findings rather than throwing.
 */
export function normalizeSpec(input: unknown): { spec: ModelSpec; findings: ShapeFinding[] } {
  const findings: ShapeFinding[] = [];
  const raw = isObject(input) ? input : {};
  if (!isObject(input)) findings.push({ location: 'spec', message: 'a ModelSpec must be a JSON object' });

  if (
    raw.initialState !== undefined &&
    !(isObject(raw.initialState) && Object.keys(raw.initialState).length === 0)
  ) {
    findings.push({
      location: 'initialState',
      message: "'initialState' is not supported; seed state with a defaultValues rule at path '$' instead",
    });
  }
  if (Array.isArray(raw.actions) ? raw.actions.length > 0 : raw.actions !== undefined) {
    findings.push({
      location: 'actions',
      message: "'actions' is not supported; declare an effect with executor 'caller' instead",
    });
  }

  const schema = isObject(raw.schema) ? (raw.schema as JsonObject) : {};
  if (raw.schema === undefined) findings.push({ location: 'schema', message: "'schema' is required" });
  else if (!isObject(raw.schema))
    findings.push({ location: 'schema', message: "'schema' must be a JSON object" });

  const version = str(raw.version);
  const spec: ModelSpec = {
    id: str(raw.id) ?? '',
    version: version === undefined || version.trim() === '' ? '1.0.0' : version,
    schema,
    constants: isObject(raw.constants) ? (raw.constants as JsonObject) : {},
    defaultValues: [],
    derivations: [],
    metaDerivations: [],
    constraints: [],
    effects: [],
    tests: [],
    lineage: Array.isArray(raw.lineage) ? (raw.lineage as JsonValue[]) : [],
  };
  if (raw.id === undefined) findings.push({ location: 'id', message: "'id' is required" });
  if (raw.constants !== undefined && !isObject(raw.constants)) {
    findings.push({ location: 'constants', message: "'constants' must be an object" });
  }
  if (raw.library !== undefined && raw.library !== null) {
    if (typeof raw.library === 'string') spec.library = raw.library;
    else if (isObject(raw.library)) spec.library = raw.library;
    else findings.push({ location: 'library', message: "'library' must be a string or an object" });
  }
  if (raw.viewDefinition !== undefined && raw.viewDefinition !== null) {
    spec.viewDefinition = raw.viewDefinition as JsonValue;
  }
  if (raw.template !== undefined && raw.template !== null) spec.template = raw.template as JsonValue;

  const need = (loc: string, v: unknown, field: string): string => {
    if (typeof v !== 'string') {
      findings.push({ location: `${loc}.${field}`, message: `'${field}' is required and must be a string` });
      return '';
    }
    return v;
  };

  list(raw, 'defaultValues', findings).forEach((d, i) => {
    const loc = `defaultValues[${i}]`;
    spec.defaultValues.push({
      path: need(loc, d.path, 'path'),
      expr: exprText(d.expr) ?? need(loc, d.expr, 'expr'),
      ...(str(d.description) !== undefined ? { description: str(d.description) } : {}),
    });
  });
  list(raw, 'derivations', findings).forEach((d, i) => {
    const loc = `derivations[${i}]`;
    const evaluation = d.evaluation === undefined || d.evaluation === null ? 'eager' : d.evaluation;
    if (evaluation !== 'eager' && evaluation !== 'lazy') {
      findings.push({ location: `${loc}.evaluation`, message: "'evaluation' must be 'eager' or 'lazy'" });
    }
    spec.derivations.push({
      path: need(loc, d.path, 'path'),
      expr: exprText(d.expr) ?? need(loc, d.expr, 'expr'),
      evaluation: evaluation === 'lazy' ? 'lazy' : 'eager',
      ...(str(d.description) !== undefined ? { description: str(d.description) } : {}),
    });
  });
  list(raw, 'metaDerivations', findings).forEach((d, i) => {
    const loc = `metaDerivations[${i}]`;
    if (!isMetaProperty(d.property)) {
      findings.push({
        location: `${loc}.property`,
        message: `unknown meta property '${String(d.property)}'; known: ${Object.keys(META_PROPERTIES).join(', ')}`,
      });
    }
    spec.metaDerivations.push({
      path: need(loc, d.path, 'path'),
      property: (isMetaProperty(d.property) ? d.property : String(d.property)) as MetaProperty,
      expr: exprText(d.expr) ?? need(loc, d.expr, 'expr'),
      ...(str(d.description) !== undefined ? { description: str(d.description) } : {}),
    });
  });
  list(raw, 'constraints', findings).forEach((c, i) => {
    const loc = `constraints[${i}]`;
    const policy = typeof c.policy === 'string' ? c.policy.toLowerCase() : c.policy;
    if (policy !== 'rollback' && policy !== 'flag') {
      findings.push({ location: `${loc}.policy`, message: "'policy' must be 'rollback' or 'flag'" });
    }
    let path: string | string[] | undefined;
    if (typeof c.path === 'string') path = c.path;
    else if (Array.isArray(c.path) && c.path.every((p) => typeof p === 'string')) path = c.path;
    else if (c.path !== undefined && c.path !== null) {
      findings.push({ location: `${loc}.path`, message: "'path' must be a string or an array of strings" });
    }
    spec.constraints.push({
      id: need(loc, c.id, 'id'),
      ...(path !== undefined ? { path } : {}),
      expr: exprText(c.expr) ?? need(loc, c.expr, 'expr'),
      message: typeof c.message === 'string' ? c.message : '',
      policy: policy === 'flag' ? 'flag' : 'rollback',
    });
  });
  list(raw, 'effects', findings).forEach((e, i) => {
    spec.effects.push(normalizeEffect(e, `effects[${i}]`, findings));
  });
  list(raw, 'tests', findings).forEach((t, i) => {
    const loc = `tests[${i}]`;
    if (t.given !== undefined && !isObject(t.given))
      findings.push({ location: `${loc}.given`, message: "'given' must be an object" });
    if (t.expect !== undefined && !isObject(t.expect))
      findings.push({ location: `${loc}.expect`, message: "'expect' must be an object" });
    spec.tests.push({
      ...(str(t.description) !== undefined ? { description: str(t.description) } : {}),
      given: isObject(t.given) ? (t.given as Record<string, JsonValue>) : {},
      expect: isObject(t.expect) ? (t.expect as Record<string, JsonValue>) : {},
    });
  });
  return { spec, findings };
}

/** What an effect field must be, for the finding when it is something else. */
const EFFECT_STRINGS = { statusPath: 'an address', emit: 'the event name, a string' } as const;
const EFFECT_EXPRESSIONS = ['trigger', 'dedupeKey', 'requests', 'prompt'] as const;

function normalizeEffect(e: Record<string, unknown>, loc: string, findings: ShapeFinding[]): Effect {
  const wrong = (field: string, what: string): void => {
    findings.push({ location: `${loc}.${field}`, message: `'${field}' must be ${what}` });
  };
  const given = (k: string): boolean => e[k] !== undefined && e[k] !== null;
  const policy = normalizePolicy(e.policy, `${loc}.policy`, findings);
  if (typeof e.id !== 'string')
    findings.push({ location: `${loc}.id`, message: "'id' is required and must be a string" });
  const effect: Effect = {
    id: typeof e.id === 'string' ? e.id : '',
    executor: typeof e.executor === 'string' ? e.executor : 'server',
    policy,
  };
  for (const [k, what] of Object.entries(EFFECT_STRINGS) as [keyof typeof EFFECT_STRINGS, string][]) {
    const v = str(e[k]);
    if (v !== undefined) effect[k] = v;
    else if (given(k)) wrong(k, what);
  }
  for (const k of EFFECT_EXPRESSIONS) {
    const v = exprText(e[k]);
    if (v !== undefined) effect[k] = v;
  }
  if (isObject(e.payload)) {
    const payload: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.payload)) payload[k] = exprText(v) ?? 'null';
    effect.payload = payload;
  } else if (given('payload')) {
    // a string here is not a payload expression: it would be dispatched as {}
    wrong('payload', 'an object of name → JSONata expression, e.g. {"total": "total"}');
  }
  if (isObject(e.request)) {
    effect.request = { method: 'GET', ...(e.request as JsonObject) };
  }
  if (isObject(e.target)) effect.target = e.target as JsonObject;
  if (e.body !== undefined) effect.body = e.body as JsonValue;
  if (e.responseSchema !== undefined) effect.responseSchema = e.responseSchema as JsonValue;
  for (const k of ['at', 'afterMs'] as const) {
    const v = e[k];
    if (typeof v === 'string' || typeof v === 'number') effect[k] = v;
    else if (given(k)) wrong(k, 'a JSONata expression (a string) or a number');
  }
  if (isObject(e.response)) {
    const set = e.response.set;
    if (isObject(set))
      effect.response = {
        set: Object.fromEntries(Object.entries(set).map(([k, v]) => [k, exprText(v) ?? 'null'])),
      };
    else {
      effect.response = {};
      if (set !== undefined && set !== null)
        wrong('response.set', 'an object of address → JSONata expression');
    }
  } else if (given('response')) {
    wrong('response', 'an object {set: {address: expression}}');
  }
  if (isObject(e.origin)) effect.origin = e.origin as JsonObject;
  else if (given('origin')) wrong('origin', 'an object');
  return effect;
}

/** An effect's policy: defaults for what is missing, a finding for what has the wrong type. */
function normalizePolicy(raw: unknown, loc: string, findings: ShapeFinding[]): EffectPolicy {
  const policy: EffectPolicy = { timeoutMs: 5000, retries: 0 };
  if (raw === undefined || raw === null) return policy;
  if (!isObject(raw)) {
    findings.push({ location: loc, message: "'policy' must be an object {timeoutMs?, retries?, ...}" });
    return policy;
  }
  const wrong = (field: string, what: string): void => {
    findings.push({ location: `${loc}.${field}`, message: `'policy.${field}' must be ${what}` });
  };
  const count = (field: 'timeoutMs' | 'retries', what: string): void => {
    const v = raw[field];
    if (v === undefined || v === null) return;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) policy[field] = v;
    else wrong(field, what);
  };
  count('timeoutMs', 'a whole number of milliseconds, 0 or more');
  count('retries', 'a whole number, 0 or more');
  for (const k of ['backoff', 'egressProfile', 'model'] as const) {
    const v = raw[k];
    if (typeof v === 'string') policy[k] = v;
    else if (v !== undefined && v !== null) wrong(k, 'a string');
  }
  if (typeof raw.temperature === 'number') policy.temperature = raw.temperature;
  else if (raw.temperature !== undefined && raw.temperature !== null) wrong('temperature', 'a number');
  return policy;
}
