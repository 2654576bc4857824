/**
 * The JSON Schema keywords whose values are subschemas (2020-12, plus the older `definitions` and
 * `additionalItems` that specs still carry), for the walks over a schema: validation's checks, the
 * compile check and the write checker's preparation.
 */
/** A map of name → subschema. */
export const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** A list of subschemas. */
export const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** One subschema. */
export const SCHEMA_SINGLES = [
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
