/** Loading a model for the service (parse, load phase, validation) and the service's small helpers. */
import { createHash, randomBytes } from 'node:crypto';
import {
  type LoadOptions,
  type PreparedModel,
  type ValidationResult,
  SynthError,
  nodeFailureLine,
  loadSynthModel,
  parseModel,
  validateModel,
} from '../synth/index.js';
import { SynthServiceError } from './synth-errors.js';

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A fresh positive 63-bit seed, so it reproduces the run when passed back. */
export function freshSeed(): bigint {
  return randomBytes(8).readBigUInt64BE() >> 1n || 1n;
}

export const newId = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`;

/**
 * Parses model text and runs the engine's load phase (imports, declares, edition gates, outside
 * data through the real ports under the allowlists), then validates the result. A bad model is a
 * MODEL_INVALID error carrying the validation report; one whose rows would pass the byte budget
 * of `options.graphBudget` is TOO_LARGE.
 */
export async function loadModel(text: string, options: LoadOptions): Promise<PreparedModel> {
  let prepared: PreparedModel;
  try {
    prepared = await loadSynthModel(parseModel(text), options);
  } catch (err) {
    if (err instanceof SynthError) {
      const validation: ValidationResult = {
        valid: false,
        rootName: null,
        nodeCount: null,
        failures: [],
        loadError: err.message,
      };
      throw new SynthServiceError('MODEL_INVALID', `the model does not load: ${err.message}`, { validation });
    }
    throw err;
  }
  let validation: ValidationResult;
  try {
    validation = validateModel(prepared);
  } catch (err) {
    // a graph past the generation's byte cap, refused before its rows were allocated
    if (err instanceof SynthError && err.code === 'SYNTH_LIMIT')
      throw new SynthServiceError('TOO_LARGE', `the model's rows are too wide: ${err.message}`);
    throw err;
  }
  if (!validation.valid) {
    const why = validation.loadError ?? validation.failures.map(nodeFailureLine).join('; ');
    throw new SynthServiceError('MODEL_INVALID', `the model is not valid: ${why}`, { validation });
  }
  return prepared;
}

/** A cache budget: as given (it must hold one generation), else the default or one generation. */
export function cacheBytes(
  given: number | undefined,
  fallback: number,
  perGeneration: number,
  what: string,
): number {
  if (given === undefined) return Math.max(fallback, perGeneration);
  if (!(given >= perGeneration))
    throw new Error(`${what}: ${given} bytes cannot hold one generation of up to ${perGeneration} bytes`);
  return given;
}
