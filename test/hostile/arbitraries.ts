/**
 * Hostile inputs for the fuzz suites: per argument name, a mix of values a real caller sends (known
 * model ids, canonical addresses, valid specs and synth models) and values an attacker sends
 * (`__proto__` keys and segments, inherited names, huge and deeply nested values, traversal paths,
 * runaway expressions, ranges, malformed base64). Valid values are there so calls get past the first
 * check and reach the deeper code; hostile ones so every check is tried.
 */
import fc from 'fast-check';

/** Ids of models the suites create before fuzzing, so calls reach real models. */
export const LIVE_IDS = ['fz', 'fz-rows'] as const;

/** A JSON value built from text, so `__proto__` is an own key (as any transport delivers it). */
const parsed = (text: string): unknown => JSON.parse(text);

const HUGE_STRING = 'x'.repeat(200_000);

/** An array nested `depth` levels deep (built, not parsed, so it is the real shape). */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

const hostileString = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '$.__proto__.zzz',
  '$.constructor.prototype.zzz',
  '/__proto__/zzz',
  '/constructor/prototype/zzz',
  '../../../../../../etc/passwd',
  '/etc/passwd',
  'file:///etc/passwd',
  '',
  ' ',
  '\u0000',
  '$',
  '$[*]',
  '$.items[999999999]',
  'null',
  '{}',
  HUGE_STRING,
  '\ud800',
  '%00',
  '$..x',
);

/** Values an attacker puts anywhere a value goes. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom<unknown>(
    parsed('{"__proto__": {"zzz": "polluted"}}'),
    parsed('{"a": [{"__proto__": {"zzz": 1}}]}'),
    { constructor: { prototype: { zzz: 'polluted' } } },
    { prototype: { zzz: 1 }, toString: 'x', valueOf: 1 },
    nested(3000),
    Array.from({ length: 100_000 }, (_, i) => i),
    -1,
    0,
    1e308,
    -1e308,
    2 ** 53 + 2,
    1.5,
    true,
    null,
    [],
    {},
  ),
  fc.jsonValue({ maxDepth: 4 }),
);

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('price', 'qty', 'total', 'rows', 'note', 'a') },
  { weight: 2, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString') },
  { weight: 2, arbitrary: fc.nat({ max: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('*', 1_000_001, 999_999_999) },
);

/** Canonical-looking addresses, some naming prototype members or absurd indices. */
export const address: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom('$.__proto__.zzz', '$.note.__proto__.zzz', '$.constructor.prototype.zzz'),
  },
  fc
    .array(segment, { minLength: 1, maxLength: 4 })
    .map(
      (segs) =>
        `$${segs.map((s) => (s === '*' ? '[*]' : typeof s === 'number' ? `[${s}]` : `.${s}`)).join('')}`,
    ),
  fc.constantFrom('$.price', '$.qty', '$.total', '$.rows[0].price', '$.rows[*].price'),
  hostileString,
);

export const pointer: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(fc.oneof(segment.map(String), fc.constant('-')), { minLength: 0, maxLength: 4 })
    .map((segs) => segs.map((s) => `/${s}`).join('')),
  hostileString,
);

const mutations: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(address, fc.oneof(fc.integer({ min: -5, max: 100 }), hostileValue), {
      minKeys: 1,
      maxKeys: 3,
    }),
  },
  fc.constantFrom<unknown>(
    parsed('{"__proto__": {"zzz": 1}}'),
    parsed('{"$.note": {"__proto__": {"zzz": 1}}}'),
    { '$.price': 3, '$.qty': 4 },
  ),
  hostileValue,
);

const patch: fc.Arbitrary<unknown> = fc.oneof(
  fc.array(
    fc.record(
      {
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', '_get', '__proto__'),
        path: pointer,
        from: pointer,
        value: fc.oneof(fc.integer(), hostileValue),
      },
      { requiredKeys: ['op', 'path'] },
    ),
    { maxLength: 4 },
  ),
  hostileValue,
);

const EXPRESSIONS = [
  'price * qty',
  '$sum(rows.price)',
  '[1..10000000]',
  '$count([1..10000000])',
  '$sum([1..1000000])',
  `${'('.repeat(5000)}1${')'.repeat(5000)}`,
  Array(50_000).fill('1').join('+'),
  '($f := function($n) { $f($n + 1) }; $f(0))',
  '$match("aaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", /(a+)+$/)',
  '$match("ab", /(a)\\1/)',
  '$.__proto__',
  '$.constructor.prototype',
  '$lookup($, "__proto__")',
  '$merge([{"__proto__": {"zzz": 1}}])',
  '{"__proto__": {"zzz": 1}}',
  '$eval("1+1")',
  '$string($)',
  '$keys($)',
  '$$',
  '$now()',
  '$random()',
  '$error("boom")',
  'a.b.c.d.e',
];

export const expression: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...EXPRESSIONS),
  fc.string({ maxLength: 30 }),
  hostileString,
);

/** The model the suites create as `fz`: a derivation, a row rule, a constraint, a view. */
export const BASE_SPEC = {
  id: 'fz',
  version: '1.0.0',
  schema: {
    type: 'object',
    properties: {
      price: { type: 'number', minimum: 0 },
      qty: { type: 'integer' },
      note: { type: 'object' },
      rows: { type: 'array', items: { type: 'object', properties: { price: { type: 'number' } } } },
    },
  },
  derivations: [
    { path: '$.total', expr: 'price * qty' },
    { path: '$.rows[*].double', expr: '$parent.price * 2' },
  ],
  constraints: [{ id: 'cap', expr: '$not(total > 1000000)', message: 'total too large', policy: 'rollback' }],
  tests: [{ description: 'total', given: { '$.price': 2, '$.qty': 3 }, expect: { '$.total': 6 } }],
};

const SPEC_SECTIONS = ['schema', 'derivations', 'constraints', 'tests', 'views', 'effects', 'library', 'id'];

/** Valid specs, each with one section replaced by something hostile, or wholly hostile values. */
export const spec: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(BASE_SPEC),
  fc
    .record({ section: fc.constantFrom(...SPEC_SECTIONS), value: hostileValue })
    .map(({ section, value }) => ({
      ...BASE_SPEC,
      [section]: value,
    })),
  fc.record({ path: address, expr: expression }).map((d) => ({ ...BASE_SPEC, derivations: [d] })),
  fc.constantFrom<unknown>(
    parsed(
      '{"id":"fzp","version":"1.0.0","schema":{"type":"object","properties":{"__proto__":{"type":"number"}}}}',
    ),
    { ...BASE_SPEC, id: 'fzc', schema: { type: 'object', properties: { constructor: { type: 'number' } } } },
    { ...BASE_SPEC, schema: { type: 'object', properties: { s: { type: 'string', pattern: '(a+)+$' } } } },
  ),
  hostileValue,
);

const SYNTH_MODELS = [
  'dataset.root = R\nR = Append(A, B)\nA = Uniform()\nB = Poisson(lambda=4)\n',
  'dataset.root = W\nW = Redimension(U, dimension=2000000000)\nU = Uniform()\n',
  'dataset.root = W\nW = Redimension(U, dimension=50000000)\nU = Uniform()\n',
  'dataset.root = F\nF = FlatFile(file="/etc/passwd")\n',
  'dataset.root = F\nF = FlatFile(file="../../../../etc/passwd")\n',
  'dataset.root = C\nC = Calculate(U, expression="y[0] = constructor(x[0])")\nU = Uniform()\n',
  'dataset.root = S\nS = ServiceCall(url="http://127.0.0.1:1/x", timeoutMs=999999999, maxRounds=999999999)\n',
  'dataset.root = M\nM = Missing(U, key=99999999999, indexes=(0))\nU = Uniform()\n',
  'dataset.root = M\nM = Missing(U, key=0, indexes=(0, -1, 4294967296), value="__proto__")\nU = Uniform()\n',
  '<dataset><root node="R"/><nodes><Uniform name="R"/></nodes></dataset>',
  '<dataset><root node="__proto__"/><nodes><Uniform name="__proto__"/></nodes></dataset>',
  '<dataset><root node="R"/><nodes><Uniform name="R" __proto__="1" constructor="2"/></nodes></dataset>',
  '<dataset><root node="R"/><nodes><Import name="R" file="../../../etc/hosts"/></nodes></dataset>',
  '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><dataset><root node="R"/><nodes><Constant name="R" value="&e;"/></nodes></dataset>',
  '{"dataset": {"root": "R", "nodes": {"__proto__": {"type": "Uniform"}}}}',
];

export const synthModel: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...SYNTH_MODELS), hostileString);

const base64 = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString('base64')),
  fc.constantFrom('UEsDBA==', 'not base64!', '===='),
  hostileString,
);

const smallInt = fc.oneof(
  fc.integer({ min: -5, max: 200 }),
  fc.constantFrom(0, -1, 1_000_000, 2_000_000_000, 2 ** 53),
);

/** The generator for one argument, chosen by its name (then by its declared type). */
export function argument(name: string, type: unknown): fc.Arbitrary<unknown> {
  const byName: Record<string, fc.Arbitrary<unknown>> = {
    id: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...LIVE_IDS) },
      { weight: 1, arbitrary: fc.constantFrom('missing', 'ns.a/b') },
      { weight: 2, arbitrary: hostileString },
    ),
    modelId: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...LIVE_IDS) },
      { weight: 1, arbitrary: hostileString },
    ),
    path: address,
    pathPrefix: address,
    paths: fc.array(address, { maxLength: 3 }),
    mutations,
    inputs: mutations,
    patch,
    spec,
    expr: expression,
    evolution: fc.oneof(
      fc.record({ version: fc.constantFrom('1.0.1', '0.0.1', 'x'), backfill: mutations }),
      fc.record({ version: fc.constant('1.1.0'), derivations: fc.constant([{ path: '$.x', expr: 'qty' }]) }),
      hostileValue,
    ),
    snapshot: fc.oneof(
      fc.record({ baseDoc: fc.oneof(fc.dictionary(fc.string(), hostileValue), hostileValue) }),
      hostileValue,
    ),
    modelText: synthModel,
    data: base64,
    count: smallInt,
    previewLimit: smallInt,
    limit: smallInt,
    offset: smallInt,
    depth: smallInt,
    samples: smallInt,
    seed: fc.oneof(smallInt, hostileString),
  };
  if (Object.prototype.hasOwnProperty.call(byName, name))
    return fc.oneof({ weight: 4, arbitrary: byName[name]! }, { weight: 1, arbitrary: hostileValue });
  switch (type) {
    case 'boolean':
      return fc.oneof(fc.boolean(), hostileValue);
    case 'integer':
    case 'number':
      return fc.oneof(smallInt, hostileValue);
    case 'array':
      return fc.oneof(
        fc.array(fc.oneof(fc.string({ maxLength: 12 }), hostileValue), { maxLength: 3 }),
        hostileValue,
      );
    default:
      return fc.oneof(fc.string({ maxLength: 20 }), hostileValue);
  }
}

/**
 * Arguments for a tool or route from its JSON Schema's properties: each declared one sometimes
 * left out, sometimes hostile; now and then an undeclared key, `__proto__` among them.
 */
export function argumentsFor(schema: {
  properties?: Record<string, { type?: unknown }>;
  required?: string[];
}): fc.Arbitrary<unknown> {
  const props = Object.entries(schema.properties ?? {});
  const model = Object.fromEntries(props.map(([k, v]) => [k, argument(k, v.type)]));
  const record = fc.oneof(
    // mostly with what the tool requires, so calls get past argument checking
    { weight: 4, arbitrary: fc.record(model, { requiredKeys: schema.required ?? [] }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
  );
  return fc.oneof(
    { weight: 8, arbitrary: record },
    {
      weight: 1,
      arbitrary: record.map((r) => {
        const withExtra = JSON.parse(JSON.stringify(r) ?? '{}') as Record<string, unknown>;
        return JSON.parse(
          JSON.stringify({ ...withExtra, __placeholder__: 1 }).replace('"__placeholder__"', '"__proto__"'),
        );
      }),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}
