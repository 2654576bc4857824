// The bundle's stand-in for the SDK's Node shims (src/mcp/sdk-node-shims.ts; scripts/bundle-cli.mjs
// points the SDK at it): the same `process`, and a default validator that loads the SDK's ajv one
// only when first asked for a validator, then answers as the SDK's does.
import nodeProcess from 'node:process';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator, ajvValidatorLoaded, process } from '../../src/mcp/sdk-node-shims.js';

const SCHEMAS = [
  {
    type: 'object',
    properties: { name: { type: 'string', minLength: 2 }, age: { type: 'integer', minimum: 0 } },
    required: ['name'],
  },
  // a draft-07 schema: the SDK's validator picks its draft-07 engine for it
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { email: { type: 'string', format: 'email' } },
  },
] as const;
const VALUES = [
  { name: 'Ada', age: 36 },
  { name: 'A' },
  { age: -1 },
  { email: 'a@b.co' },
  { email: 'nope' },
  7,
];

describe('the SDK shims stand-in', () => {
  it('loads the SDK ajv validator on the first getValidator, not when a server builds its default', () => {
    const validator = new DefaultJsonSchemaValidator();
    expect(ajvValidatorLoaded()).toBe(false);
    validator.getValidator(SCHEMAS[0]);
    expect(ajvValidatorLoaded()).toBe(true);
  });

  it('gives the verdicts and messages of the SDK validator', () => {
    const ours = new DefaultJsonSchemaValidator();
    const sdk = new AjvJsonSchemaValidator();
    for (const schema of SCHEMAS) {
      const mine = ours.getValidator(schema);
      const theirs = sdk.getValidator(schema);
      for (const value of VALUES) expect(mine(value), JSON.stringify(value)).toEqual(theirs(value));
    }
    // and some verdicts are refusals, so the comparison is not between two validators that accept all
    expect(ours.getValidator(SCHEMAS[0])({ name: 'A' }).valid).toBe(false);
  });

  it("exports node's process", () => {
    expect(process).toBe(nodeProcess);
  });
});
