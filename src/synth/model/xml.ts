/** XML model syntax (§1): `<dataset>` with `<root>`, optional `<definitions>`, and `<nodes>`. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SynthError, plainMessage } from '../errors.js';
import { checkModelNames, checkName, setOwn } from './names.js';
import type { ModelInput, ModelNode, SynthModel } from './types.js';

type XmlElement = Record<string, unknown> & { ':@'?: Record<string, string> };

// Element and attribute names reach us prefixed: the parser then never sees a name such as
// `constructor` or `toString` (which it refuses or renames), and `#text`, `#comment` and `?xml`
// keys cannot be confused with an element. A self-closing element gets the prefix twice.
const TAG = '#t:';
const ATTR = '#a:';

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
  transformTagName: (name) => TAG + name,
  transformAttributeName: (name) => ATTR + name,
});

const NAMED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

/** A numeric character reference's text, or a load error naming it when no such character exists. */
function codePoint(ref: string, value: number): string {
  if (!Number.isInteger(value) || value < 0 || value > 0x10ffff)
    throw new SynthError('SYNTH_PARSE', `"&${ref};" names no Unicode character`);
  return String.fromCodePoint(value);
}

/** Decodes the five XML entities and numeric character references. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, ref: string) =>
    ref.startsWith('#x')
      ? codePoint(ref, parseInt(ref.slice(2), 16))
      : ref.startsWith('#')
        ? codePoint(ref, Number(ref.slice(1)))
        : NAMED.get(ref)!,
  );
}

/** A name as written: the parser's key without our prefix (once or twice). */
function unprefixed(key: string, prefix: string): string {
  let name = key;
  while (name.startsWith(prefix)) name = name.slice(prefix.length);
  return name;
}

/** The element's key (its one key besides the attribute bag), or null for text/comments/PIs. */
function keyOf(el: XmlElement): string | null {
  for (const key of Object.keys(el)) if (key.startsWith(TAG)) return key;
  return null;
}

function childrenOf(el: XmlElement, key: string): XmlElement[] {
  const kids = el[key];
  return Array.isArray(kids) ? (kids as XmlElement[]) : [];
}

/** The element's attributes as written, `__proto__` refused. */
function attrsOf(el: XmlElement, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  const bag = el[':@'] ?? {};
  for (const key of Object.keys(bag))
    setOwn(out, unprefixed(key, ATTR), decode(bag[key]!), `${where}: an attribute`);
  return out;
}

/** Child elements as [tag name, element, key of its children]. */
function elements(list: XmlElement[]): [string, XmlElement, string][] {
  const out: [string, XmlElement, string][] = [];
  for (const el of list) {
    const key = keyOf(el);
    if (key !== null) out.push([unprefixed(key, TAG), el, key]);
  }
  return out;
}

/** The parser's document, or a parse error in our words (the parser's own text when it is a plain Error). */
function parsed(text: string): XmlElement[] {
  try {
    return parser.parse(text) as XmlElement[];
  } catch (err) {
    throw new SynthError('SYNTH_PARSE', `XML could not be read: ${plainMessage(err, 'the parser failed')}`);
  }
}

/** The validator's finding in our words; its other messages already are (`Unclosed tag 'a'.`). */
function notWellFormed(err: { code: string; msg: string; line: number }): string {
  // several elements left open: the validator prints its own stack of tag names as a JSON array
  if (err.code === 'InvalidXml' && err.msg.startsWith("Invalid '"))
    return 'XML is not well-formed: the text ends while elements are still open';
  return `XML is not well-formed (line ${err.line}): ${err.msg}`;
}

/**
 * Parses an XML model.
 * @throws SynthError SYNTH_PARSE when the text is not well-formed or lacks the required parts
 */
export function parseXmlModel(text: string): SynthModel {
  const check = XMLValidator.validate(text);
  if (check !== true) throw new SynthError('SYNTH_PARSE', notWellFormed(check.err));
  const top = elements(parsed(text));
  const datasetEntry = top.find(([tag]) => tag === 'dataset');
  if (datasetEntry === undefined) throw new SynthError('SYNTH_PARSE', 'XML model has no <dataset> element');
  const [, dataset, datasetKey] = datasetEntry;
  const model: SynthModel = { root: '', customs: [], declares: [], analysis: [], nodes: [] };
  for (const [key, value] of Object.entries(attrsOf(dataset, '<dataset>'))) {
    if (key === 'seed') model.seed = value;
    else if (key === 'random') model.random = value;
    else if (key.startsWith('analysis.')) model.analysis.push([key.slice('analysis.'.length), value]);
    else throw new SynthError('SYNTH_PARSE', `unknown <dataset> attribute "${key}"`);
  }
  let rootSeen = false;
  for (const [tag, el, key] of elements(childrenOf(dataset, datasetKey))) {
    if (tag === 'root') {
      model.root = attrsOf(el, '<root>')['node'] ?? '';
      rootSeen = true;
    } else if (tag === 'definitions') {
      for (const [defTag, def] of elements(childrenOf(el, key))) {
        const a = attrsOf(def, `<${defTag}>`);
        if (defTag === 'custom') model.customs.push({ name: a['name'] ?? '', className: a['class'] ?? '' });
        else if (defTag === 'declare')
          model.declares.push({ name: a['name'] ?? '', value: a['value'] ?? '' });
        else throw new SynthError('SYNTH_PARSE', `unknown <definitions> entry <${defTag}>`);
      }
    } else if (tag === 'nodes') {
      for (const [type, nodeEl, nodeKey] of elements(childrenOf(el, key)))
        model.nodes.push(readNode(type, nodeEl, nodeKey));
    } else {
      throw new SynthError('SYNTH_PARSE', `unknown <dataset> child <${tag}>`);
    }
  }
  if (!rootSeen || model.root === '') throw new SynthError('SYNTH_PARSE', 'model has no <root node="..."/>');
  checkModelNames(model);
  return model;
}

function readNode(type: string, el: XmlElement, key: string): ModelNode {
  checkName(type, 'an element under <nodes>');
  const attributes = attrsOf(el, `<${type}>`);
  const name = attributes['name'];
  if (name === undefined) throw new SynthError('SYNTH_PARSE', `<${type}> has no name attribute`);
  delete attributes['name'];
  const inputs: ModelInput[] = [];
  for (const [tag, child] of elements(childrenOf(el, key))) {
    if (tag !== 'input')
      throw new SynthError('SYNTH_PARSE', `<${type} name="${name}"> has an unexpected <${tag}>`);
    const a = attrsOf(child, `an <input> of "${name}"`);
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
