/** XML model syntax (§1): `<dataset>` with `<root>`, optional `<definitions>`, and `<nodes>`. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SynthError } from '../errors.js';
import type { ModelInput, ModelNode, SynthModel } from './types.js';

type XmlElement = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
  commentPropName: '#comment',
  // Entities are decoded by `decode` below, in one pass, so `&amp;#10;` stays literal text.
  processEntities: false,
});

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five XML entities and numeric character references. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, ref: string) =>
    ref.startsWith('#x')
      ? String.fromCodePoint(parseInt(ref.slice(2), 16))
      : ref.startsWith('#')
        ? String.fromCodePoint(Number(ref.slice(1)))
        : NAMED[ref]!,
  );
}

/** The element's tag name (its one key besides the attribute bag), or null for text/comments. */
function tagOf(el: XmlElement): string | null {
  for (const key of Object.keys(el)) {
    if (key !== ':@' && key !== '#text' && key !== '#comment' && !key.startsWith('?')) return key;
  }
  return null;
}

function childrenOf(el: XmlElement, tag: string): XmlElement[] {
  const kids = el[tag];
  return Array.isArray(kids) ? (kids as XmlElement[]) : [];
}

function attrsOf(el: XmlElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(el[':@'] ?? {})) out[k] = decode(v);
  return out;
}

function elements(list: XmlElement[]): [string, XmlElement][] {
  const out: [string, XmlElement][] = [];
  for (const el of list) {
    const tag = tagOf(el);
    if (tag !== null) out.push([tag, el]);
  }
  return out;
}

/**
 * Parses an XML model.
 * @throws SynthError SYNTH_PARSE when the text is not well-formed or lacks the required parts
 */
export function parseXmlModel(text: string): SynthModel {
  const check = XMLValidator.validate(text);
  if (check !== true) {
    throw new SynthError('SYNTH_PARSE', `XML is not well-formed (line ${check.err.line}): ${check.err.msg}`);
  }
  const top = elements(parser.parse(text) as XmlElement[]);
  const datasetEntry = top.find(([tag]) => tag === 'dataset');
  if (datasetEntry === undefined) throw new SynthError('SYNTH_PARSE', 'XML model has no <dataset> element');
  const dataset = datasetEntry[1];
  const model: SynthModel = { root: '', customs: [], declares: [], analysis: [], nodes: [] };
  for (const [key, value] of Object.entries(attrsOf(dataset))) {
    if (key === 'seed') model.seed = value;
    else if (key === 'random') model.random = value;
    else if (key.startsWith('analysis.')) model.analysis.push([key.slice('analysis.'.length), value]);
    else throw new SynthError('SYNTH_PARSE', `unknown <dataset> attribute "${key}"`);
  }
  let rootSeen = false;
  for (const [tag, el] of elements(childrenOf(dataset, 'dataset'))) {
    if (tag === 'root') {
      model.root = attrsOf(el)['node'] ?? '';
      rootSeen = true;
    } else if (tag === 'definitions') {
      for (const [defTag, def] of elements(childrenOf(el, 'definitions'))) {
        const a = attrsOf(def);
        if (defTag === 'custom') model.customs.push({ name: a['name'] ?? '', className: a['class'] ?? '' });
        else if (defTag === 'declare')
          model.declares.push({ name: a['name'] ?? '', value: a['value'] ?? '' });
        else throw new SynthError('SYNTH_PARSE', `unknown <definitions> entry <${defTag}>`);
      }
    } else if (tag === 'nodes') {
      for (const [type, nodeEl] of elements(childrenOf(el, 'nodes')))
        model.nodes.push(readNode(type, nodeEl));
    } else {
      throw new SynthError('SYNTH_PARSE', `unknown <dataset> child <${tag}>`);
    }
  }
  if (!rootSeen || model.root === '') throw new SynthError('SYNTH_PARSE', 'model has no <root node="..."/>');
  return model;
}

function readNode(type: string, el: XmlElement): ModelNode {
  const attributes = attrsOf(el);
  const name = attributes['name'];
  if (name === undefined) throw new SynthError('SYNTH_PARSE', `<${type}> has no name attribute`);
  delete attributes['name'];
  const inputs: ModelInput[] = [];
  for (const [tag, child] of elements(childrenOf(el, type))) {
    if (tag !== 'input')
      throw new SynthError('SYNTH_PARSE', `<${type} name="${name}"> has an unexpected <${tag}>`);
    const a = attrsOf(child);
    const inputName = a['name'];
    if (inputName === undefined) throw new SynthError('SYNTH_PARSE', `an <input> of "${name}" has no name`);
    delete a['name'];
    inputs.push({ name: inputName, attributes: a });
  }
  return { type, name, attributes, inputs };
}

function esc(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

function attrText(attrs: Record<string, string>): string {
  return Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
}

/** Writes a model as XML (tab-indented like the cookbook's examples). */
export function writeXmlModel(model: SynthModel): string {
  const head: Record<string, string> = {};
  if (model.seed !== undefined) head['seed'] = model.seed;
  if (model.random !== undefined) head['random'] = model.random;
  for (const [k, v] of model.analysis) head[`analysis.${k}`] = v;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<dataset${attrText(head)}>`];
  lines.push(`\t<root node="${esc(model.root)}"/>`);
  if (model.customs.length > 0 || model.declares.length > 0) {
    lines.push('\t<definitions>');
    for (const c of model.customs)
      lines.push(`\t\t<custom name="${esc(c.name)}" class="${esc(c.className)}"/>`);
    for (const d of model.declares)
      lines.push(`\t\t<declare name="${esc(d.name)}" value="${esc(d.value)}"/>`);
    lines.push('\t</definitions>');
  }
  lines.push('\t<nodes>');
  for (const node of model.nodes) {
    const open = `\t\t<${node.type}${attrText({ name: node.name, ...node.attributes })}`;
    if (node.inputs.length === 0) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    for (const input of node.inputs)
      lines.push(`\t\t\t<input${attrText({ name: input.name, ...input.attributes })}/>`);
    lines.push(`\t\t</${node.type}>`);
  }
  lines.push('\t</nodes>', '</dataset>');
  return lines.join('\n') + '\n';
}
