/** The validator (§6): load checks, structure checks and per-node validation, as the §6.2 JSON. */
import { SynthError } from '../errors.js';
import type { NodeFailure } from '../engine/loader.js';
import { configure } from '../engine/loader.js';
import type { LoadOptions } from '../engine/prepare.js';
import { PreparedModel, loadSynthModel, prepareModel } from '../engine/prepare.js';
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

/**
 * A node failure as one line for people, `Mix "M": needs at least two inputs`: a message that
 * already names its node (a node's own refusal does) is not prefixed twice.
 */
export function nodeFailureLine(f: NodeFailure): string {
  const node = `${f.nodeType} "${f.nodeName}": `;
  return f.message.startsWith(node) ? f.message : `${node}${f.message}`;
}

/** A load error as the result; a graph over its caller's byte budget (SYNTH_LIMIT) is thrown on. */
function loadFailure(err: unknown): ValidationResult {
  if (err instanceof SynthError && err.code !== 'SYNTH_LIMIT')
    return { valid: false, rootName: null, nodeCount: null, failures: [], loadError: err.message };
  throw err;
}

function validatePrepared(prepared: PreparedModel): ValidationResult {
  const { model } = prepared;
  // Validation never draws; any seed will do.
  const { failures } = configure(model, new L64X128MixRandom(0), prepared);
  return { valid: failures.length === 0, rootName: model.root, nodeCount: model.nodes.length, failures };
}

/**
 * Validates a parsed (or prepared) model synchronously; a model reading a database or a service
 * needs `validateModelAsync`. Never throws for model problems; they become the result. A model
 * whose graph would pass the byte budget its caller set (`LoadOptions.graphBudget`) is not a
 * model problem but a size one: that SYNTH_LIMIT error is thrown.
 * `nodeCount` counts the composed model (imported nodes included).
 */
export function validateModel(
  model: SynthModel | PreparedModel,
  options: LoadOptions = {},
): ValidationResult {
  try {
    return validatePrepared(model instanceof PreparedModel ? model : prepareModel(model, options));
  } catch (err) {
    return loadFailure(err);
  }
}

/** Validates a model after the full (asynchronous) load phase. */
export async function validateModelAsync(
  model: SynthModel,
  options: LoadOptions = {},
): Promise<ValidationResult> {
  try {
    return validatePrepared(await loadSynthModel(model, options));
  } catch (err) {
    return loadFailure(err);
  }
}

/** Validates model text of any syntax. */
export function validateModelText(text: string, options: LoadOptions = {}): ValidationResult {
  try {
    return validateModel(parseModel(text), options);
  } catch (err) {
    if (err instanceof SynthError)
      return { valid: false, rootName: null, nodeCount: null, failures: [], loadError: err.message };
    throw err;
  }
}
