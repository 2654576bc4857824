/**
 * JSON Schemas of the ModelSpec and SpecEvolution formats: one source for MCP tool input schemas,
 * the `valem://schema/*` resources, and docs. They describe the shape for an author (or a model
 * generating a spec); the validator is what decides validity, with located findings.
 */
import type { JsonObject } from './json.js';

const address = {
  type: 'string',
  description: 'Canonical address: $-rooted JSON Path, e.g. "$.items[*].lineTotal"',
};
const expression = {
  type: 'string',
  description: 'JSONata expression (plain JSONata, no "$." prefix on field names)',
};

const derivation = {
  type: 'object',
  required: ['path', 'expr'],
  properties: {
    path: address,
    expr: expression,
    evaluation: { enum: ['eager', 'lazy'], default: 'eager' },
    description: { type: 'string' },
  },
};
const metaDerivation = {
  type: 'object',
  required: ['path', 'property', 'expr'],
  properties: {
    path: address,
    property: {
      enum: [
        'required',
        'minimum',
        'maximum',
        'multipleOf',
        'minLength',
        'maxLength',
        'pattern',
        'enum',
        'readOnly',
        'relevant',
      ],
    },
    expr: expression,
    description: { type: 'string' },
  },
};
const defaultValue = {
  type: 'object',
  required: ['path', 'expr'],
  properties: {
    path: address,
    expr: {
      ...expression,
      description: 'Evaluates to an object whose leaves fill absent fields of the new container',
    },
    description: { type: 'string' },
  },
};
const constraint = {
  type: 'object',
  required: ['id', 'expr', 'message', 'policy'],
  properties: {
    id: { type: 'string' },
    path: {
      description:
        'Optional scope: one address or a list of addresses; the expression then runs on the value there',
      anyOf: [address, { type: 'array', items: address }],
    },
    expr: expression,
    message: { type: 'string' },
    policy: { enum: ['rollback', 'flag'] },
  },
};
const effect = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string' },
    executor: { enum: ['caller', 'server', 'llm', 'timer'], default: 'server' },
    trigger: expression,
    dedupeKey: expression,
    statusPath: address,
    emit: { type: 'string', description: 'caller effects: the event name handed to the caller' },
    payload: { type: 'object', additionalProperties: expression },
    request: {
      type: 'object',
      required: ['url'],
      properties: {
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
        url: { type: 'string' },
        headers: { type: 'object' },
        body: {},
      },
    },
    requests: expression,
    target: {
      type: 'object',
      properties: { ref: { type: 'string' }, path: address, read: address, watch: {}, binding: {} },
    },
    prompt: expression,
    responseSchema: {},
    at: { anyOf: [expression, { type: 'number' }] },
    afterMs: { anyOf: [expression, { type: 'number' }] },
    response: { type: 'object', properties: { set: { type: 'object', additionalProperties: expression } } },
    policy: {
      type: 'object',
      properties: {
        timeoutMs: { type: 'integer', default: 5000 },
        retries: { type: 'integer', default: 0 },
        backoff: { type: 'string' },
      },
    },
  },
};
const test = {
  type: 'object',
  required: ['given', 'expect'],
  properties: {
    description: { type: 'string' },
    given: { type: 'object', description: 'address → value, applied as one mutation' },
    expect: { type: 'object', description: 'address → expected value, or {"$meta": {property: value}}' },
  },
};
const library = {
  description:
    'A JSONata definition ending with its array of export names, or {description, define, signatures, layers}',
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      properties: {
        description: { type: 'string' },
        define: { type: 'string' },
        signatures: { type: 'object', additionalProperties: { type: 'string' } },
        layers: {
          type: 'array',
          items: {
            anyOf: [
              { type: 'string' },
              {
                type: 'object',
                properties: {
                  define: { type: 'string' },
                  ref: { type: 'string' },
                  version: { type: 'string' },
                },
              },
            ],
          },
        },
      },
    },
  ],
};
const component = {
  type: 'object',
  required: ['id', 'type'],
  properties: {
    id: { type: 'string' },
    type: {
      type: 'string',
      description: 'A component type of the view catalogue, e.g. numericField, statTile, dataTable, group',
    },
    bind: address,
    label: { type: 'string' },
    components: { type: 'array', items: { type: 'object' } },
  },
};
const viewDefinition = {
  type: 'object',
  properties: {
    renderer: { type: 'string', default: 'builtin' },
    defaultView: { type: 'string' },
    locale: { type: 'string' },
    currency: { type: 'string' },
    views: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'components'],
        properties: {
          id: { type: 'string' },
          label: { type: 'string' },
          layout: { enum: ['vertical', 'horizontal', 'grid', 'tabs', 'wizard'] },
          columns: { type: 'integer' },
          locale: { type: 'string' },
          currency: { type: 'string' },
          components: { type: 'array', items: component },
        },
      },
    },
  },
};

export const MODEL_SPEC_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'valem://schema/model-spec',
  title: 'ModelSpec',
  type: 'object',
  required: ['id', 'schema'],
  properties: {
    id: { type: 'string', description: 'Coordinate [namespace/]name, segments [A-Za-z][A-Za-z0-9_-]*' },
    version: { type: 'string', description: 'Semver recommended (MAJOR.MINOR.PATCH); default 1.0.0' },
    schema: {
      type: 'object',
      description: 'JSON Schema (2020-12) of the writable base document; local $defs only',
    },
    constants: { type: 'object', description: 'Bound as $const in every expression' },
    library,
    defaultValues: { type: 'array', items: defaultValue },
    derivations: { type: 'array', items: derivation },
    metaDerivations: { type: 'array', items: metaDerivation },
    constraints: { type: 'array', items: constraint },
    effects: { type: 'array', items: effect },
    tests: { type: 'array', items: test },
    viewDefinition,
  },
} as unknown as JsonObject;

const keys = (what: string) => ({
  type: 'array',
  items: { type: 'string' },
  description: `keys of ${what} to remove`,
});

export const SPEC_EVOLUTION_SCHEMA: JsonObject = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'valem://schema/spec-evolution',
  title: 'SpecEvolution',
  type: 'object',
  properties: {
    expectedVersion: {
      type: 'string',
      description: 'Refuse (Version conflict) unless the live version is this',
    },
    newVersion: { type: 'string' },
    upsertDerivations: { type: 'array', items: derivation },
    removeDerivations: keys('derivations (their path)'),
    upsertMetaDerivations: { type: 'array', items: metaDerivation },
    removeMetaDerivations: keys('metaDerivations ("path#prop_lower", e.g. "$.x#read_only")'),
    upsertConstraints: { type: 'array', items: constraint },
    removeConstraints: keys('constraints (their id)'),
    upsertEffects: { type: 'array', items: effect },
    removeEffects: keys('effects (their id)'),
    upsertDefaultValues: { type: 'array', items: defaultValue },
    removeDefaultValues: keys('defaultValues (their path)'),
    newSchema: { type: 'object', description: 'Replaces the whole schema (not with the tiers below)' },
    upsertSchemaDefs: { type: 'object', additionalProperties: { type: 'object' } },
    removeSchemaDefs: { type: 'array', items: { type: 'string' } },
    upsertSchemaNodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'schema'],
        properties: { path: address, schema: { type: 'object' }, required: { type: 'boolean' } },
      },
    },
    removeSchemaNodes: { type: 'array', items: address },
    newViewDefinition: viewDefinition,
    newDefaultView: { type: 'string' },
    upsertViews: { type: 'array', items: { type: 'object' } },
    removeViews: { type: 'array', items: { type: 'string' } },
    upsertComponents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['viewId', 'component'],
        properties: {
          viewId: { type: 'string' },
          component,
          parentId: { type: 'string' },
          beforeId: { type: 'string' },
        },
      },
    },
    removeComponents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['viewId', 'componentId'],
        properties: { viewId: { type: 'string' }, componentId: { type: 'string' } },
      },
    },
    newConstants: { type: 'object' },
    upsertConstants: { type: 'object' },
    removeConstants: { type: 'array', items: { type: 'string' } },
    newLibrary: { anyOf: [library, { type: 'null' }] },
    newTests: { type: 'array', items: test },
    backfill: {
      type: 'object',
      description: 'address → value, written only where the field reads absent/null',
    },
  },
} as unknown as JsonObject;
