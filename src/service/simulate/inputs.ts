/**
 * Where a simulation's inputs come from: the synth engine. Each input path gets a distribution —
 * any synth generator with its parameters (`{"type": "Normal", "mean": 0.07, "sigma": 0.01}`) —
 * or a whole synth model (XML, JSON or `.sgm` text) whose columns feed the paths in order, which is
 * how correlated inputs (a Copula) come in. Either way one seeded synth run draws every input of a
 * run together, so a seed fixes the whole simulation.
 */
import { CalcError, isForbiddenKey } from '../../calc/index.js';
import { parseModel, SynthError, SynthRun, type ModelNode, type SynthModel } from '../../synth/index.js';

/** A generator and its parameters, as a synth model writes them (parameter → value). */
export type Distribution = { type: string } & Record<string, unknown>;

/** A synth model's text whose columns, in order, feed `paths`. */
export interface InputModel {
  text: string;
  paths: string[];
}

/** The simulation's inputs, drawn one run at a time. */
export interface InputSource {
  /** The input paths, in column order. */
  readonly paths: readonly string[];
  /** The next run's values, one per path (the array is reused). */
  next(): (number | string)[];
}

const ROOT = 'SimulationInputs';

function invalid(message: string): CalcError {
  return new CalcError('INVALID_ARGUMENT', message);
}

/** One generator node from a distribution object. */
function generatorNode(path: string, d: unknown, index: number): ModelNode {
  if (d === null || typeof d !== 'object' || Array.isArray(d))
    throw invalid(
      `inputs['${path}'] must be a distribution object such as {"type": "Normal", "mean": 0, "sigma": 1}`,
    );
  const { type, ...params } = d as Record<string, unknown>;
  if (typeof type !== 'string' || type.trim() === '')
    throw invalid(
      `inputs['${path}'] needs a "type": a synth generator such as Normal, Triangular or Lognormal`,
    );
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(params)) {
    if (isForbiddenKey(name)) throw invalid(`inputs['${path}'] has a parameter named '${name}'`);
    if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean')
      throw invalid(`inputs['${path}'].${name} must be a number, a string or a boolean`);
    attributes[name] = String(value);
  }
  return { type, name: `Input${index}`, attributes, inputs: [] };
}

/** A synth model that draws one column per input: Append over one generator each. */
function modelOfDistributions(inputs: Record<string, unknown>): { model: SynthModel; paths: string[] } {
  const paths = Object.keys(inputs);
  const nodes = paths.map((p, i) => generatorNode(p, inputs[p], i));
  const root: ModelNode = {
    type: 'Append',
    name: ROOT,
    attributes: {},
    inputs: nodes.map((n) => ({ name: n.name, attributes: {} })),
  };
  const model: SynthModel = { root: ROOT, customs: [], declares: [], analysis: [], nodes: [root, ...nodes] };
  return { model, paths };
}

function modelOfText(input: InputModel): SynthModel {
  try {
    return parseModel(input.text);
  } catch (err) {
    throw invalid(`inputModel: ${err instanceof SynthError ? err.message : 'the model text cannot be read'}`);
  }
}

/**
 * The input source for `inputs` (path → distribution) and/or `inputModel`, seeded with `seed`.
 * @throws CalcError INVALID_ARGUMENT when a distribution or the model does not load, or the columns
 *   do not match the paths
 */
export function inputSource(
  inputs: Record<string, unknown> | undefined,
  inputModel: InputModel | undefined,
  seed: bigint,
): InputSource {
  if (inputModel && inputs && Object.keys(inputs).length > 0)
    throw invalid('give either inputs (one distribution per path) or inputModel (a synth model), not both');
  const { model, paths } = inputModel
    ? { model: modelOfText(inputModel), paths: inputModel.paths }
    : modelOfDistributions(inputs ?? {});
  if (paths.length === 0) throw invalid('a simulation needs at least one input path');
  let run: SynthRun;
  try {
    run = new SynthRun(model, seed); // the Free edition's gates do not apply: nothing leaves the process
  } catch (err) {
    const what = inputModel ? 'inputModel' : 'inputs';
    throw invalid(`${what}: ${err instanceof SynthError ? err.message : 'the distributions do not load'}`);
  }
  if (run.dimension !== paths.length)
    throw invalid(
      `the inputs draw ${run.dimension} column(s) per run but ${paths.length} input path(s) are given: ` +
        'each distribution must draw one value (use inputModel with one path per column for several)',
    );
  const values: (number | string)[] = new Array<number | string>(paths.length);
  return {
    paths,
    next() {
      const row = run.next();
      for (let i = 0; i < paths.length; i++) values[i] = row.value(i);
      return values;
    },
  };
}
