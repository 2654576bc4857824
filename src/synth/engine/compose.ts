/**
 * Composition (synth-spec §1.4, §1.5): `declare` substitution and Import flattening.
 *
 * An Import node stands for its library's root. The library's nodes are inlined with names
 * `<prefix>.<name>` (prefix defaults to the Import's own name; nested imports chain prefixes:
 * `outer.inner.Node`). The "." separator is our choice (§12.3): it cannot be confused with the
 * `_`/`-` that model authors use inside names, and a clash with an existing name is a load error.
 * Library seeds are ignored; imported nodes draw from the run's one RNG in pull order.
 */
import { SynthError } from '../errors.js';
import { parseModel } from '../model/io.js';
import { setOwn } from '../model/names.js';
import type { ModelInput, ModelNode, SynthModel } from '../model/types.js';
import type { FileScope } from '../access/paths.js';
import { folderOf, resolveModelFile } from '../access/paths.js';

/** The separator between an Import prefix and a library node name. */
export const PREFIX_SEPARATOR = '.';

/** A flattened model plus, per node, the folder of the file that defined it. */
export interface ComposedModel {
  readonly model: SynthModel;
  /** Folder of the defining file per node name (undefined for a model given as text). */
  readonly origins: ReadonlyMap<string, string | undefined>;
  /** Canonical paths of every imported file, in load order. */
  readonly imported: readonly string[];
}

const REF = /^\$([A-Za-z_][\w.-]*)$/;
const IMPORT_OWN = new Set(['file', 'name', 'prefix']);

function loadError(message: string): never {
  throw new SynthError('SYNTH_LOAD', message);
}

/** The effective declare values of one file: its own defaults, then the importer's overrides. */
function declaredValues(
  model: SynthModel,
  overrides: ReadonlyMap<string, string>,
  where: string,
): Map<string, string> {
  const values = new Map<string, string>();
  for (const d of model.declares) {
    if (d.value.trim().startsWith('$'))
      loadError(
        `${where}: declare "${d.name}" has the value "${d.value}"; declared values cannot be $references`,
      );
    values.set(d.name, d.value);
  }
  for (const [k, v] of overrides) {
    const key = values.has(k) ? k : [...values.keys()].find((n) => n.toLowerCase() === k.toLowerCase());
    if (key === undefined)
      loadError(
        `${where}: the importer sets "${k}", but the library declares no such parameter` +
          (values.size > 0 ? ` (declared: ${[...values.keys()].join(', ')})` : ''),
      );
    values.set(key, v);
  }
  return values;
}

function substitute(value: string, values: ReadonlyMap<string, string>, where: string): string {
  const m = REF.exec(value.trim());
  if (m === null) return value;
  const v = values.get(m[1]!);
  if (v === undefined) loadError(`${where}: "${value}" names no declared parameter`);
  return v;
}

function substituteAll(
  attrs: Record<string, string>,
  values: ReadonlyMap<string, string>,
  where: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) setOwn(out, k, substitute(v, values, `${where} ${k}`), where);
  return out;
}

function attr(node: ModelNode, name: string): string | undefined {
  const key = Object.keys(node.attributes).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : node.attributes[key];
}

/** True for an Import node (type names are case-insensitive). */
export function isImport(node: ModelNode): boolean {
  return node.type.toLowerCase() === 'import';
}

interface Level {
  /** Canonical path of this file, undefined for a text model. */
  file: string | undefined;
  /** Import chain for cycle messages. */
  chain: readonly string[];
}

/**
 * Substitutes declares and inlines every Import, recursively.
 * @param location canonical path of the model file (undefined for text models)
 * @param scope file access for Imports; undefined refuses every Import
 * @throws SynthError SYNTH_LOAD on unresolved `$name`, unknown overrides, cycles or refused files
 */
export function composeModel(
  model: SynthModel,
  location: string | undefined,
  scope: FileScope | undefined,
): ComposedModel {
  const origins = new Map<string, string | undefined>();
  const imported: string[] = [];
  const nodes: ModelNode[] = [];

  /** Flattens one file's nodes with `prefix`; returns the real name of its root. */
  const flatten = (
    m: SynthModel,
    overrides: ReadonlyMap<string, string>,
    prefix: string,
    level: Level,
  ): string => {
    const where = level.file ?? 'model';
    const values = declaredValues(m, overrides, where);
    const names = new Set(m.nodes.map((n) => n.name));
    const alias = new Map<string, string>();
    const pending: ModelNode[] = [];
    for (const node of m.nodes) {
      const attrs = substituteAll(node.attributes, values, `${node.type} "${node.name}"`);
      if (!isImport(node)) {
        pending.push({
          type: node.type,
          name: node.name,
          attributes: attrs,
          inputs: node.inputs.map((i): ModelInput => ({
            name: i.name,
            attributes: substituteAll(i.attributes, values, `input "${i.name}" of "${node.name}"`),
          })),
        });
        continue;
      }
      const what = `Import "${node.name}"`;
      if (node.inputs.length > 0) loadError(`${what}: an Import takes no inputs`);
      const file = attr({ ...node, attributes: attrs }, 'file');
      if (file === undefined) loadError(`${what}: missing required attribute "file"`);
      if (scope === undefined)
        loadError(`${what}: imports need file access (the model was given without a file port)`);
      const from = level.file === undefined ? undefined : folderOf(level.file);
      const target = resolveModelFile(file, from, scope, what);
      if (target === level.file || level.chain.includes(target))
        loadError(`${what}: import cycle: ${[...level.chain, target].join(' -> ')}`);
      let lib: SynthModel;
      try {
        lib = parseModel(scope.files.readText(target));
      } catch (err) {
        if (err instanceof SynthError) loadError(`${what}: ${target}: ${err.message}`);
        throw err;
      }
      imported.push(target);
      const libOverrides = new Map<string, string>();
      for (const [k, v] of Object.entries(attrs))
        if (!IMPORT_OWN.has(k.toLowerCase())) libOverrides.set(k, v);
      const own = attr({ ...node, attributes: attrs }, 'prefix') ?? node.name;
      const libRoot = flatten(lib, libOverrides, prefix + own + PREFIX_SEPARATOR, {
        file: target,
        chain: [...level.chain, target],
      });
      alias.set(node.name, libRoot);
    }
    const real = (name: string): string => alias.get(name) ?? (names.has(name) ? prefix + name : name);
    for (const node of pending) {
      const name = prefix + node.name;
      if (origins.has(name)) loadError(`node name "${name}" is defined twice (check Import prefixes)`);
      origins.set(name, level.file === undefined ? undefined : folderOf(level.file));
      const attributes: Record<string, string> = {};
      for (const [k, v] of Object.entries(node.attributes))
        setOwn(attributes, k, k.toLowerCase().startsWith('collaborate.') ? real(v) : v, `node "${name}"`);
      nodes.push({
        type: node.type,
        name,
        attributes,
        inputs: node.inputs.map((i) => ({ name: real(i.name), attributes: i.attributes })),
      });
    }
    return real(m.root);
  };

  const hasImport = model.nodes.some(isImport);
  if (!hasImport && model.declares.length === 0 && !model.nodes.some((n) => hasRef(n))) {
    const origin = location === undefined ? undefined : folderOf(location);
    for (const n of model.nodes) origins.set(n.name, origin);
    return { model, origins, imported };
  }
  const root = flatten(model, new Map(), '', {
    file: location,
    chain: location === undefined ? [] : [location],
  });
  return {
    model: { ...model, root, declares: [], nodes },
    origins,
    imported,
  };
}

function hasRef(node: ModelNode): boolean {
  return (
    Object.values(node.attributes).some((v) => REF.test(v.trim())) ||
    node.inputs.some((i) => Object.values(i.attributes).some((v) => REF.test(v.trim())))
  );
}
