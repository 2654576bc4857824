/** The validator (§6): load checks, structure checks and per-node validation, as the §6.2 JSON. */
import { SynthError } from '../errors.js';
import type { NodeFailure } from '../engine/loader.js';
import { checkLoad, configure } from '../engine/loader.js';
import { parseModel } from '../model/io.js';
import type { SynthModel } from '../model/types.js';
import { L64X128MixRandom } from '../random/l64x128-mix-random.js';

/** §6.2: `loadError` is present only when the model failed to parse or load. */
export interface ValidationResult {
  valid: boolean;
  rootName: string | null;
  nodeCount: number | null;
  failures: NodeFailure[];
  loadError?: string;
}

/** Validates a parsed model. Never throws for model problems; they become the result. */
export function validateModel(model: SynthModel): ValidationResult {
  try {
    checkLoad(model);
    // Validation never draws; any seed will do.
    const { failures } = configure(model, new L64X128MixRandom(0));
    return { valid: failures.length === 0, rootName: model.root, nodeCount: model.nodes.length, failures };
  } catch (err) {
    if (err instanceof SynthError)
      return { valid: false, rootName: null, nodeCount: null, failures: [], loadError: err.message };
    throw err;
  }
}

/** Validates model text of any syntax. */
export function validateModelText(text: string): ValidationResult {
  try {
    return validateModel(parseModel(text));
  } catch (err) {
    if (err instanceof SynthError)
      return { valid: false, rootName: null, nodeCount: null, failures: [], loadError: err.message };
    throw err;
  }
}
