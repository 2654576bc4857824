/**
 * The bundle's stand-in for the MCP SDK's Node shims module (`@modelcontextprotocol/server/_shims`;
 * scripts/bundle-cli.mjs points the SDK's imports of it here). The SDK's shims hand every Server a
 * default JSON Schema validator built on the SDK's own copy of ajv (0.3 MB of code), which a server
 * asks for only to check a form elicitation's answer, something ours never sends. Bundled, that copy
 * sat in the chunk parsed before `initialize` is answered (issue 45); here the SDK's published ajv
 * validator (`@modelcontextprotocol/server/validators/ajv`, its CommonJS build: require() is
 * synchronous, as getValidator is) is loaded the first time a validator is asked for.
 * The tsc build does not use this module: there the SDK loads its own shims.
 */
import { createRequire } from 'node:module';
import process from 'node:process';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/server';

type ValidatorClass = new () => jsonSchemaValidator;

let AjvJsonSchemaValidator: ValidatorClass | undefined;

/** The SDK's ajv validator class, loaded on first use. */
function ajvValidatorClass(): ValidatorClass {
  return (AjvJsonSchemaValidator ??= (
    createRequire(import.meta.url)('@modelcontextprotocol/server/validators/ajv') as {
      AjvJsonSchemaValidator: ValidatorClass;
    }
  ).AjvJsonSchemaValidator);
}

/** The SDK's default validator (its ajv one), built on the first getValidator call. */
export class DefaultJsonSchemaValidator implements jsonSchemaValidator {
  #validator: jsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#validator ??= new (ajvValidatorClass())();
    return this.#validator.getValidator<T>(schema);
  }
}

/** True once the SDK's ajv validator has been loaded (for the test of its deferral). */
export const ajvValidatorLoaded = (): boolean => AjvJsonSchemaValidator !== undefined;

export { process };
