/** JSON model syntax (§1): `{"dataset": {"root", "seed", "nodes": [{type, name, attributes, inputs}]}}`. */
import { SynthError } from '../errors.js';
import { checkModelNames, setOwn } from './names.js';
import type { ModelInput, ModelNode, SynthModel } from './types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringMap(v: unknown, where: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new SynthError('SYNTH_PARSE', `${where} must be an object`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') setOwn(out, k, val, where);
    else if (typeof val === 'number' || typeof val === 'boolean') setOwn(out, k, String(val), where);
    else throw new SynthError('SYNTH_PARSE', `${where}.${k} must be a string`);
  }
  return out;
}

function text(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new SynthError('SYNTH_PARSE', `${where} must be a string`);
}

/**
 * Parses a JSON model.
 * @throws SynthError SYNTH_PARSE on malformed JSON or a wrong shape
 */
export function parseJsonModel(source: string): SynthModel {
  let doc: unknown;
  try {
    doc = JSON.parse(source);
  } catch (err) {
    throw new SynthError('SYNTH_PARSE', `JSON is not well-formed${jsonErrorPlace(source, err)}`);
  }
  if (!isObject(doc) || !isObject(doc['dataset'])) {
    throw new SynthError('SYNTH_PARSE', 'JSON model must be an object with a "dataset" object');
  }
  const ds = doc['dataset'];
  const model: SynthModel = { root: '', customs: [], declares: [], analysis: [], nodes: [] };
  for (const [key, value] of Object.entries(ds)) {
    if (key === 'root') model.root = text(value, 'dataset.root');
    else if (key === 'seed') model.seed = text(value, 'dataset.seed');
    else if (key === 'random') model.random = text(value, 'dataset.random');
    else if (key.startsWith('analysis.')) model.analysis.push([key.slice(9), text(value, `dataset.${key}`)]);
    else if (key === 'definitions') {
      for (const d of arrayOf(value, 'dataset.definitions')) {
        const m = stringMap(d, 'definition');
        model.customs.push({ name: m['name'] ?? '', className: m['class'] ?? '' });
      }
    } else if (key === 'declarations') {
      for (const d of arrayOf(value, 'dataset.declarations')) {
        const m = stringMap(d, 'declaration');
        model.declares.push({ name: m['name'] ?? '', value: m['value'] ?? '' });
      }
    } else if (key === 'nodes') {
      model.nodes = arrayOf(value, 'dataset.nodes').map((n, i) => readNode(n, i));
    } else throw new SynthError('SYNTH_PARSE', `unknown dataset key "${key}"`);
  }
  if (model.root === '') throw new SynthError('SYNTH_PARSE', 'model has no "root"');
  checkModelNames(model);
  return model;
}

/**
 * Where JSON text stops being well-formed, in our words: the engine's message is not passed on,
 * only the offset it reports (when it reports one) turned into a line and column.
 */
function jsonErrorPlace(text: string, err: unknown): string {
  const m = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (m === null) return '';
  const at = Number(m[1]);
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return ` (line ${line}, column ${column})`;
}

function arrayOf(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new SynthError('SYNTH_PARSE', `${where} must be an array`);
  return v;
}

function readNode(v: unknown, index: number): ModelNode {
  if (!isObject(v)) throw new SynthError('SYNTH_PARSE', `nodes[${index}] must be an object`);
  const type = text(v['type'], `nodes[${index}].type`);
  const name = text(v['name'], `nodes[${index}].name`);
  const attributes = stringMap(v['attributes'], `node "${name}" attributes`);
  const inputs: ModelInput[] =
    v['inputs'] === undefined
      ? []
      : arrayOf(v['inputs'], `node "${name}" inputs`).map((raw) => {
          const a = stringMap(raw, `an input of "${name}"`);
          const inputName = a['name'];
          if (inputName === undefined)
            throw new SynthError('SYNTH_PARSE', `an input of "${name}" has no name`);
          delete a['name'];
          return { name: inputName, attributes: a };
        });
  return { type, name, attributes, inputs };
}

/** Writes a model as JSON (2-space indent; `analysis.*` ahead of `root`, as the analyzer does). */
export function writeJsonModel(model: SynthModel): string {
  const ds: Record<string, unknown> = {};
  for (const [k, v] of model.analysis) ds[`analysis.${k}`] = v;
  if (model.seed !== undefined)
    ds['seed'] = /^-?\d{1,15}$/.test(model.seed) ? Number(model.seed) : model.seed;
  if (model.random !== undefined) ds['random'] = model.random;
  ds['root'] = model.root;
  if (model.customs.length > 0)
    ds['definitions'] = model.customs.map((c) => ({ name: c.name, class: c.className }));
  if (model.declares.length > 0)
    ds['declarations'] = model.declares.map((d) => ({ name: d.name, value: d.value }));
  ds['nodes'] = model.nodes.map((n) => {
    const out: Record<string, unknown> = { type: n.type, name: n.name };
    if (Object.keys(n.attributes).length > 0) out['attributes'] = n.attributes;
    if (n.inputs.length > 0) out['inputs'] = n.inputs.map((i) => ({ name: i.name, ...i.attributes }));
    return out;
  });
  return JSON.stringify({ dataset: ds }, null, 2) + '\n';
}
