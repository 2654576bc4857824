/** The card's data: what the server sends (see src/mcp/card-tools.ts) and small helpers over it. */
import { COMPONENT_CATALOG, type ComponentGroup } from '../../src/calc/view-catalog.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Flag {
  constraintId: string;
  message: string;
  policy: string;
}

export interface GraphNode {
  key: string;
  kind: 'BASE' | 'DERIVED' | 'META' | 'CONSTRAINT' | 'EFFECT';
  label: string;
  expression: string | null;
}

export interface Graph {
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
  levels?: string[][];
}

/** An evaluated component: its type's fields, resolved (`value`, `text`, `rows`, …). */
export interface Component {
  id: string;
  type: string;
  bind?: string;
  label?: string;
  value?: Json;
  visible?: boolean;
  enabled?: boolean;
  readOnly?: boolean;
  required?: boolean;
  components?: Component[];
  rows?: { index: number; bind: string; components: Component[] }[];
  [key: string]: unknown;
}

export interface View {
  viewId: string;
  title?: string;
  layout: string;
  columns?: number;
  /** How numbers are formatted (a BCP 47 tag; an ISO 4217 code for currency fields naming none). */
  locale?: string;
  currency?: string;
  components: Component[];
}

export interface RejectedInput {
  path: string;
  value: unknown;
  reason: string;
}

export interface CardPayload {
  mode: 'stateless' | 'stored';
  modelId: string;
  version: string;
  specHash: string;
  spec?: JsonObject;
  given?: Record<string, Json>;
  state: JsonObject;
  meta: Record<string, Json>;
  flags: Flag[];
  views: View[];
  graph: Graph;
  outputs?: Record<string, Json>;
  rejectedInputs?: RejectedInput[];
  canShare?: boolean;
}

/** A name, an index, or '*' for `[*]` (a name can never be '*' in a canonical address). */
type Segment = string | number;

/** `$.a.b[0].c` → ['a', 'b', 0, 'c']; `[*]` → '*'. */
export function parsePath(address: string): Segment[] {
  const out: Segment[] = [];
  const re = /\.([^.[\]]+)|\[(\d+|\*)\]/g;
  const body = address.startsWith('$') ? address.slice(1) : address;
  for (const m of body.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else out.push(m[2] === '*' ? '*' : Number(m[2]));
  }
  return out;
}

export function formatPath(path: Segment[]): string {
  return path.reduce<string>(
    (s, seg) => s + (seg === '*' ? '[*]' : typeof seg === 'number' ? `[${seg}]` : `.${seg}`),
    '$',
  );
}

/** The value at an address (undefined when absent); `[*]` maps over the array's elements. */
export function valueAt(doc: unknown, address: string): Json | undefined {
  const walk = (node: unknown, path: Segment[]): unknown => {
    if (path.length === 0) return node;
    if (node === null || typeof node !== 'object') return undefined;
    const [seg, ...rest] = path as [Segment, ...Segment[]];
    if (seg === '*') return Array.isArray(node) ? node.map((e) => walk(e, rest)) : undefined;
    return walk((node as Record<string | number, unknown>)[seg], rest);
  };
  return walk(doc, parsePath(address)) as Json | undefined;
}

/** `$.items[2].lineTotal` → `$.items[*].lineTotal` (how the graph names row rules). */
export function generalize(address: string): string {
  return formatPath(parsePath(address).map((s) => (typeof s === 'number' ? '*' : s)));
}

/** Gives `[*]` in `pattern` the row indices of `concrete` (`$.items[*].price` in row 2). */
export function concretize(pattern: string, concrete: string): string {
  const p = parsePath(pattern);
  const c = parsePath(concrete);
  return formatPath(p.map((s, i) => (s === '*' && typeof c[i] === 'number' ? c[i] : s)));
}

export function nodeFor(graph: Graph, address: string): GraphNode | undefined {
  return graph.nodes.find((n) => n.key === address) ?? graph.nodes.find((n) => n.key === generalize(address));
}

/** Derived values as address → value, for the model context. */
export function outputsOf(card: CardPayload): Record<string, Json> {
  if (card.outputs) return card.outputs;
  const out: Record<string, Json> = {};
  for (const n of card.graph.nodes)
    if (n.kind === 'DERIVED' && !n.key.includes('[*]')) {
      const v = valueAt(card.state, n.key);
      if (v !== undefined) out[n.key] = v;
    }
  return out;
}

/** Every base value the card's views bind, as address → value. */
export function inputsOf(card: CardPayload): Record<string, Json> {
  const out: Record<string, Json> = {};
  const derived = new Set(card.graph.nodes.filter((n) => n.kind === 'DERIVED').map((n) => n.key));
  const walk = (components: Component[] | undefined): void => {
    for (const c of components ?? []) {
      if (c.bind && !derived.has(c.bind) && !derived.has(generalize(c.bind)) && c.value !== undefined)
        if (INPUT_TYPES.has(c.type) || CHOICE_TYPES.has(c.type)) out[c.bind] = c.value;
      walk(c.components);
      for (const r of c.rows ?? []) walk(r.components);
    }
  };
  for (const v of card.views) walk(v.components);
  return out;
}

/** Component types a person edits: the catalogue's inputs and choices. */
const typesOf = (group: ComponentGroup): Set<string> =>
  new Set(Object.keys(COMPONENT_CATALOG).filter((type) => COMPONENT_CATALOG[type]!.group === group));
export const INPUT_TYPES = typesOf('inputs');
export const CHOICE_TYPES = typesOf('choice');
