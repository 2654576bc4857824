/**
 * Custom components (`<definitions><custom name="T" class="…"/>`): a node type bound to an ES
 * module the operator allowed. The module's default export describes the component:
 *
 *   export default {
 *     kind: 'generator',             // or 'filter' (reads `inputs` input nodes, default 1)
 *     parameters: { period: 24 },    // attribute name → default (number, string or boolean)
 *     dimension: 1,                  // columns it emits, or ({ parameters, inputDimensions }) => n
 *     create({ parameters, random, inputDimensions }) {   // once per run
 *       return (inputs) => [ ... ];  // per row: one array per input in, `dimension` values out
 *     },
 *   };
 *
 * A component that counts its rows (a time step) may give the returned function a `skip(n)`
 * method that moves its count ahead by n rows without drawing: a partition then starts it where
 * the single stream has it at the partition's first row (row-identity.ts).
 *
 * `random` is the run's one random stream (nextDouble, nextInt(bound), nextGaussian,
 * nextExponential): drawing only through it keeps a seed's output the same on every run.
 * Everything the module gives is checked here; a bad module is a load error.
 */
import type { Params } from '../engine/params.js';
import { DOUBLE, Row } from '../engine/row.js';
import type { RuntimeNode } from '../engine/row.js';
import { SynthError, plainMessage } from '../errors.js';
import type { RandomSource } from '../random/random-source.js';
import type { BuildContext, ComponentImpl } from './component.js';
import { checkColumns } from './component.js';
import { rowIndexed } from '../engine/row-indexed.js';
import type { ParameterDescriptor, ParamType } from './descriptor.js';

type Value = number | string;
type ParamValue = number | string | boolean;

/** What `create` receives. */
export interface CustomCreateContext {
  readonly parameters: Readonly<Record<string, ParamValue>>;
  readonly random: CustomRandom;
  readonly inputDimensions: readonly number[];
}

/** The run's random stream, as a custom component may use it. */
export interface CustomRandom {
  nextDouble(): number;
  /** Uniform int in [0, bound). */
  nextInt(bound: number): number;
  nextGaussian(): number;
  nextExponential(): number;
}

interface Definition {
  kind: 'generator' | 'filter';
  parameters: Map<string, ParamValue>;
  inputs: number;
  dimension: number | ((c: { parameters: object; inputDimensions: readonly number[] }) => unknown);
  create: (c: CustomCreateContext) => unknown;
}

function own(o: object, key: string): unknown {
  return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/**
 * Checks a module's default export against the component API.
 * @throws SynthError SYNTH_LOAD naming what is wrong
 */
export function readDefinition(what: string, module: unknown): Definition {
  const bad = (why: string): never => {
    throw new SynthError('SYNTH_LOAD', `${what}: ${why}`);
  };
  const exported = module !== null && typeof module === 'object' ? own(module, 'default') : undefined;
  if (exported === null || typeof exported !== 'object')
    return bad('the module has no default export describing the component');
  const kind = own(exported, 'kind');
  if (kind !== 'generator' && kind !== 'filter') return bad(`kind must be "generator" or "filter"`);
  const parameters = new Map<string, ParamValue>();
  const declared = own(exported, 'parameters') ?? {};
  if (declared === null || typeof declared !== 'object') return bad('parameters must be an object');
  for (const name of Object.keys(declared)) {
    const v = own(declared, name);
    if (!/^[A-Za-z]\w*$/.test(name) || name === '__proto__')
      bad(`parameter "${name}" is not a plain name (letters, digits, _)`);
    if (typeof v !== 'string' && typeof v !== 'boolean' && !(typeof v === 'number' && Number.isFinite(v)))
      bad(`parameter "${name}" needs a default that is a number, a string or a boolean`);
    parameters.set(name, v as ParamValue);
  }
  const inputs = own(exported, 'inputs') ?? (kind === 'filter' ? 1 : 0);
  if (!Number.isInteger(inputs) || (inputs as number) < 0 || (inputs as number) > 64)
    bad('inputs must be an integer from 0 to 64');
  if (kind === 'generator' && inputs !== 0) bad('a generator has no inputs');
  if (kind === 'filter' && inputs === 0) bad('a filter needs at least one input');
  const dimension = own(exported, 'dimension');
  if (typeof dimension !== 'function' && !(Number.isInteger(dimension) && (dimension as number) >= 1))
    bad('dimension must be a positive integer or a function returning one');
  const create = own(exported, 'create');
  if (typeof create !== 'function') bad('create must be a function');
  return {
    kind,
    parameters,
    inputs: inputs as number,
    dimension: dimension as Definition['dimension'],
    create: create as Definition['create'],
  };
}

function descriptorParam(name: string, value: ParamValue, order: number): ParameterDescriptor {
  const type: ParamType =
    typeof value === 'number' ? 'double' : typeof value === 'boolean' ? 'boolean' : 'string';
  return {
    name,
    type,
    required: false,
    defaultValue: String(value),
    aliases: [],
    allowedValues: [],
    description: '',
    multiple: false,
    attributes: [],
    minOccurrences: 0,
    maxOccurrences: 1,
    order,
  };
}

function parameterValues(
  params: Params,
  declared: ReadonlyMap<string, ParamValue>,
): Record<string, ParamValue> {
  const values: Record<string, ParamValue> = Object.create(null) as Record<string, ParamValue>;
  for (const [name, def] of declared)
    values[name] =
      typeof def === 'number'
        ? params.double(name)
        : typeof def === 'boolean'
          ? params.bool(name)
          : params.text(name)!;
  return Object.freeze(values);
}

function randomOf(rng: RandomSource): CustomRandom {
  return Object.freeze({
    nextDouble: () => rng.nextDouble(),
    nextInt: (bound: number) => {
      if (!Number.isInteger(bound) || bound < 1 || bound > 2147483647)
        throw new Error(`nextInt(bound) needs an integer bound from 1 to 2147483647 (got ${String(bound)})`);
      return rng.nextIntBetween(0, bound);
    },
    nextGaussian: () => rng.nextGaussian(),
    nextExponential: () => rng.nextExponential(),
  });
}

/** Calls user code; a failure becomes our error naming the node (a plain Error keeps its text). */
function guarded<T>(ctx: BuildContext, when: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof SynthError) throw err;
    throw new SynthError(
      'SYNTH_RUNTIME',
      `custom ${ctx.type} "${ctx.name}": ${when}: ${plainMessage(err, 'its code failed')}`,
    );
  }
}

function build(ctx: BuildContext, def: Definition): RuntimeNode {
  if (ctx.inputs.length !== def.inputs)
    ctx.params.reject(`needs ${def.inputs} input(s), has ${ctx.inputs.length}`);
  const parameters = parameterValues(ctx.params, def.parameters);
  const inputDimensions = ctx.inputs.map((n) => n.dimension);
  const dimension = guarded(ctx, 'dimension', () =>
    typeof def.dimension === 'function' ? def.dimension({ parameters, inputDimensions }) : def.dimension,
  );
  if (!Number.isInteger(dimension) || (dimension as number) < 1)
    ctx.params.reject(`dimension must be a positive integer (got ${String(dimension)})`);
  checkColumns(ctx, dimension as number, 'dimension');
  const next = guarded(ctx, 'create', () =>
    def.create(Object.freeze({ parameters, random: randomOf(ctx.rng), inputDimensions })),
  );
  if (typeof next !== 'function') ctx.params.reject('create must return a function (inputs) => values');
  const rows = ctx.inputs.map((n) => new Row(n.dimension));
  const width = dimension as number;
  let pulls = 0;
  const node: RuntimeNode = {
    name: ctx.name,
    type: ctx.type,
    dimension: width,
    synchronous: ctx.inputs.some((n) => n.synchronous),
    next(out, offset) {
      pulls++;
      const values = ctx.inputs.map((n, i) => {
        const row = rows[i]!;
        n.next(row, 0);
        return Array.from({ length: n.dimension }, (_, j): Value => row.value(j));
      });
      const result = guarded(ctx, 'a row', () => (next as (v: Value[][]) => unknown)(values));
      if (!Array.isArray(result) || result.length !== width)
        throw new SynthError(
          'SYNTH_RUNTIME',
          `custom ${ctx.type} "${ctx.name}": a row must be an array of ${width} value(s)`,
        );
      for (let j = 0; j < width; j++) {
        const v: unknown = result[j];
        if (typeof v === 'string') out.setText(offset + j, v);
        else if (typeof v === 'number' && Number.isFinite(v)) {
          // numbers print as doubles (`2.0`), like every double-valued component's
          out.kinds[offset + j] = DOUBLE;
          out.nums[offset + j] = v;
        } else
          throw new SynthError(
            'SYNTH_RUNTIME',
            `custom ${ctx.type} "${ctx.name}": value ${j} of a row is neither a finite number nor a string`,
          );
      }
    },
  };
  const skip: unknown = Object.hasOwn(next, 'skip') ? (next as { skip?: unknown }).skip : undefined;
  if (skip === undefined) return node;
  if (typeof skip !== 'function') ctx.params.reject('skip, when given, must be a function (n) => void');
  return rowIndexed(
    node,
    () => pulls,
    (n) => {
      guarded(ctx, 'skip', () => (skip as (n: number) => unknown).call(next, n));
      pulls += n;
    },
  );
}

/**
 * The component a `<custom name class>` binding names, from its module.
 * @throws SynthError SYNTH_LOAD when the module does not describe a component
 */
export function customComponent(name: string, className: string, module: unknown): ComponentImpl {
  const def = readDefinition(`custom "${name}" (${className})`, module);
  return {
    descriptor: {
      name,
      className,
      category: def.kind,
      edition: 'Pro',
      description: `custom component from ${className}`,
      input: def.kind === 'generator' ? 'none' : String(def.inputs),
      details: '',
      parameters: [...def.parameters].map(([p, v], i) => descriptorParam(p, v, i)),
    },
    inputAttributes: [],
    create: (ctx) => build(ctx, def),
  };
}
