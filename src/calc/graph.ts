/**
 * The dependency graph of a compiled spec: which derivations feed which nodes, evaluation levels,
 * cycle detection, and the dirty set a written address reaches.
 *
 * Everything is indexed by path (tries of target and dependency names, a trie of target segments),
 * so building the graph and finding a dirty set take time in proportion to the spec and to the
 * answer, never to the number of pairs of nodes. A `[*]` node (a row derivation or a row meta) is
 * reached either in every row or only in some: the row a write falls in (ROW), or the rows of an
 * array written whole that differ from before (ARRAY).
 */
import { formatPath, namesOnly, WILDCARD, type Path, type Segment } from './address.js';

export type NodeKind = 'DERIVED' | 'META' | 'CONSTRAINT' | 'EFFECT';

/** What the graph needs to know of each computing node. */
export interface GraphInput {
  kind: NodeKind;
  /** Node key: target address, `path#prop`, `$constraint:id`, `$effect:id`. */
  key: string;
  /** Target pattern for derivations and metas (its address part); null otherwise. */
  target: Path | null;
  deps: Path[];
  /** Per dependency: read through the node's own row only (`$parent.x`); absent = none is. */
  local?: boolean[];
  /** For ordering within a level: targets with `[*]` come after plain ones. */
  wildcard: boolean;
  /** `[*]` derivations and metas: the element pattern (up to and including the first `[*]`). */
  element?: Path | null;
  /** A `[*]` derivation reading `$index`: any change reaches every row (a row's place matters). */
  positional?: boolean;
}

/** A `[*]` node reached only in the row a write falls in (and rows that write created). */
export const ROW = 1;
/** A `[*]` node whose array (or a container above it) was written: the rows that differ from before. */
export const ARRAY = 2;
/** Every row (never stored in `partial`: a dirty node absent from it is dirty in every row). */
const ALL = 3;
export type RowScope = typeof ROW | typeof ARRAY;

export interface DirtySet {
  /** Dirty derivations in evaluation order. */
  derivations: number[];
  metas: number[];
  constraints: number[];
  effects: number[];
  /** `[*]` nodes reached in some rows only; a dirty node not listed is dirty in every row. */
  partial: ReadonlyMap<number, RowScope>;
}

export interface GraphJson {
  nodes: { key: string; kind: 'BASE' | NodeKind; label: string; expression: string | null }[];
  edges: { from: string; to: string }[];
  levels: string[][];
}

const NO_CHILDREN: ReadonlyMap<Segment, Trie> = new Map<Segment, never>();
/** The list of a node with no predecessor or dependent (never written: see `append`). */
const NO_NODES: number[] = Object.freeze([]) as unknown as number[];
const NO_FLAGS: boolean[] = Object.freeze([]) as unknown as boolean[];

/** Appends to `lists[i]`, giving it its own array in place of the shared empty one first. */
function append<T>(lists: T[][], i: number, value: T): void {
  const list = lists[i]!;
  if ((list as unknown) === NO_NODES || (list as unknown) === NO_FLAGS) lists[i] = [value];
  else list.push(value);
}

/** A trie keyed by path segments; `here` holds what ends at that node. */
class Trie {
  /** A leaf shares one empty map (never written): 30,000 targets made 30,000 empty maps. */
  children: ReadonlyMap<Segment, Trie> = NO_CHILDREN;
  readonly here: number[] = [];
  private below: number[] | null = null;

  insert(path: readonly Segment[], value: number): void {
    let node: Trie | undefined;
    for (let k = 0; k < path.length; k++) {
      const seg = path[k]!;
      const parent: Trie = node ?? this;
      node = parent.children.get(seg);
      if (!node) {
        if (parent.children === NO_CHILDREN) parent.children = new Map();
        (parent.children as Map<Segment, Trie>).set(seg, (node = new Trie()));
      }
    }
    (node ?? this).here.push(value);
  }

  /** Everything stored strictly below this node (memoised: the trie does not change once built). */
  strictlyBelow(): number[] {
    if (this.below) return this.below;
    const out: number[] = [];
    const stack: Trie[] = [...this.children.values()];
    while (stack.length > 0) {
      const t = stack.pop()!;
      for (const v of t.here) out.push(v);
      for (const c of t.children.values()) stack.push(c);
    }
    return (this.below = out);
  }
}

/** More written paths than this are walked together, not set by set (see `dirtyForAll`). */
const MANY_WRITES = 64;

const HARD = 1;
const SOFT = 2;
const NONLOCAL = 4;

/** Generalises a written path to the cache key of its dirty set: indices become `[*]`. */
function generalize(path: Path): string {
  return formatPath(path.map((s) => (typeof s === 'number' ? WILDCARD : s)));
}

export class DependencyGraph {
  readonly nodes: GraphInput[];
  /** dependents[i] = nodes that read node i's target (only derivations have dependents). */
  readonly dependents: number[][];
  /** aligned[i][k]: dependents[i][k] reads node i through its own row only, on the same rows. */
  private readonly aligned: boolean[][];
  /** depth per node (0 = reads no derivation). */
  readonly depth: number[];
  /** Derivation ids in evaluation order (level, plain before `[*]`, spec order). */
  readonly derivationOrder: number[];
  readonly rank: Int32Array;
  /** Nodes on a dependency cycle (empty when acyclic). */
  readonly cycle: string[];
  /** For `[*]` nodes: the position of the `[*]` in the target (the row index of a write); else -1. */
  readonly rowAt: Int32Array;
  private readonly elementKey: (string | null)[];
  private readonly depTrie = new Trie();
  private readonly targetTrie = new Trie();
  /** The arrays `[*]` nodes run over (exact segments, no wildcard). */
  private readonly arrayTrie = new Trie();
  private readonly arrays: Path[] = [];
  private readonly indexedTargets: boolean;
  private readonly dirtyCache = new Map<string, DirtySet>();
  /** Parsed addresses are shared objects, so identity is a cheap first-level cache key. */
  private readonly byIdentity = new WeakMap<Path, DirtySet>();
  /** Numbers for the cached dirty sets, and merges of several, keyed by those numbers. */
  private readonly setNumbers = new WeakMap<DirtySet, number>();
  private setsNumbered = 0;
  private readonly mergedCache = new Map<string, DirtySet>();
  private lastMany: { written: readonly Path[]; dirty: DirtySet } | undefined;

  constructor(nodes: GraphInput[]) {
    this.nodes = nodes;
    const n = nodes.length;
    this.rowAt = new Int32Array(n).fill(-1);
    this.elementKey = nodes.map(() => null);
    const arrayIds = new Map<string, number>();
    nodes.forEach((node, i) => {
      if ((node.kind === 'DERIVED' || node.kind === 'META') && node.element && node.element.length > 0) {
        this.rowAt[i] = node.element.length - 1;
        const key = formatPath(node.element);
        this.elementKey[i] = key;
        if (!arrayIds.has(key)) {
          const array = node.element.slice(0, -1);
          arrayIds.set(key, this.arrays.length);
          this.arrayTrie.insert(array, this.arrays.length);
          this.arrays.push(array);
        }
      }
    });
    this.indexedTargets = nodes.some((node) => node.target?.some((s) => typeof s === 'number') ?? false);

    // indexes: derivation targets by names (edges), every node's dependencies by names and every
    // target by segments (dirty sets). When every target is a derivation's and holds names only
    // (a generated model's plain fields), the two target tries would be equal: one is built.
    const derivations: number[] = [];
    let targetsAreDerivedNames = true;
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!;
      if (node.kind === 'DERIVED') derivations.push(i);
      if (node.kind === 'DERIVED' ? !node.target || namesOnly(node.target) !== node.target : node.target)
        targetsAreDerivedNames = false;
    }
    const targetNames = targetsAreDerivedNames ? this.targetTrie : new Trie();
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!;
      if (node.target) this.targetTrie.insert(node.target, i);
      if (node.kind === 'DERIVED' && !targetsAreDerivedNames)
        targetNames.insert(namesOnly(node.target ?? []), i);
      const deps = node.deps;
      for (let k = 0; k < deps.length; k++)
        this.depTrie.insert(namesOnly(deps[k]!), i * 2 + (node.local?.[k] ? 1 : 0));
    }

    // edges: a node reads a target or inside it (hard), or a container holding it (soft). A node
    // with no edge gets no map, and the per-node lists below share one empty list until written:
    // a model of 30,000 formulas over inputs made 120,000 maps and lists the collector then swept.
    const links: (Map<number, number> | undefined)[] = new Array<Map<number, number> | undefined>(n);
    const mark = (i: number, t: number, kind: number, local: boolean): void => {
      const own = (links[i] ??= new Map());
      own.set(t, (own.get(t) ?? 0) | kind | (local ? 0 : NONLOCAL));
    };
    for (let i = 0; i < n; i++) {
      const node = nodes[i]!;
      const deps = node.deps;
      for (let k = 0; k < deps.length; k++) {
        const local = node.local?.[k] ?? false;
        const dn = namesOnly(deps[k]!);
        let at: Trie | undefined = targetNames;
        for (let depth = 0; at; depth++) {
          const here = at.here;
          for (let h = 0; h < here.length; h++) mark(i, here[h]!, HARD, local);
          if (depth === dn.length) break;
          at = at.children.get(dn[depth]!);
        }
        if (at) for (const t of at.strictlyBelow()) if (t !== i) mark(i, t, SOFT, local);
      }
    }

    const preds: number[][] = new Array<number[]>(n).fill(NO_NODES);
    const soft: [number, number][] = [];
    const isAligned = (t: number, i: number, bits: number): boolean =>
      (bits & NONLOCAL) === 0 && this.elementKey[i] !== null && this.elementKey[i] === this.elementKey[t];
    for (let i = 0; i < n; i++) {
      const own = links[i];
      if (!own) continue;
      const softHere: number[] = [];
      for (const [t, bits] of own) {
        if (bits & HARD) append(preds, i, t);
        else softHere.push(t);
      }
      softHere.sort((a, b) => a - b);
      for (const t of softHere) soft.push([t, i]);
    }
    // Containers holding a derived value are ordered after it unless that would close a loop. Only
    // a soft edge inside a strongly connected part of the graph with every soft edge can close one.
    if (soft.length > 0) {
      const all = preds.map((p) => [...p]);
      for (const [t, i] of soft) all[i]!.push(t);
      const component = components(all);
      for (const [t, i] of soft) {
        if (component[t] !== component[i] || !dependsOn(preds, component, t, i)) append(preds, i, t);
      }
    }
    this.dependents = new Array<number[]>(n).fill(NO_NODES);
    this.aligned = new Array<boolean[]>(n).fill(NO_FLAGS);
    for (let i = 0; i < n; i++) {
      const before = preds[i]!;
      for (let k = 0; k < before.length; k++) {
        const t = before[k]!;
        append(this.dependents, t, i);
        append(this.aligned, t, isAligned(t, i, links[i]!.get(t)!));
      }
    }

    // Kahn: depth = 1 + the deepest predecessor
    const indeg = new Int32Array(n);
    for (let i = 0; i < n; i++) indeg[i] = preds[i]!.length;
    this.depth = new Array<number>(n).fill(0);
    const queue: number[] = [];
    for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
    let processed = 0;
    for (let q = 0; q < queue.length; q++) {
      const i = queue[q]!;
      processed++;
      const after = this.dependents[i]!;
      for (let k = 0; k < after.length; k++) {
        const d = after[k]!;
        this.depth[d] = Math.max(this.depth[d]!, this.depth[i]! + 1);
        if (--indeg[d]! === 0) queue.push(d);
      }
    }
    // Unprocessed nodes are on a loop or downstream of one; name only those on a loop.
    this.cycle = [];
    if (processed < n) {
      const component = components(preds);
      const size = new Map<number, number>();
      for (const c of component) size.set(c, (size.get(c) ?? 0) + 1);
      for (let i = 0; i < n; i++) {
        if (size.get(component[i]!)! > 1 || preds[i]!.includes(i)) this.cycle.push(nodes[i]!.key);
      }
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

  /** The array a `[*]` node runs over (its element pattern without the `[*]`). */
  rowArray(id: number): Path {
    return this.nodes[id]!.element!.slice(0, -1);
  }

  /** Arrays `[*]` nodes run over that `written` holds or is (a write that replaces their rows). */
  arraysWithin(written: Path): Path[] {
    let at: Trie | undefined = this.arrayTrie;
    for (const seg of written) {
      at = at.children.get(seg);
      if (!at) return [];
    }
    return [...at.here, ...at.strictlyBelow()].map((k) => this.arrays[k]!);
  }

  /**
   * Where `written` passes through a row of an array `[*]` nodes run over: each such array's
   * length in segments (so `written[len]` is the row index).
   */
  rowArraysCrossed(written: Path): number[] {
    const out: number[] = [];
    let at: Trie | undefined = this.arrayTrie;
    for (let k = 0; k < written.length && at; k++) {
      if (at.here.length > 0 && typeof written[k] === 'number') out.push(k);
      at = at.children.get(written[k]!);
    }
    return out;
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

  /** How much of node `i` a write reaches: its row, its array's changed rows, or everything. */
  private scopeOf(i: number, written: Path): number {
    const at = this.rowAt[i]!;
    if (at < 0) return ALL;
    const target = this.nodes[i]!.target!;
    const n = Math.min(at, written.length);
    for (let k = 0; k < n; k++) if (written[k] !== target[k]) return ALL;
    if (written.length <= at) return ARRAY; // the array itself, or a container holding it
    return typeof written[at] === 'number' ? ROW : ALL;
  }

  private computeDirty(written: Path): DirtySet {
    return this.computeDirtyFrom([written]);
  }

  /**
   * The nodes writes at `writtenPaths` reach, each with the widest scope any of them reaches it in.
   * A node's scope only grows along an edge (kept or made ALL), so one walk from every written path
   * at once ends where merging each path's walk would (`test/calc/graph-dirty-many.test.ts`).
   */
  private computeDirtyFrom(writtenPaths: readonly Path[]): DirtySet {
    const scope = new Map<number, number>();
    const work: number[] = [];
    const reach = (i: number, s0: number): void => {
      const s = this.nodes[i]!.positional ? ALL : s0;
      const old = scope.get(i);
      if (old === undefined || s > old) {
        scope.set(i, s);
        work.push(i);
      }
    };
    for (const written of writtenPaths) {
      // the node reads the written value, something inside it, or a container around it
      const wn = namesOnly(written);
      const readers = (entries: readonly number[]): void => {
        for (let k = 0; k < entries.length; k++) {
          const e = entries[k]!;
          const i = e >> 1;
          reach(i, e & 1 ? this.scopeOf(i, written) : ALL);
        }
      };
      let at: Trie | undefined = this.depTrie;
      for (let k = 0; at; k++) {
        readers(at.here);
        if (k === wn.length) {
          readers(at.strictlyBelow());
          break;
        }
        at = at.children.get(wn[k]!);
      }
      // writing a container recomputes targets inside it; a row write reaches `[*]` targets
      const targets: number[] = [];
      matchTargets(this.targetTrie, written, 0, targets);
      for (const i of targets) reach(i, this.scopeOf(i, written));
    }
    // transitively: a dependent reading through its own row keeps the rows, otherwise every row
    while (work.length > 0) {
      const i = work.pop()!;
      const s = scope.get(i)!;
      const deps = this.dependents[i]!;
      const aligned = this.aligned[i]!;
      for (let k = 0; k < deps.length; k++) reach(deps[k]!, aligned[k] ? s : ALL);
    }
    const out: DirtySet = { derivations: [], metas: [], constraints: [], effects: [], partial: new Map() };
    const partial = out.partial as Map<number, RowScope>;
    for (const [i, s] of scope) {
      const kind = this.nodes[i]!.kind;
      if (kind === 'DERIVED') out.derivations.push(i);
      else if (kind === 'META') out.metas.push(i);
      else if (kind === 'CONSTRAINT') out.constraints.push(i);
      else out.effects.push(i);
      if (s !== ALL) partial.set(i, s as RowScope);
    }
    out.derivations.sort((a, b) => this.rank[a]! - this.rank[b]!);
    out.metas.sort((a, b) => a - b);
    out.constraints.sort((a, b) => a - b);
    out.effects.sort((a, b) => a - b);
    return out;
  }

  /**
   * Merges the dirty sets of several written paths, keeping evaluation order. Many paths at once
   * (a model's defaults seeded at creation, a bulk write) are walked together instead: thousands of
   * per-path sets, each cached, then merged, were a tenth of a 30,000-formula create.
   */
  dirtyForAll(written: readonly Path[]): DirtySet {
    if (written.length === 1) return this.dirtyFor(written[0]!);
    if (written.length > MANY_WRITES) {
      // the last answer is kept for the same paths (creation asks twice: the cycle, then whether
      // that cycle computed every rule); compared path by path, since arrays can change
      const last = this.lastMany;
      if (last && last.written.length === written.length && last.written.every((p, k) => p === written[k]))
        return last.dirty;
      const dirty = this.computeDirtyFrom(written);
      this.lastMany = { written: [...written], dirty };
      return dirty;
    }
    // the per-path sets are cached objects: the same writes give the same merge
    const unique = [...new Set(written.map((w) => this.dirtyFor(w)))];
    if (unique.length === 1) return unique[0]!;
    const numbers = unique.map((s) => this.setNumber(s));
    // usually in order already (the same writes, the same order): no sort, no working copy
    for (let k = 1; k < numbers.length; k++)
      if (numbers[k - 1]! > numbers[k]!) {
        numbers.sort((a, b) => a - b);
        break;
      }
    const key = numbers.join(',');
    let merged = this.mergedCache.get(key);
    if (!merged) {
      merged = this.merge(unique);
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
    // a node is reached in some rows only if no write reaches all of it
    const scope = new Map<number, number>();
    for (const s of sets) {
      for (const ids of [s.derivations, s.metas]) {
        for (const id of ids) scope.set(id, Math.max(scope.get(id) ?? 0, s.partial.get(id) ?? ALL));
      }
    }
    const partial = new Map<number, RowScope>();
    for (const [id, s] of scope) if (s !== ALL) partial.set(id, s as RowScope);
    return {
      derivations: merge((s) => s.derivations, true),
      metas: merge((s) => s.metas, false),
      constraints: merge((s) => s.constraints, false),
      effects: merge((s) => s.effects, false),
      partial,
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

/**
 * Targets a written path reaches by segments: those it matches (same length, `[*]` on either side
 * matching any one segment) and those it is a proper prefix of.
 */
function matchTargets(trie: Trie, written: Path, k: number, out: number[]): void {
  if (k === written.length) {
    for (const v of trie.here) out.push(v);
    for (const v of trie.strictlyBelow()) out.push(v);
    return;
  }
  const seg = written[k]!;
  if (seg === WILDCARD) {
    for (const child of trie.children.values()) matchTargets(child, written, k + 1, out);
    return;
  }
  const exact = trie.children.get(seg);
  if (exact) matchTargets(exact, written, k + 1, out);
  const any = trie.children.get(WILDCARD);
  if (any) matchTargets(any, written, k + 1, out);
}

/**
 * Strongly connected components (iterative Tarjan) over predecessor lists; returns a component
 * number per node. Iterative so a chain of many thousands of derivations cannot overflow the stack.
 */
function components(preds: readonly (readonly number[])[]): Int32Array {
  const n = preds.length;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const frames: { v: number; next: number }[] = [];
  let counter = 0;
  let comps = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    frames.push({ v: root, next: 0 });
    index[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (frames.length > 0) {
      const f = frames[frames.length - 1]!;
      const edges = preds[f.v]!;
      if (f.next < edges.length) {
        const w = edges[f.next++]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          frames.push({ v: w, next: 0 });
        } else if (onStack[w]) {
          low[f.v] = Math.min(low[f.v]!, index[w]!);
        }
        continue;
      }
      frames.pop();
      if (frames.length > 0) {
        const parent = frames[frames.length - 1]!.v;
        low[parent] = Math.min(low[parent]!, low[f.v]!);
      }
      if (low[f.v] === index[f.v]) {
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp[w] = comps;
        } while (w !== f.v);
        comps++;
      }
    }
  }
  return comp;
}

/** Does `from` depend (transitively, inside its own component) on `on`? */
function dependsOn(
  preds: readonly (readonly number[])[],
  component: Int32Array,
  from: number,
  on: number,
): boolean {
  const c = component[from];
  const stack = [from];
  const seen = new Set<number>([from]);
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (i === on) return true;
    for (const p of preds[i]!) {
      if (component[p] === c && !seen.has(p)) {
        seen.add(p);
        stack.push(p);
      }
    }
  }
  return false;
}
