/**
 * The load phase of a run: composition (imports, declares), edition gates, then every component
 * load hook (outside data through checked ports). Generation afterwards is synchronous and
 * streaming; anything asynchronous (databases, services) is awaited here, before the first row.
 */
import type { Allowlists } from '../access/allowlists.js';
import type { AccessPorts } from '../access/ports.js';
import { folderOf } from '../access/paths.js';
import type { Edition } from '../components/component.js';
import type { ComponentImpl } from '../components/component.js';
import { lookupWith, type ComponentLookup } from '../components/registry.js';
import { loadCustoms } from './customs.js';
import { SynthError, plainMessage } from '../errors.js';
import type { SynthLimits } from '../limits.js';
import { limitsOf } from '../limits.js';
import type { SynthModel } from '../model/types.js';
import type { AccessContext } from './access-context.js';
import { accessContext } from './access-context.js';
import { composeModel } from './compose.js';
import type { GraphBudget } from './graph-budget.js';
import { checkLoad, componentAttributes } from './loader.js';
import { Params } from './params.js';
import { PreparedModel } from './prepared.js';

/** How a model is loaded. Every field is optional; the defaults read nothing from outside. */
export interface LoadOptions {
  /** `"full"` (default) or `"free"` to emulate the Free edition's gates (synth-spec §10). */
  readonly edition?: Edition;
  /** Canonical absolute path of the model file; relative paths resolve from its folder. */
  readonly location?: string;
  /** Working directory: the second place relative paths are searched, and a permitted root. */
  readonly cwd?: string;
  /** Outside-access policy; default: everything closed. */
  readonly allowlists?: Allowlists;
  /** IO adapters; default: none (a model needing one fails to load). */
  readonly ports?: AccessPorts;
  /** Formats config for the Pro composites (`format.<type>.<locale>`, ..., §4.5); default: none. */
  readonly formats?: ReadonlyMap<string, string>;
  /** Budgets (row width, counts, ServiceCall caps); default: DEFAULT_LIMITS. */
  readonly limits?: Partial<SynthLimits>;
  /** Absolute folders custom component modules may be loaded from; default: none. */
  readonly customComponentDirs?: readonly string[];
  /** Told of the custom components a model bound, once they loaded (list_components shows them). */
  readonly onCustomsLoaded?: (customs: ReadonlyMap<string, ComponentImpl>) => void;
  /** Resolves built-in node types; default: the component registry (tests pass their own). */
  readonly components?: ComponentLookup;
  /**
   * Bytes the rows of any graph of this model may hold (a server passes its generation cap):
   * a graph asking for more is refused with SYNTH_LIMIT before it allocates. Default: unbounded.
   */
  readonly graphBudget?: GraphBudget;
}

// the class lives apart so that a run can be built without this module's load machinery
export { PreparedModel };

interface Staged {
  model: SynthModel;
  edition: Edition;
  outside: Map<string, unknown>;
  pending: [string, Promise<unknown>][];
  limits: SynthLimits;
}

function stage(
  source: SynthModel,
  options: LoadOptions,
  async: boolean,
  customs?: ReadonlyMap<string, ComponentImpl>,
): Staged {
  const lookup = lookupWith(customs, options.components);
  const edition = options.edition ?? 'full';
  const limits = limitsOf(options.limits);
  const folder = options.location === undefined ? undefined : folderOf(options.location);
  const access: AccessContext = accessContext(options.ports ?? {}, options.allowlists, options.cwd, folder);
  let model = source;
  let origins: ReadonlyMap<string, string | undefined> = new Map();
  if (edition === 'free') {
    checkLoad(source, 'free', lookup);
  } else {
    const needsFiles = source.nodes.some((n) => n.type.toLowerCase() === 'import');
    const composed = composeModel(
      source,
      options.location,
      needsFiles ? access.fileScope('Import') : undefined,
    );
    model = composed.model;
    origins = composed.origins;
    checkLoad(model, 'full', lookup);
  }
  const outside = new Map<string, unknown>();
  const pending: [string, Promise<unknown>][] = [];
  for (const node of model.nodes) {
    const impl = lookup(node.type);
    if (impl?.load === undefined) continue;
    const params = new Params(impl.descriptor, node.name, componentAttributes(node.attributes));
    const data = impl.load({
      name: node.name,
      type: impl.descriptor.name,
      params,
      origin: origins.get(node.name) ?? folder,
      access,
      async,
      limits,
    });
    if (data instanceof Promise) {
      // Handled here so a later load error leaves no unhandled rejection behind.
      data.catch(() => undefined);
      pending.push([node.name, data]);
    } else outside.set(node.name, data);
  }
  return { model, edition, outside, pending, limits };
}

/**
 * A failed outside read as a load error. Adapters fail with a plain Error in their own words;
 * anything else (a TypeError, a RangeError) is engine text and is not passed on.
 */
function loadFailure(name: string, err: unknown): SynthError {
  if (err instanceof SynthError) return err;
  return new SynthError(
    'SYNTH_LOAD',
    `"${name}": ${plainMessage(err, 'reading its data failed unexpectedly')}`,
  );
}

/**
 * The load phase without waiting: works for every model whose outside data is synchronous
 * (files). A model with a Database or ServiceCall node fails with a load error pointing to
 * `loadSynthModel`.
 * @throws SynthError on any load error
 */
export function prepareModel(model: SynthModel, options: LoadOptions = {}): PreparedModel {
  return prepared(stage(model, options, false), options);
}

/**
 * The full load phase: composes, gates, and reads every outside source (awaiting databases and
 * services). Refusals are raised before any read starts.
 * @throws SynthError on any load error
 */
export async function loadSynthModel(model: SynthModel, options: LoadOptions = {}): Promise<PreparedModel> {
  // custom modules load first (every node may name one), never under the Free edition's gates
  const customs =
    model.customs.length > 0 && options.edition !== 'free'
      ? await loadCustoms(model, options.customComponentDirs ?? [], options.ports ?? {}, options.components)
      : new Map<string, ComponentImpl>();
  if (customs.size > 0) options.onCustomsLoaded?.(customs);
  const s = stage(model, options, true, customs);
  const results = await Promise.allSettled(s.pending.map(([, p]) => p));
  results.forEach((r, i) => {
    const name = s.pending[i]![0];
    if (r.status === 'fulfilled') s.outside.set(name, r.value);
    else throw loadFailure(name, r.reason);
  });
  return prepared(s, options, customs);
}

/** The loaded model from a finished stage. */
function prepared(
  s: ReturnType<typeof stage>,
  options: LoadOptions,
  customs?: ReadonlyMap<string, ComponentImpl>,
): PreparedModel {
  return new PreparedModel(
    s.model,
    s.edition,
    s.outside,
    options.formats,
    s.limits,
    customs,
    options.components,
    options.graphBudget,
  );
}
