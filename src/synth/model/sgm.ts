/**
 * The compact `.sgm` syntax (§1.3): one `Name = Type(args)` per line, `dataset.*` settings,
 * `define.*` lines, `analysis.*` lines and whole-line `#` comments.
 *
 * Our extension: an input tuple may carry named per-input attributes after the weight,
 * `(Name, 2, role="normal")`, so every model can be written compactly without loss.
 */
import { findDescriptor } from '../components/catalog.js';
import type { ComponentDescriptor } from '../components/descriptor.js';
import { SynthError } from '../errors.js';
import { checkModelNames, setOwn } from './names.js';
import type { ModelInput, ModelNode, SynthModel } from './types.js';

/** Names a type's parameters (for positional arguments); default: the component catalog. */
export type DescriptorLookup = (type: string) => ComponentDescriptor | undefined;

type Value =
  | { kind: 'num' | 'str' | 'word' | 'ref'; text: string }
  | { kind: 'tuple'; items: Item[] }
  | { kind: 'named'; name: string; value: Value };
type Item = Value;

const SINGLE_INPUT = new Set(['arrange', 'calculate', 'redimension', 'tointeger', 'truncate']);

/** Tuples nest at most this deep (the reader recurses once per level). */
export const MAX_TUPLE_NESTING = 64;

class Lexer {
  pos = 0;
  private depth = 0;
  constructor(
    readonly src: string,
    readonly line: number,
  ) {}

  fail(msg: string): never {
    throw new SynthError('SYNTH_PARSE', `.sgm line ${this.line}: ${msg}`);
  }

  skip(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  peek(): string {
    this.skip();
    return this.src[this.pos] ?? '';
  }

  expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected "${ch}"`);
    this.pos++;
  }

  word(): string {
    this.skip();
    const m = /^[A-Za-z_][\w.-]*/.exec(this.src.slice(this.pos));
    if (m === null) this.fail('expected a name');
    this.pos += m[0].length;
    return m[0];
  }

  value(): Value {
    const c = this.peek();
    if (c === '(') {
      if (++this.depth > MAX_TUPLE_NESTING)
        this.fail(`tuples nested deeper than ${MAX_TUPLE_NESTING} levels`);
      this.pos++;
      const items: Item[] = [];
      if (this.peek() !== ')') {
        for (;;) {
          items.push(this.item());
          if (this.peek() === ',') this.pos++;
          else break;
        }
      }
      this.expect(')');
      this.depth--;
      return { kind: 'tuple', items };
    }
    if (c === '"') return { kind: 'str', text: this.string() };
    if (c === '$') {
      this.pos++;
      return { kind: 'ref', text: '$' + this.word() };
    }
    const num = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.src.slice(this.pos));
    if (num !== null) {
      this.pos += num[0].length;
      return { kind: 'num', text: num[0] };
    }
    return { kind: 'word', text: this.word() };
  }

  /** A value, or `name=value` inside an argument list or tuple. */
  item(): Item {
    const save = this.pos;
    const m = /^\s*([A-Za-z_][\w.]*)\s*=(?!=)/.exec(this.src.slice(this.pos));
    if (m !== null) {
      this.pos += m[0].length;
      return { kind: 'named', name: m[1]!, value: this.value() };
    }
    this.pos = save;
    return this.value();
  }

  string(): string {
    this.expect('"');
    let out = '';
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos++]!;
      if (ch === '"') return out;
      if (ch === '\\') {
        const e = this.src[this.pos++];
        out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : (e ?? '');
      } else out += ch;
    }
    return this.fail('unterminated string');
  }

  end(): void {
    if (this.peek() !== '') this.fail(`unexpected "${this.src.slice(this.pos)}"`);
  }
}

function scalarText(v: Value, lx: Lexer): string {
  if (v.kind === 'tuple') {
    const nested = v.items.some((i) => i.kind === 'tuple');
    return v.items.map((i) => (nested ? scalarText(i, lx) : scalarText(i, lx))).join(nested ? ';' : ',');
  }
  if (v.kind === 'named') return lx.fail(`unexpected named value "${v.name}"`);
  return v.text;
}

function isInputRef(v: Value): boolean {
  if (v.kind === 'word') return v.text !== 'true' && v.text !== 'false';
  return v.kind === 'tuple' && v.items[0]?.kind === 'word';
}

function toInput(v: Value, lx: Lexer): ModelInput {
  if (v.kind === 'word') return { name: v.text, attributes: {} };
  if (v.kind !== 'tuple') return lx.fail('expected an input');
  const [head, ...rest] = v.items;
  const input: ModelInput = { name: (head as { text: string }).text, attributes: {} };
  for (const item of rest) {
    if (item.kind === 'named')
      setOwn(
        input.attributes,
        item.name,
        scalarText(item.value, lx),
        `.sgm line ${lx.line}: an input attribute`,
      );
    else input.attributes['weight'] = scalarText(item, lx);
  }
  return input;
}

function parseAssignment(name: string, lx: Lexer, describe: DescriptorLookup): ModelNode {
  const type = lx.word();
  lx.expect('(');
  const args: Item[] = [];
  if (lx.peek() !== ')') {
    for (;;) {
      args.push(lx.item());
      if (lx.peek() === ',') lx.pos++;
      else break;
    }
  }
  lx.expect(')');
  lx.end();
  const node: ModelNode = { type, name, attributes: {}, inputs: [] };
  const desc = describe(type);
  const positional = args.filter((a) => a.kind !== 'named');
  let firstNamed = args.findIndex((a) => a.kind === 'named');
  if (firstNamed < 0) firstNamed = args.length;
  if (args.slice(firstNamed).some((a) => a.kind !== 'named'))
    lx.fail('positional argument after a named one');
  let k = 0;
  // Unknown (Pro) types: leading node references are taken as inputs, as for any filter.
  if (desc === undefined || desc.category === 'filter') {
    const max = SINGLE_INPUT.has(type.toLowerCase()) ? 1 : Infinity;
    while (k < positional.length && k < max && isInputRef(positional[k]!))
      node.inputs.push(toInput(positional[k++]!, lx));
  }
  const order = desc?.parameters.map((p) => p.name) ?? (type === 'Import' ? ['file'] : []);
  for (let p = 0; k < positional.length; k++, p++) {
    const pname = order[p];
    if (pname === undefined) lx.fail(`too many positional arguments for ${type}`);
    node.attributes[pname] = scalarText(positional[k]!, lx);
  }
  for (const a of args.slice(firstNamed)) {
    if (a.kind === 'named')
      setOwn(node.attributes, a.name, scalarText(a.value, lx), `.sgm line ${lx.line}: an attribute`);
  }
  return node;
}

/**
 * Parses a compact `.sgm` model.
 * @throws SynthError SYNTH_PARSE with the line number on any syntax error
 */
export function parseSgmModel(text: string, describe: DescriptorLookup = findDescriptor): SynthModel {
  const model: SynthModel = { root: '', customs: [], declares: [], analysis: [], nodes: [] };
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const lx = new Lexer(line, index + 1);
    const lhs = lx.word();
    if (lhs === 'define.declare' || lhs === 'define.custom') {
      const name = lx.word();
      lx.expect('=');
      const v = lx.value();
      lx.end();
      const value = scalarText(v, lx);
      if (lhs === 'define.declare') model.declares.push({ name, value });
      else model.customs.push({ name, className: value });
      return;
    }
    lx.expect('=');
    if (lhs.startsWith('dataset.') || lhs.startsWith('analysis.')) {
      const v = lx.value();
      lx.end();
      const value = scalarText(v, lx);
      if (lhs === 'dataset.root') model.root = value;
      else if (lhs === 'dataset.seed') model.seed = value;
      else if (lhs === 'dataset.random') model.random = value;
      else if (lhs.startsWith('analysis.')) model.analysis.push([lhs.slice(9), value]);
      else lx.fail(`unknown setting "${lhs}"`);
      return;
    }
    model.nodes.push(parseAssignment(lhs, lx, describe));
  });
  if (model.root === '') throw new SynthError('SYNTH_PARSE', '.sgm model has no "dataset.root = ..." line');
  checkModelNames(model);
  return model;
}

function quote(s: string): string {
  return (
    '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r') + '"'
  );
}

/** A value as written: bare when it reads back identically, quoted otherwise. */
function valueText(s: string): string {
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return s;
  if (/^\$[A-Za-z_][\w.-]*$/.test(s) || s === 'true' || s === 'false') return s;
  return quote(s);
}

function inputText(input: ModelInput, bare: boolean): string {
  const extra = Object.entries(input.attributes);
  if (bare && extra.length === 0) return input.name;
  const parts = [input.name];
  for (const [k, v] of extra) parts.push(k === 'weight' ? valueText(v) : `${k}=${valueText(v)}`);
  // A weight must stay positional (second item), so put it first among the extras.
  const weight = input.attributes['weight'];
  if (weight !== undefined) {
    parts.splice(parts.indexOf(valueText(weight)), 1);
    parts.splice(1, 0, valueText(weight));
  }
  return `(${parts.join(', ')})`;
}

/** Writes a model in the compact syntax; attributes are always written by name. */
export function writeSgmModel(model: SynthModel): string {
  const out = [`dataset.root = ${model.root}`];
  if (model.seed !== undefined) out.push(`dataset.seed = ${valueText(model.seed)}`);
  if (model.random !== undefined) out.push(`dataset.random = ${quote(model.random)}`);
  for (const [k, v] of model.analysis) out.push(`analysis.${k} = ${quote(v)}`);
  for (const c of model.customs) out.push(`define.custom ${c.name} = ${quote(c.className)}`);
  for (const d of model.declares) out.push(`define.declare ${d.name} = ${quote(d.value)}`);
  out.push('');
  for (const node of model.nodes) {
    const args = node.inputs.map((i) => inputText(i, true));
    for (const [k, v] of Object.entries(node.attributes)) args.push(`${k}=${valueText(v)}`);
    out.push(`${node.name} = ${node.type}(${args.join(', ')})`);
  }
  return out.join('\n') + '\n';
}
