/**
 * The dependency graph as people and cards read it (`GET /models/{id}/graph`, the card's "Why is
 * this number?"): nodes with a kind, a readable label and their expression; edges from what a node
 * reads to the node; and levels, the evaluation order.
 */
import { namesOnly, parseAddress, WILDCARD } from './address.js';
import { isObject } from './json.js';
import type { CompiledModel } from './program.js';

export type GraphNodeKind = 'BASE' | 'DERIVED' | 'META' | 'CONSTRAINT' | 'EFFECT';

export interface GraphNode {
  key: string;
  kind: GraphNodeKind;
  label: string;
  expression: string | null;
}

export interface ModelGraph {
  modelId: string;
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
  levels: string[][];
}

const namesKey = (address: string): string | undefined => {
  const p = parseAddress(address);
  return p.ok ? namesOnly(p.path).join('\u0000') : undefined;
};

/** Labels people wrote: a component's `label` for its bind, else a schema `title`. */
function writtenLabels(model: CompiledModel): Map<string, string> {
  const labels = new Map<string, string>();
  const walk = (components: unknown): void => {
    if (!Array.isArray(components)) return;
    for (const c of components) {
      if (!isObject(c)) continue;
      if (typeof c.bind === 'string' && typeof c.label === 'string') {
        const k = namesKey(c.bind);
        if (k !== undefined && !labels.has(k)) labels.set(k, c.label);
      }
      if (Array.isArray(c.items))
        for (const item of c.items)
          if (isObject(item) && typeof item.bind === 'string' && typeof item.label === 'string') {
            const k = namesKey(item.bind);
            if (k !== undefined && !labels.has(k)) labels.set(k, item.label);
          }
      walk(c.components);
    }
  };
  const vd = model.spec.viewDefinition;
  if (isObject(vd) && Array.isArray(vd.views)) for (const v of vd.views) if (isObject(v)) walk(v.components);
  const schemaWalk = (schema: unknown, names: string[]): void => {
    if (!isObject(schema)) return;
    if (typeof schema.title === 'string' && names.length > 0) {
      const k = names.join('\u0000');
      if (!labels.has(k)) labels.set(k, schema.title);
    }
    if (isObject(schema.properties))
      for (const [name, sub] of Object.entries(schema.properties)) schemaWalk(sub, [...names, name]);
    if (isObject(schema.items)) schemaWalk(schema.items, names);
  };
  schemaWalk(model.spec.schema, []);
  return labels;
}

/** "monthlyPayment" → "Monthly payment"; "year_end" → "Year end". */
function humanize(address: string): string {
  const p = parseAddress(address);
  const last = p.ok ? [...p.path].reverse().find((s) => typeof s === 'string' && s !== WILDCARD) : undefined;
  if (typeof last !== 'string') return address;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The graph of a compiled model. */
export function modelGraph(model: CompiledModel): ModelGraph {
  const raw = model.graphJson();
  // a read like `items.lineTotal` names a `[*]` derivation without its wildcard: fold it into that node
  const derivedByNames = new Map<string, string>();
  for (const n of raw.nodes) if (n.kind === 'DERIVED') derivedByNames.set(namesKey(n.key) ?? n.key, n.key);
  const alias = new Map<string, string>();
  for (const n of raw.nodes) {
    if (n.kind !== 'BASE') continue;
    const target = derivedByNames.get(namesKey(n.key) ?? '');
    if (target !== undefined) alias.set(n.key, target);
  }
  const written = writtenLabels(model);
  const constraintMessages = new Map(model.spec.constraints.map((c) => [`$constraint:${c.id}`, c.message]));
  const label = (key: string, kind: GraphNodeKind): string => {
    if (kind === 'CONSTRAINT') return constraintMessages.get(key) ?? key;
    if (kind === 'EFFECT') return key.slice('$effect:'.length);
    const address = kind === 'META' ? key.slice(0, key.lastIndexOf('#')) : key;
    const base = written.get(namesKey(address) ?? '') ?? humanize(address);
    return kind === 'META' ? `${base} (${key.slice(key.lastIndexOf('#') + 1)})` : base;
  };
  const nodes: GraphNode[] = raw.nodes
    .filter((n) => !alias.has(n.key))
    .map((n) => ({ key: n.key, kind: n.kind, label: label(n.key, n.kind), expression: n.expression }));
  const seen = new Set<string>();
  const edges: ModelGraph['edges'] = [];
  for (const e of raw.edges) {
    const from = alias.get(e.from) ?? e.from;
    const k = `${from}\u0000${e.to}`;
    if (from === e.to || seen.has(k)) continue;
    seen.add(k);
    edges.push({ from, to: e.to });
  }
  const levels = raw.levels.map((l) => l.filter((k) => !alias.has(k))).filter((l) => l.length > 0);
  return { modelId: model.spec.id, nodes, edges, levels };
}
