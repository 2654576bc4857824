/**
 * The dependency graph of a compiled spec: which derivations feed which nodes, evaluation levels,
 * cycle detection, and the dirty set a written address reaches.
 */
import { formatPath, isProperPrefix, namesOnly, patternMatches, WILDCARD, type Path } from './address.js';

export type NodeKind = 'DERIVED' | 'META' | 'CONSTRAINT' | 'EFFECT';

/** What the graph needs to know of each computing node. */
export interface GraphInput {
  kind: NodeKind;
  /** Node key: target address, `path#prop`, `$constraint:id`, `$effect:id`. */
  key: string;
  /** Target pattern for derivations and metas (its address part); null otherwise. */
  target: Path | null;
  deps: Path[];
  /** For ordering within a level: targets with `[*]` come after plain ones. */
  wildcard: boolean;
}

export interface DirtySet {
  derivations: number[];
  metas: number[];
  constraints: number[];
  effects: number[];
}

export interface GraphJson {
  nodes: { key: string; kind: 'BASE' | NodeKind; label: string; expression: string | null }[];
  edges: { from: string; to: string }[];
  levels: string[][];
}

function namesPrefix(a: readonly string[], b: readonly string[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Generalises a written path to the cache key of its dirty set: indices become `[*]`. */
function generalize(path: Path): string {
  return formatPath(path.map((s) => (typeof s === 'number' ? WILDCARD : s)));
}

export class DependencyGraph {
  readonly nodes: GraphInput[];
  /** dependents[i] = nodes that read node i's target (only derivations have dependents). */
  readonly dependents: number[][];
  /** depth per node (0 = reads no derivation). */
  readonly depth: number[];
  /** Derivation ids in evaluation order (level, plain before `[*]`, spec order). */
  readonly derivationOrder: number[];
  readonly rank: Int32Array;
  /** Nodes on a dependency cycle (empty when acyclic). */
  readonly cycle: string[];
  private readonly namesCache: string[][];
  private readonly indexedTargets: boolean;
  private readonly dirtyCache = new Map<string, DirtySet>();
  /** Parsed addresses are shared objects, so identity is a cheap first-level cache key. */
  private readonly byIdentity = new WeakMap<Path, DirtySet>();
  /** Numbers for the cached dirty sets, and merges of several, keyed by those numbers. */
  private readonly setNumbers = new WeakMap<DirtySet, number>();
  private setsNumbered = 0;
  private readonly mergedCache = new Map<string, DirtySet>();

  constructor(nodes: GraphInput[]) {
    this.nodes = nodes;
    const n = nodes.length;
    this.dependents = nodes.map(() => []);
    this.namesCache = nodes.map((node) => (node.target ? namesOnly(node.target) : []));
    this.indexedTargets = nodes.some((node) => node.target?.some((s) => typeof s === 'number') ?? false);
    const depNames = nodes.map((node) => node.deps.map((d) => namesOnly(d)));
    const derivations = nodes.map((node, i) => (node.kind === 'DERIVED' ? i : -1)).filter((i) => i >= 0);

    const preds: Set<number>[] = nodes.map(() => new Set());
    const soft: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      for (const t of derivations) {
        const tn = this.namesCache[t]!;
        for (const dn of depNames[i]!) {
          if (namesPrefix(tn, dn)) {
            preds[i]!.add(t); // reads the target or inside it
            break;
          }
          if (namesPrefix(dn, tn) && t !== i) soft.push([t, i]); // reads a container holding it
        }
      }
    }
    // Containers holding a derived value are ordered after it unless that would close a loop.
    for (const [from, to] of soft) {
      if (preds[to]!.has(from)) continue;
      if (!reaches(preds, from, to)) preds[to]!.add(from);
    }
    for (let i = 0; i < n; i++) for (const p of preds[i]!) this.dependents[p]!.push(i);

    // Kahn over derivations (the only nodes with successors); the rest hang off them.
    const indeg = new Int32Array(n);
    for (let i = 0; i < n; i++) indeg[i] = preds[i]!.size;
    this.depth = new Array<number>(n).fill(0);
    const queue: number[] = [];
    for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
    const done = new Uint8Array(n);
    for (let q = 0; q < queue.length; q++) {
      const i = queue[q]!;
      done[i] = 1;
      for (const d of this.dependents[i]!) {
        this.depth[d] = Math.max(this.depth[d]!, this.depth[i]! + 1);
        if (--indeg[d]! === 0) queue.push(d);
      }
    }
    // Undone nodes are on a loop or downstream of one; name only those on a loop.
    this.cycle = [];
    for (let i = 0; i < n; i++) {
      if (!done[i] && onLoop(this.dependents, done, i)) this.cycle.push(nodes[i]!.key);
    }

    this.derivationOrder = derivations.slice().sort((a, b) => {
      const da = this.depth[a]! - this.depth[b]!;
      if (da !== 0) return da;
      const wa = Number(nodes[a]!.wildcard) - Number(nodes[b]!.wildcard);
      return wa !== 0 ? wa : a - b;
    });
    this.rank = new Int32Array(n);
    this.derivationOrder.forEach((id, r) => (this.rank[id] = r));
  }

  /** Every node a write at `written` makes dirty (cached by the path's shape). */
  dirtyFor(written: Path): DirtySet {
    const known = this.byIdentity.get(written);
    if (known) return known;
    // a target naming a concrete index makes the answer index-specific: cache by the exact path
    const key = this.indexedTargets ? formatPath(written) : generalize(written);
    let hit = this.dirtyCache.get(key);
    if (!hit) {
      hit = this.computeDirty(written);
      if (this.dirtyCache.size > 10_000) this.dirtyCache.clear();
      this.dirtyCache.set(key, hit);
    }
    this.byIdentity.set(written, hit);
    return hit;
  }

  private computeDirty(written: Path): DirtySet {
    const wn = namesOnly(written);
    const marked = new Uint8Array(this.nodes.length);
    const stack: number[] = [];
    this.nodes.forEach((node, i) => {
      let hit = false;
      // the node reads the written value, something inside it, or a container around it
      for (const d of node.deps) {
        const dn = namesOnly(d);
        if (namesPrefix(dn, wn) || namesPrefix(wn, dn)) {
          hit = true;
          break;
        }
      }
      // writing a container recomputes targets inside it; a row write reaches `[*]` targets
      if (
        !hit &&
        node.target &&
        (isProperPrefix(written, node.target) || patternMatches(node.target, written))
      )
        hit = true;
      if (hit && !marked[i]) {
        marked[i] = 1;
        stack.push(i);
      }
    });
    while (stack.length > 0) {
      const i = stack.pop()!;
      for (const d of this.dependents[i]!) {
        if (!marked[d]) {
          marked[d] = 1;
          stack.push(d);
        }
      }
    }
    const out: DirtySet = { derivations: [], metas: [], constraints: [], effects: [] };
    for (const id of this.derivationOrder) if (marked[id]) out.derivations.push(id);
    this.nodes.forEach((node, i) => {
      if (!marked[i]) return;
      if (node.kind === 'META') out.metas.push(i);
      else if (node.kind === 'CONSTRAINT') out.constraints.push(i);
      else if (node.kind === 'EFFECT') out.effects.push(i);
    });
    return out;
  }

  /** Merges the dirty sets of several written paths, keeping evaluation order. */
  dirtyForAll(written: readonly Path[]): DirtySet {
    if (written.length === 1) return this.dirtyFor(written[0]!);
    const sets = written.map((w) => this.dirtyFor(w));
    // the per-path sets are cached objects: the same writes give the same merge
    let key = '';
    for (const s of sets) key += `${this.setNumber(s)},`;
    let merged = this.mergedCache.get(key);
    if (!merged) {
      merged = this.merge(sets);
      if (this.mergedCache.size > 10_000) this.mergedCache.clear();
      this.mergedCache.set(key, merged);
    }
    return merged;
  }

  private setNumber(set: DirtySet): number {
    let n = this.setNumbers.get(set);
    if (n === undefined) this.setNumbers.set(set, (n = this.setsNumbered++));
    return n;
  }

  private merge(sets: readonly DirtySet[]): DirtySet {
    const merge = (pick: (s: DirtySet) => number[], byRank: boolean): number[] => {
      const all = new Set<number>();
      for (const s of sets) for (const id of pick(s)) all.add(id);
      const list = [...all];
      return byRank ? list.sort((a, b) => this.rank[a]! - this.rank[b]!) : list.sort((a, b) => a - b);
    };
    return {
      derivations: merge((s) => s.derivations, true),
      metas: merge((s) => s.metas, false),
      constraints: merge((s) => s.constraints, false),
      effects: merge((s) => s.effects, false),
    };
  }

  /** Nodes, edges and levels as the graph endpoint shows them (base fields included). */
  toJson(expressions: (string | null)[], labels: string[]): GraphJson {
    const nodes: GraphJson['nodes'] = [];
    const edges: GraphJson['edges'] = [];
    const baseKeys = new Map<string, number>();
    const derivedKeys = new Set(this.nodes.filter((n) => n.kind === 'DERIVED').map((n) => n.key));
    this.nodes.forEach((node, i) => {
      nodes.push({
        key: node.key,
        kind: node.kind,
        label: labels[i] ?? node.key,
        expression: expressions[i] ?? null,
      });
    });
    const depthOf = new Map<string, number>();
    this.nodes.forEach((node, i) => {
      for (const d of node.deps) {
        const key = formatPath(d);
        if (derivedKeys.has(key)) continue;
        if (!baseKeys.has(key)) {
          baseKeys.set(key, nodes.length);
          nodes.push({ key, kind: 'BASE', label: key, expression: null });
          depthOf.set(key, 0);
        }
        edges.push({ from: key, to: node.key });
      }
      for (const p of this.dependents[i]!) edges.push({ from: node.key, to: this.nodes[p]!.key });
      depthOf.set(node.key, this.depth[i]! + (node.deps.length > 0 ? 1 : 0));
    });
    const levels: string[][] = [];
    for (const node of nodes) {
      const d = depthOf.get(node.key) ?? 0;
      (levels[d] ??= []).push(node.key);
    }
    const seen = new Set<string>();
    const uniqueEdges = edges.filter((e) => {
      const k = `${e.from}\u0000${e.to}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return { nodes, edges: uniqueEdges, levels: levels.map((l) => l ?? []) };
  }
}

function onLoop(dependents: number[][], done: Uint8Array, start: number): boolean {
  const stack = [...dependents[start]!];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (i === start) return true;
    if (seen.has(i) || done[i]) continue;
    seen.add(i);
    for (const d of dependents[i]!) stack.push(d);
  }
  return false;
}

/** Does `from` reach `to` through predecessor links (i.e. is `to` upstream of `from`)? */
function reaches(preds: Set<number>[], from: number, to: number): boolean {
  // adding edge from→to closes a loop if `from` already depends (transitively) on `to`
  const stack = [from];
  const seen = new Set<number>([from]);
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (i === to) return true;
    for (const p of preds[i]!) {
      if (!seen.has(p)) {
        seen.add(p);
        stack.push(p);
      }
    }
  }
  return false;
}
