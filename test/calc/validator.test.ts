import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { validateSpec, type ValidationResult } from '../../src/calc/validator.js';
import { COMPONENT_CATALOG, COMPONENT_TYPES, isComponentType } from '../../src/calc/view-catalog.js';

type Spec = Record<string, unknown>;

/** A small valid spec; each case overrides or adds what it needs. */
function spec(extra: Spec = {}): Spec {
  return {
    id: 'acme/test-model',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'number' },
        b: { type: 'number' },
        items: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
      },
    },
    ...extra,
  };
}

const withSchema = (schema: Spec): Spec => spec({ schema });
const derivation = (path: string, expr: string): Spec => ({ path, expr });
const effect = (fields: Spec): Spec => spec({ effects: [{ id: 'e1', trigger: 'a > 0', ...fields }] });
const view = (components: unknown[], extra: Spec = {}): Spec =>
  spec({ viewDefinition: { defaultView: 'main', views: [{ id: 'main', components }], ...extra } });

interface Case {
  name: string;
  input: unknown;
  severity: 'error' | 'warning';
  location: string;
  fragment: string;
}

const cases: Case[] = [
  // identity
  { name: 'id blank', input: spec({ id: '  ' }), severity: 'error', location: 'id', fragment: 'non-blank' },
  {
    name: 'id missing',
    input: { schema: {} },
    severity: 'error',
    location: 'id',
    fragment: "'id' is required",
  },
  {
    name: 'id not a coordinate',
    input: spec({ id: '9lives' }),
    severity: 'error',
    location: 'id',
    fragment: 'not a coordinate',
  },
  {
    name: 'id with two slashes',
    input: spec({ id: 'a/b/c' }),
    severity: 'error',
    location: 'id',
    fragment: 'not a coordinate',
  },
  {
    name: 'id with @',
    input: spec({ id: 'acme/quote@1.0.0' }),
    severity: 'error',
    location: 'id',
    fragment: "'@'",
  },
  {
    name: 'schema missing',
    input: { id: 'm' },
    severity: 'error',
    location: 'schema',
    fragment: "'schema' is required",
  },
  {
    name: 'version not semver',
    input: spec({ version: '1.0' }),
    severity: 'warning',
    location: 'version',
    fragment: 'not semver',
  },
  {
    name: 'version with +build',
    input: spec({ version: '1.0.0+b7' }),
    severity: 'warning',
    location: 'version',
    fragment: 'not semver',
  },
  {
    name: 'version leading zero',
    input: spec({ version: '1.02.0' }),
    severity: 'warning',
    location: 'version',
    fragment: 'not semver',
  },
  {
    name: 'version not a string',
    input: spec({ version: 2 }),
    severity: 'warning',
    location: 'version',
    fragment: 'should be a string',
  },
  // schema
  {
    name: 'spec section inside schema',
    input: withSchema({ type: 'object', derivations: [] }),
    severity: 'error',
    location: 'schema.derivations',
    fragment: 'top level of the spec',
  },
  {
    name: 'bad JSON Schema keyword value',
    input: withSchema({ type: 'object', properties: { a: { type: 'numbr' } } }),
    severity: 'error',
    location: 'schema.properties.a.type',
    fragment: 'invalid JSON Schema',
  },
  {
    name: '$ref not #/$defs/Name',
    input: withSchema({ $defs: { X: {} }, properties: { a: { $ref: '#/definitions/X' } } }),
    severity: 'error',
    location: 'schema.properties.a.$ref',
    fragment: "'#/$defs/Name'",
  },
  {
    name: 'dangling $ref',
    input: withSchema({ $defs: { Money: {} }, properties: { a: { $ref: '#/$defs/Mony' } } }),
    severity: 'error',
    location: 'schema.properties.a.$ref',
    fragment: "did you mean '#/$defs/Money'",
  },
  {
    name: 'keywords beside $ref',
    input: withSchema({
      $defs: { M: { type: 'number' } },
      properties: { a: { $ref: '#/$defs/M', minimum: 0 } },
    }),
    severity: 'warning',
    location: 'schema.properties.a',
    fragment: 'keywords beside $ref (minimum)',
  },
  {
    name: 'unused $defs entry',
    input: withSchema({ $defs: { Unused: { type: 'string' } }, properties: {} }),
    severity: 'warning',
    location: 'schema.$defs.Unused',
    fragment: 'never referenced',
  },
  {
    name: 'pattern that does not compile',
    input: withSchema({ properties: { code: { type: 'string', pattern: '([a-z]' } } }),
    severity: 'error',
    location: 'schema.properties.code.pattern',
    fragment: 'does not compile',
  },
  // duplicates and required fields
  {
    name: 'duplicate derivation path',
    input: spec({ derivations: [derivation('$.b', 'a'), derivation('$.b', 'a * 2')] }),
    severity: 'error',
    location: 'derivations[1].path',
    fragment: "duplicate derivation path '$.b'",
  },
  {
    name: 'duplicate meta path#prop',
    input: spec({
      metaDerivations: [
        { path: '$.a', property: 'maximum', expr: '10' },
        { path: '$.a', property: 'maximum', expr: '20' },
      ],
    }),
    severity: 'error',
    location: 'metaDerivations[1].property',
    fragment: "duplicate meta derivation '$.a#maximum'",
  },
  {
    name: 'duplicate constraint id',
    input: spec({
      constraints: [
        { id: 'pos', expr: 'a > 0', message: 'm', policy: 'flag' },
        { id: 'pos', expr: 'b > 0', message: 'm', policy: 'flag' },
      ],
    }),
    severity: 'error',
    location: 'constraints[1].id',
    fragment: "duplicate constraint id 'pos'",
  },
  {
    name: 'duplicate effect id',
    input: spec({
      effects: [
        { id: 'e', executor: 'caller', emit: 'x' },
        { id: 'e', executor: 'caller', emit: 'y' },
      ],
    }),
    severity: 'error',
    location: 'effects[1].id',
    fragment: "duplicate effect id 'e'",
  },
  {
    name: 'duplicate default path',
    input: spec({ defaultValues: [derivation('$', '{"a": 1}'), derivation('$', '{"b": 1}')] }),
    severity: 'error',
    location: 'defaultValues[1].path',
    fragment: "duplicate default path '$'",
  },
  {
    name: 'missing required field',
    input: spec({ derivations: [{ path: '$.b' }] }),
    severity: 'error',
    location: 'derivations[0].expr',
    fragment: "'expr' is required",
  },
  {
    name: 'constraint without id',
    input: spec({ constraints: [{ expr: 'a > 0', message: 'm', policy: 'flag' }] }),
    severity: 'error',
    location: 'constraints[0].id',
    fragment: "'id' is required",
  },
  // non-canonical addresses
  {
    name: 'non-canonical derivation path',
    input: spec({ derivations: [derivation('items.0.x', '1')] }),
    severity: 'error',
    location: 'derivations[0].path',
    fragment: "write it as '$.items[0].x'",
  },
  {
    name: 'non-canonical meta path',
    input: spec({ metaDerivations: [{ path: 'a', property: 'readOnly', expr: 'true' }] }),
    severity: 'error',
    location: 'metaDerivations[0].path',
    fragment: "write it as '$.a'",
  },
  {
    name: 'non-canonical default path',
    input: spec({ defaultValues: [derivation('$.items.*', '{}')] }),
    severity: 'error',
    location: 'defaultValues[0].path',
    fragment: 'not canonical',
  },
  {
    name: 'non-canonical constraint path',
    input: spec({
      constraints: [{ id: 'c', path: '$.items.1', expr: '$ > 0', message: 'm', policy: 'flag' }],
    }),
    severity: 'error',
    location: 'constraints[0].path',
    fragment: "write it as '$.items[1]'",
  },
  {
    name: 'non-canonical constraint path in a list',
    input: spec({
      constraints: [{ id: 'c', path: ['$.a', 'b'], expr: '$ > 0', message: 'm', policy: 'flag' }],
    }),
    severity: 'error',
    location: 'constraints[0].path[1]',
    fragment: "write it as '$.b'",
  },
  {
    name: 'non-canonical statusPath',
    input: effect({ executor: 'caller', emit: 'x', statusPath: 'status' }),
    severity: 'error',
    location: 'effects[0].statusPath',
    fragment: "write it as '$.status'",
  },
  {
    name: 'non-canonical response.set key',
    input: effect({ executor: 'llm', prompt: "'hi'", response: { set: { 'a.b': '$response' } } }),
    severity: 'error',
    location: 'effects[0].response.set["a.b"]',
    fragment: "write it as '$.a.b'",
  },
  {
    name: 'non-canonical target.path',
    input: effect({ executor: 'server', target: { ref: 'acme/other', path: 'total' } }),
    severity: 'error',
    location: 'effects[0].target.path',
    fragment: "write it as '$.total'",
  },
  {
    name: 'non-canonical target.read',
    input: effect({ executor: 'server', target: { ref: 'acme/other', read: '$.rows.2' } }),
    severity: 'error',
    location: 'effects[0].target.read',
    fragment: "write it as '$.rows[2]'",
  },
  {
    name: 'derivation target with a second [*]',
    input: spec({ derivations: [derivation('$.items[*].rows[*].y', '1')] }),
    severity: 'error',
    location: 'derivations[0].path',
    fragment: 'more than one [*]',
  },
  // expressions
  {
    name: 'expr does not compile',
    input: spec({ derivations: [derivation('$.b', 'a +')] }),
    severity: 'error',
    location: 'derivations[0].expr',
    fragment: 'does not compile',
  },
  {
    name: 'constraint expr does not compile',
    input: spec({ constraints: [{ id: 'c', expr: 'a >', message: 'm', policy: 'flag' }] }),
    severity: 'error',
    location: 'constraints[0].expr',
    fragment: 'does not compile',
  },
  {
    name: 'trigger does not compile',
    input: effect({ executor: 'caller', emit: 'x', trigger: 'a = ' }),
    severity: 'error',
    location: 'effects[0].trigger',
    fragment: 'does not compile',
  },
  {
    name: 'dedupeKey does not compile',
    input: effect({ executor: 'caller', emit: 'x', dedupeKey: '(a' }),
    severity: 'error',
    location: 'effects[0].dedupeKey',
    fragment: 'does not compile',
  },
  {
    name: 'payload value does not compile',
    input: effect({ executor: 'caller', emit: 'x', payload: { msg: "'a' &" } }),
    severity: 'error',
    location: 'effects[0].payload.msg',
    fragment: 'does not compile',
  },
  {
    name: 'prompt does not compile',
    input: effect({ executor: 'llm', prompt: "'x' & (" }),
    severity: 'error',
    location: 'effects[0].prompt',
    fragment: 'does not compile',
  },
  {
    name: 'timer at does not compile',
    input: effect({ executor: 'timer', at: '$now() +' }),
    severity: 'error',
    location: 'effects[0].at',
    fragment: 'does not compile',
  },
  {
    name: 'timer afterMs does not compile',
    input: effect({ executor: 'timer', afterMs: '1000 *' }),
    severity: 'error',
    location: 'effects[0].afterMs',
    fragment: 'does not compile',
  },
  {
    name: 'timer at given as a bare ISO timestamp',
    input: effect({ executor: 'timer', at: '2026-01-01T00:00:00Z' }),
    severity: 'error',
    location: 'effects[0].at',
    fragment: `"'2026-01-01T00:00:00Z'"`,
  },
  {
    name: 'prompt on a non-llm effect still compiles',
    input: effect({ executor: 'caller', emit: 'x', prompt: '(' }),
    severity: 'error',
    location: 'effects[0].prompt',
    fragment: 'does not compile',
  },
  {
    name: 'requests does not compile',
    input: effect({ executor: 'server', requests: '[{"url": }]' }),
    severity: 'error',
    location: 'effects[0].requests',
    fragment: 'does not compile',
  },
  {
    name: 'response.set value does not compile',
    input: effect({ executor: 'timer', afterMs: 10, response: { set: { '$.b': '1 +' } } }),
    severity: 'error',
    location: 'effects[0].response.set["$.b"]',
    fragment: 'does not compile',
  },
  {
    name: '$lookup( is invisible to dependencies',
    input: spec({ derivations: [derivation('$.b', '$lookup($, "a")')] }),
    severity: 'warning',
    location: 'derivations[0].expr',
    fragment: '$lookup()',
  },
  {
    name: '$eval( is invisible to dependencies',
    input: spec({ derivations: [derivation('$.b', '$eval("a + 1")')] }),
    severity: 'warning',
    location: 'derivations[0].expr',
    fragment: '$eval()',
  },
  {
    name: 'empty constraint message',
    input: spec({ constraints: [{ id: 'c', expr: 'a > 0', message: ' ', policy: 'flag' }] }),
    severity: 'warning',
    location: 'constraints[0].message',
    fragment: 'no message',
  },
  {
    name: 'unknown meta property',
    input: spec({ metaDerivations: [{ path: '$.a', property: 'hidden', expr: 'true' }] }),
    severity: 'error',
    location: 'metaDerivations[0].property',
    fragment: 'known: required, minimum, maximum',
  },
  // effects
  {
    name: 'unknown executor',
    input: effect({ executor: 'sever', request: { url: 'https://x.example' } }),
    severity: 'error',
    location: 'effects[0].executor',
    fragment: "did you mean 'server'",
  },
  {
    name: 'caller without emit',
    input: effect({ executor: 'caller' }),
    severity: 'error',
    location: 'effects[0].emit',
    fragment: "needs 'emit'",
  },
  {
    name: 'server with none of request/requests/target',
    input: effect({ executor: 'server' }),
    severity: 'error',
    location: 'effects[0]',
    fragment: 'exactly one of',
  },
  {
    name: 'server with two of request/requests/target',
    input: effect({ request: { url: 'https://x.example' }, requests: '[]' }),
    severity: 'error',
    location: 'effects[0]',
    fragment: 'not request and requests',
  },
  {
    name: 'server request method unknown',
    input: effect({ executor: 'server', request: { method: 'FETCH', url: 'https://x.example' } }),
    severity: 'error',
    location: 'effects[0].request.method',
    fragment: 'GET, POST, PUT, PATCH, DELETE',
  },
  {
    name: 'server request without url',
    input: effect({ executor: 'server', request: { method: 'POST' } }),
    severity: 'error',
    location: 'effects[0].request.url',
    fragment: "'request.url' is required",
  },
  {
    name: 'server target ref not a coordinate',
    input: effect({ executor: 'server', target: { ref: 'not a ref', path: '$.a' } }),
    severity: 'error',
    location: 'effects[0].target.ref',
    fragment: 'not a coordinate',
  },
  {
    name: 'server target without path or read',
    input: effect({ executor: 'server', target: { ref: 'acme/other' } }),
    severity: 'error',
    location: 'effects[0].target',
    fragment: "exactly one of 'path'",
  },
  {
    name: 'top-level body without a target',
    input: effect({ executor: 'server', request: { url: 'https://x.example' }, body: { a: 1 } }),
    severity: 'error',
    location: 'effects[0].body',
    fragment: 'write-link',
  },
  {
    name: 'llm without prompt',
    input: effect({ executor: 'llm' }),
    severity: 'error',
    location: 'effects[0].prompt',
    fragment: "needs 'prompt'",
  },
  {
    name: 'timer without at or afterMs',
    input: effect({ executor: 'timer' }),
    severity: 'error',
    location: 'effects[0]',
    fragment: "'at'",
  },
  // constants and names
  {
    name: 'constant name not an identifier',
    input: spec({ constants: { 'vat-rate': 0.2 } }),
    severity: 'warning',
    location: 'constants["vat-rate"]',
    fragment: '$const."vat-rate"',
  },
  {
    name: 'unknown function with a near builtin',
    input: spec({ derivations: [derivation('$.b', '$summ(items.x)')] }),
    severity: 'error',
    location: 'derivations[0].expr',
    fragment: 'did you mean $sum()',
  },
  {
    name: 'unknown function with a near library export',
    input: spec({
      library: '( $money := function($v) { $round($v, 2) }; ["money"] )',
      derivations: [derivation('$.b', '$mony(a)')],
    }),
    severity: 'error',
    location: 'derivations[0].expr',
    fragment: 'did you mean $money()',
  },
  {
    name: 'unknown function with nothing near',
    input: spec({ constraints: [{ id: 'c', expr: '$quuxify(a)', message: 'm', policy: 'flag' }] }),
    severity: 'error',
    location: 'constraints[0].expr',
    fragment: 'unknown function $quuxify()',
  },
  {
    name: 'unknown function inside an applied lambda',
    input: spec({ derivations: [derivation('$.b', '(function($v) { $rond($v) })(a)')] }),
    severity: 'error',
    location: 'derivations[0].expr',
    fragment: 'did you mean $round()',
  },
  {
    name: 'bare $name bound to nothing',
    input: spec({ derivations: [derivation('$.b', '$a * 2')] }),
    severity: 'warning',
    location: 'derivations[0].expr',
    fragment: '$a is not bound',
  },
  // library
  {
    name: 'library without exports',
    input: spec({ library: '( $f := function($x) { $x }; 42 )' }),
    severity: 'error',
    location: 'library',
    fragment: 'exports nothing',
  },
  {
    name: 'library reading the document',
    input: spec({ library: { define: '( $f := function() { a }; ["f"] )' } }),
    severity: 'error',
    location: 'library.define',
    fragment: 'reads the document',
  },
  {
    name: 'library export shadowing a builtin',
    input: spec({ library: '( $sum := function($x) { $x }; ["sum"] )' }),
    severity: 'error',
    location: 'library',
    fragment: 'clashes',
  },
  {
    name: 'library export shadowing an inherited one',
    input: spec({
      library: {
        layers: [
          { ref: 'acme/base', version: '1.0.0', define: '( $f := function($x) { $x }; ["f"] )' },
          '( $f := function($x) { $x * 2 }; ["f"] )',
        ],
      },
    }),
    severity: 'warning',
    location: 'library.layers[1]',
    fragment: 'shadows an inherited export',
  },
  // template and lineage
  {
    name: 'template ref not a coordinate',
    input: spec({ template: { ref: 'bad ref' } }),
    severity: 'error',
    location: 'template.ref',
    fragment: 'not a coordinate',
  },
  {
    name: 'lineage entry not an object',
    input: spec({ lineage: ['acme/base'] }),
    severity: 'error',
    location: 'lineage[0]',
    fragment: 'must be an object',
  },
  {
    name: 'lineage ref not a coordinate',
    input: spec({ lineage: [{ ref: 'acme/base@2' }] }),
    severity: 'error',
    location: 'lineage[0].ref',
    fragment: 'not a coordinate',
  },
  {
    name: 'lineage ref repeated',
    input: spec({ lineage: [{ ref: 'acme/base' }, { ref: 'acme/base' }] }),
    severity: 'error',
    location: 'lineage[1].ref',
    fragment: "duplicate lineage ref 'acme/base'",
  },
  // view
  {
    name: 'view definition not an object',
    input: spec({ viewDefinition: 42 }),
    severity: 'error',
    location: 'viewDefinition',
    fragment: 'must be an object',
  },
  {
    name: 'views not an array',
    input: spec({ viewDefinition: { views: {} } }),
    severity: 'error',
    location: 'viewDefinition.views',
    fragment: 'must be an array',
  },
  {
    name: 'view without id',
    input: spec({ viewDefinition: { views: [{ components: [] }] } }),
    severity: 'error',
    location: 'viewDefinition.views[0].id',
    fragment: "non-blank 'id'",
  },
  {
    name: 'duplicate view id',
    input: spec({ viewDefinition: { views: [{ id: 'main' }, { id: 'main' }] } }),
    severity: 'error',
    location: 'viewDefinition.views[1].id',
    fragment: "duplicate view id 'main'",
  },
  {
    name: 'duplicate component id in nested components',
    input: view([
      { id: 'g', type: 'group', components: [{ id: 'f', type: 'numericField', bind: '$.a' }] },
      { id: 'f', type: 'numericField', bind: '$.b' },
    ]),
    severity: 'error',
    location: 'viewDefinition.views[0].components[1].id',
    fragment: "duplicate component id in this view 'f'",
  },
  {
    name: 'unknown component type',
    input: view([{ id: 'n', type: 'numberField', bind: '$.a' }]),
    severity: 'error',
    location: 'viewDefinition.views[0].components[0].type',
    fragment: "did you mean 'numericField'",
  },
  {
    name: 'defaultView naming no view',
    input: view([], { defaultView: 'home' }),
    severity: 'error',
    location: 'viewDefinition.defaultView',
    fragment: "defaultView 'home' names no view",
  },
  {
    name: 'itemView naming no view',
    input: view([{ id: 'list', type: 'sectionList', bind: '$.items', itemView: 'row' }]),
    severity: 'error',
    location: 'viewDefinition.views[0].components[0].itemView',
    fragment: "itemView 'row' names no view",
  },
  {
    name: 'bind matching nothing',
    input: view([{ id: 'f', type: 'numericField', bind: '$.nothing' }]),
    severity: 'warning',
    location: 'viewDefinition.views[0].components[0].bind',
    fragment: 'matches no schema field',
  },
  {
    name: 'quoted plain-text label',
    input: view([{ id: 'f', type: 'numericField', bind: '$.a', label: "'Total'" }]),
    severity: 'warning',
    location: 'viewDefinition.views[0].components[0].label',
    fragment: 'quotes will show',
  },
  {
    name: '$-less display text naming a field',
    input: view([{ id: 't', type: 'statTile', caption: 'a' }]),
    severity: 'warning',
    location: 'viewDefinition.views[0].components[0].caption',
    fragment: "write '$.a'",
  },
  // graph and tests
  {
    name: 'dependency cycle',
    input: spec({ derivations: [derivation('$.a', 'b + 1'), derivation('$.b', 'a + 1')] }),
    severity: 'error',
    location: 'graph',
    fragment: 'Cyclic dependency detected among nodes: [',
  },
  {
    name: 'failing embedded test',
    input: spec({
      derivations: [derivation('$.b', 'a * 2')],
      tests: [{ description: 'doubles', given: { '$.a': 2 }, expect: { '$.b': 5 } }],
    }),
    severity: 'error',
    location: 'tests[0]',
    fragment: "Test 'doubles' failed: $.b expected 5 but was 4",
  },
  // loader rules
  {
    name: 'non-empty actions',
    input: spec({ actions: [{ id: 'go' }] }),
    severity: 'error',
    location: 'actions',
    fragment: "executor 'caller'",
  },
  {
    name: 'initialState',
    input: spec({ initialState: { a: 1 } }),
    severity: 'error',
    location: 'initialState',
    fragment: "defaultValues rule at path '$'",
  },
];

function findingsOf(
  result: ValidationResult,
  severity: 'error' | 'warning',
): { location: string; message: string }[] {
  return severity === 'error' ? result.errors : result.warnings;
}

describe('validateSpec findings', () => {
  test.each(cases)('$name', async ({ input, severity, location, fragment }) => {
    const result = await validateSpec(input);
    const hit = findingsOf(result, severity).find(
      (f) => f.location === location && f.message.includes(fragment),
    );
    expect(hit, JSON.stringify(result, null, 2)).toBeDefined();
    // an error makes the spec invalid; a warning case is otherwise clean
    expect(result.valid).toBe(severity === 'warning');
  });
});

describe('validateSpec: clean specs and options', () => {
  test("the seed's worked example is valid with one version warning", async () => {
    const result = await validateSpec({
      id: 'demo',
      version: '1',
      schema: {},
      derivations: [{ path: '$.total', expr: 'price * qty' }],
    });
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.location).toBe('version');
  });

  test('the base spec has no findings at all', async () => {
    expect(await validateSpec(spec())).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test('unknown top-level properties and an empty actions list are accepted', async () => {
    const result = await validateSpec(
      spec({ _name: 'Demo', _description: 'x', actions: [], initialState: {} }),
    );
    expect(result).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test('names bound in the expression, reserved names and library exports resolve', async () => {
    const result = await validateSpec(
      spec({
        constants: { rate: 0.2 },
        library: '( $money := function($v) { $round($v, 2) }; ["money"] )',
        derivations: [
          derivation('$.b', '($f := function($x) { $x * $const.rate }; $money($f(a)))'),
          derivation('$.items[*].y', '$parent.x + $count($map([1, 2], function($v) { $v }))'),
        ],
      }),
    );
    expect(result).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test('runTests: false skips the embedded tests', async () => {
    const failing = spec({
      derivations: [derivation('$.b', 'a * 2')],
      tests: [{ description: 'doubles', given: { '$.a': 2 }, expect: { '$.b': 5 } }],
    });
    expect(await validateSpec(failing, { runTests: false })).toEqual({
      valid: true,
      errors: [],
      warnings: [],
    });
  });

  test('passing embedded tests add no finding', async () => {
    const passing = spec({
      derivations: [derivation('$.b', 'a * 2')],
      tests: [{ description: 'doubles', given: { '$.a': 2 }, expect: { '$.b': 4 } }],
    });
    expect(await validateSpec(passing)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  test('the cycle check is skipped when there are errors already', async () => {
    const result = await validateSpec(
      spec({ id: '', derivations: [derivation('$.a', 'b + 1'), derivation('$.b', 'a + 1')] }),
    );
    expect(result.errors.map((e) => e.location)).toEqual(['id']);
  });

  test('a non-object spec is one error', async () => {
    const result = await validateSpec('not a spec');
    expect(result.valid).toBe(false);
    expect(result.errors.some((e) => e.location === 'spec')).toBe(true);
  });
});

describe('view catalogue', () => {
  test('holds every group of the reference catalogue', () => {
    expect(COMPONENT_TYPES).toContain('numericField');
    expect(COMPONENT_TYPES).toContain('sectionList');
    expect(COMPONENT_CATALOG.statTile?.fields).toContain('caption');
    expect(new Set(Object.values(COMPONENT_CATALOG).map((c) => c.group)).size).toBe(7);
    expect(isComponentType('numberField')).toBe(false);
  });
});

/** JSON files of a folder, or none when it does not exist. */
function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

const examplesDir = fileURLToPath(new URL('../../examples/calc/', import.meta.url));
const exampleFiles = jsonFiles(examplesDir);

describe.runIf(exampleFiles.length > 0)('bundled examples (examples/calc)', () => {
  test.each(exampleFiles.length > 0 ? exampleFiles : ['(none)'])(
    '%s validates with zero errors',
    async (file) => {
      const result = await validateSpec(JSON.parse(readFileSync(`${examplesDir}${file}`, 'utf8')));
      expect(result.errors).toEqual([]);
    },
  );
});

const corpusDir = fileURLToPath(new URL('../../../shared/conformance/calc-examples/', import.meta.url));
const corpusFiles = jsonFiles(corpusDir);

describe.runIf(corpusFiles.length > 0)('conformance corpus (../shared/conformance/calc-examples)', () => {
  test('holds all 13 specs', () => {
    expect(corpusFiles).toHaveLength(13);
  });
  test.each(corpusFiles.length > 0 ? corpusFiles : ['(none)'])(
    '%s validates with zero errors',
    async (file) => {
      const result = await validateSpec(JSON.parse(readFileSync(`${corpusDir}${file}`, 'utf8')));
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
    },
  );
});
