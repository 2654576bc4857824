/**
 * A live model: base document, derived and meta caches, and the reactive cycle that keeps them
 * consistent. One cycle: validate → write → defaults for new containers → dirty propagation →
 * derive by level → meta → constraints (rollback or flag) → effects as data → commit.
 */
import { formatPath, isProperPrefix, parseAddress, patternMatches, WILDCARD, type Path } from './address.js';
import {
  ABSENT,
  deleteAt,
  expandPattern,
  getAt,
  IndexLimitError,
  MAX_ARRAY_INDEX,
  loadReplayEntry,
  replayUndo,
  storeReplayEntry,
  setAt,
  spliceAt,
  UndoLog,
} from './document.js';
import {
  CalcError,
  constraintViolationError,
  schemaViolationError,
  type ConstraintViolation,
} from './errors.js';
import { compileExpression, isTruthy } from './expression.js';
import { answerNow, evaluate, evaluateSoon, type EvalOutcome } from './evaluation.js';
import { NOT_HANDLED } from './fast-sum.js';
import {
  appendAll,
  cloneJson,
  identicalJson,
  isObject,
  jsonEqual,
  type JsonObject,
  type JsonValue,
} from './json.js';
import { ARRAY, ROW, type DirtySet } from './graph.js';
import type { CompiledModel, ConstraintNode, DerivationNode, EffectNode, MetaNode } from './program.js';
import { effectiveSchema, schemaAt, seedSchemaDefaults, type SchemaViolation } from './schema.js';
import { checkWritten, firstAbsentPrefix, objectsWithin, preWriteViolations } from './write-check.js';
import { writeSchemaChecker, type WriteSchemaChecker } from './write-schema.js';
import { projectPaths } from './projection.js';
import { META_PROPERTIES } from './spec.js';
import {
  HISTORY_CAPACITY,
  nonFiniteMessage,
  Ring,
  TRACE_CAPACITY,
  type DerivationTrace,
  type HistoryEntry,
  type StoredHistoryEntry,
} from './traces.js';
import { historyRowText } from './history.js';

/** Padding rows turned into objects per written array (past that, they stay null). */
const MAX_PADDING_ROWS = 10_000;
/** Calls whose reads the dependency extractor does not see (validator.ts warns of them). */
const INVISIBLE_READS = /\$(eval|lookup)\b/;

export interface DispatchedEffect {
  effectId: string;
  executor: string;
  emit?: string;
  payload: JsonValue;
}

export interface MutationResult {
  success: true;
  mutatedPaths: string[];
  derivedUpdated: string[];
  metaUpdated: string[];
  flaggedConstraints: ConstraintViolation[];
  dispatchedEffects: DispatchedEffect[];
  traces: DerivationTrace[];
}

export interface RuntimeState {
  base: JsonObject;
  derived: Record<string, JsonValue>;
  meta: Record<string, JsonValue>;
  /**
   * Recent committed cycles, so `get_state` with `at` still answers after a reload. A durable store
   * keeps them as one row per cycle (`newestHistoryRow`, history.ts) and puts them back here when
   * it loads; states written before that carry the ring themselves.
   */
  history?: StoredHistoryEntry[];
}

function storedHistoryEntry(h: HistoryEntry): StoredHistoryEntry {
  return {
    timestamp: h.timestamp,
    changes: h.changes.map(storeReplayEntry).filter((e) => e !== undefined),
    after: h.after.map(storeReplayEntry).filter((e) => e !== undefined),
  };
}

/** What an entry of a transaction's cache log undoes (see Transaction.log). */
const UNDO_CALL = 0;
const UNDO_MAP_SET = 1;
const UNDO_MAP_DELETE = 2;
const UNDO_SET_ADD = 3;
const UNDO_SET_DELETE = 4;

/** Undo for everything a cycle touches: both documents and the caches. */
class Transaction {
  readonly base = new UndoLog();
  readonly merged = new UndoLog(true);
  /**
   * The caches' changes, in order, as flat groups of four (what to do, the container, the key, the
   * old value) rather than a closure each: a cycle of 2,000 rules made 4,000 closures for the
   * collector. Rolled back newest first, like the documents' logs.
   */
  private readonly log: unknown[] = [];
  /** A change undone by calling `undo`. */
  onRollback(undo: () => void): void {
    this.log.push(UNDO_CALL, undo, undefined, undefined);
  }
  /** `map` had `old` under `key` (had), or nothing. */
  mapWas(map: Map<unknown, unknown>, key: unknown, had: boolean, old: unknown): void {
    this.log.push(had ? UNDO_MAP_SET : UNDO_MAP_DELETE, map, key, old);
  }
  /** `value` was added to `set` (added), or deleted from it. */
  setChanged(set: Set<unknown>, value: unknown, added: boolean): void {
    this.log.push(added ? UNDO_SET_DELETE : UNDO_SET_ADD, set, value, undefined);
  }
  rollback(): void {
    const log = this.log;
    for (let i = log.length - 4; i >= 0; i -= 4) {
      const container = log[i + 1];
      switch (log[i]) {
        case UNDO_CALL:
          (container as () => void)();
          break;
        case UNDO_MAP_SET:
          (container as Map<unknown, unknown>).set(log[i + 2], log[i + 3]);
          break;
        case UNDO_MAP_DELETE:
          (container as Map<unknown, unknown>).delete(log[i + 2]);
          break;
        case UNDO_SET_ADD:
          (container as Set<unknown>).add(log[i + 2]);
          break;
        case UNDO_SET_DELETE:
          (container as Set<unknown>).delete(log[i + 2]);
          break;
      }
    }
    log.length = 0;
    this.merged.rollback();
    this.base.rollback();
  }
}

function mapSet<K, V>(map: Map<K, V>, key: K, value: V, tx: Transaction | undefined): void {
  if (tx) {
    const old = map.get(key);
    tx.mapWas(map, key, old !== undefined || map.has(key), old);
  }
  map.set(key, value);
}

function mapDelete<K, V>(map: Map<K, V>, key: K, tx: Transaction | undefined): void {
  if (!map.has(key)) return;
  tx?.mapWas(map, key, true, map.get(key));
  map.delete(key);
}

function setAdd<T>(set: Set<T>, value: T, tx: Transaction | undefined): void {
  if (set.has(value)) return;
  set.add(value);
  tx?.setChanged(set, value, true);
}

function setDelete<T>(set: Set<T>, value: T, tx: Transaction | undefined): void {
  if (!set.has(value)) return;
  set.delete(value);
  tx?.setChanged(set, value, false);
}

/** Above this many rows written in one array, the cycle compares them with the rows as they were. */
const MANY_ROWS = 8;

/** What one cycle recomputes of the `[*]` nodes it reaches in some rows only. */
interface RowPlan {
  dirty: DirtySet;
  /** ROW nodes: the rows the writes fall in. */
  rows: Map<number, Set<number>>;
  /** Arrays written whole: their rows before the writes (absent: no row to keep). */
  before: Map<string, unknown[]>;
  /** Per array written whole, found once per cycle: the old row each new row equals, or -1. */
  sources: Map<string, Int32Array>;
}

/** JSON form of an expression result: undefined → null, sequences → arrays, functions dropped. */
function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  const v = cloneJson(value);
  return v === undefined ? null : (v as JsonValue);
}

/** The phases of one cycle, in order (a phase with nothing to do is still announced). */
export type CyclePhase = 'validate' | 'write' | 'derive' | 'constraints' | 'effects';

export interface RuntimeOptions {
  /** How many committed cycles history keeps (0: none). */
  historyCapacity?: number;
  /** Milliseconds since the epoch for history timestamps; Date.now unless given. */
  now?: () => number;
}

export interface MutateOptions {
  /** Skip schema validation (creation seeding, restore already validated). */
  skipValidation?: boolean;
  /** Called as each phase begins: an adapter times the phases (tracing) without the engine knowing how. */
  onPhase?: (phase: CyclePhase) => void;
}

export class ModelRuntime {
  readonly model: CompiledModel;
  private base: Record<string, unknown> = {};
  /** Base with every derived value spliced in; kept current write by write. */
  private merged: Record<string, unknown> = {};
  private readonly derived = new Map<string, JsonValue>();
  /** Derived addresses whose value is a container (writes inside them leave the merged doc alone). */
  private readonly derivedContainers = new Set<string>();
  /** `[*]` derivations and metas: how many rows of their array they hold values for. */
  private readonly rowCounts = new Map<number, number>();
  private readonly meta = new Map<string, JsonValue>();
  /** `[*]` metas: the concrete keys each row produced (so a row's vanished keys can be dropped). */
  private readonly metaRows = new Map<number, Map<number, string[]>>();
  private readonly staleLazy = new Set<number>();
  private writeChecker: WriteSchemaChecker | undefined;
  readonly traces = new Ring<DerivationTrace>(TRACE_CAPACITY);
  private history: HistoryEntry[] = [];
  private historyCapacity = HISTORY_CAPACITY;
  private readonly hasDefaultRules: boolean;
  /** Derivations that read the whole root (`$`, `$$`, `$keys($)`): they read a view, see rootView. */
  private readonly rootReaders: ReadonlySet<number>;
  /** Lazy derivations something computed in a cycle reads: they are computed in the cycle too. */
  private readonly lazyInCycle: ReadonlySet<number>;

  /** The clock that stamps history entries (tests pass one they control). */
  readonly now: () => number;

  constructor(model: CompiledModel, options: RuntimeOptions = {}) {
    this.model = model;
    this.now = options.now ?? Date.now;
    this.hasDefaultRules = model.defaults.length > 0;
    this.rootReaders = new Set(
      model.derivations.filter((d) => d.deps.some((p) => p.length === 0)).map((d) => d.id),
    );
    this.lazyInCycle = lazyReadInCycle(model);
    if (options.historyCapacity !== undefined) this.historyCapacity = options.historyCapacity;
  }

  // ---------------------------------------------------------------- creation

  /**
   * Seeds a new model: the `$` default rule, then schema defaults; if anything was written, one
   * reactive cycle driven by those paths. `recomputeAll` then evaluates every eager derivation and
   * meta (what creation does; the test runner does not).
   * @throws CalcError when seeding is refused by a rollback constraint
   */
  async initialize(options: { recomputeAll: boolean }): Promise<MutationResult | null> {
    const tx = new Transaction();
    let result: MutationResult | null = null;
    const written: Path[] = [];
    try {
      await this.applyDefaultRules([[]], written, tx);
      const seeded = seedSchemaDefaults(
        this.model.spec.schema,
        this.base,
        (p) => this.model.derivedTargets.has(formatPath(p)),
        (p, v) => this.writeBase(p, v, tx),
      );
      appendAll(written, seeded);
      this.checkRootRequired();
      if (written.length > 0) {
        result = await this.runCycle(written.map(formatPath), written, tx);
      }
    } catch (err) {
      tx.rollback();
      throw err;
    }
    // what the seeding cycle derived is current: computing it again gives the same values
    if (options.recomputeAll) await this.recomputeAll({ derivations: !this.seedingDerivedAll(written) });
    return result;
  }

  /**
   * Whether the seeding cycle (the writes `written`) computed, in all their rows, every derivation
   * `recomputeAll` would: then it did exactly what recomputeAll would do (the same rules in the same
   * rank order, each reading only rules ranked before it), and computing them again gives the same
   * values (a 30,000-formula create derived each formula twice). A read the dependency extractor
   * cannot see (`$eval`, `$lookup`) could see a rule ranked after it, so such a spec recomputes.
   */
  private seedingDerivedAll(written: readonly Path[]): boolean {
    if (written.length === 0 || this.model.derivations.length === 0) return false;
    const { spec, derivations } = this.model;
    if (spec.library !== undefined || derivations.some((d) => INVISIBLE_READS.test(d.expr.text)))
      return false;
    const dirty = this.model.graph.dirtyForAll(written); // cached: the cycle asked the same
    const computed = new Set<number>();
    for (const id of dirty.derivations) if (!dirty.partial.has(id)) computed.add(id);
    return derivations.every((d) => (d.lazy && !this.lazyInCycle.has(d.id)) || computed.has(d.id));
  }

  /**
   * A top-level `required` holds from creation on: the `$` rule or schema defaults must give each
   * listed input a value (a top-level member is never deleted afterwards: a JSON Patch `remove`
   * writes null), so a model cannot start with a required input missing.
   * @throws CalcError SPEC_INVALID naming the missing fields
   */
  private checkRootRequired(): void {
    const required = this.model.spec.schema.required;
    if (!Array.isArray(required)) return;
    const missing = required.filter(
      (name): name is string =>
        typeof name === 'string' &&
        !this.model.derivedTargets.has(formatPath([name])) &&
        !Object.hasOwn(this.base, name),
    );
    if (missing.length > 0)
      throw new CalcError(
        'SPEC_INVALID',
        `the schema requires ${missing.map((m) => `'${m}'`).join(', ')} at the top level, but neither the '$' defaultValues rule nor a schema default gives ${missing.length === 1 ? 'it' : 'them'} a value at creation`,
        {
          errors: missing.map((m) => ({
            location: 'schema.required',
            message: `'${m}' has no value at creation`,
          })),
        },
      );
  }

  /**
   * Evaluates every eager derivation (level order; not when `derivations` is false: they are
   * current) and every meta; no constraints, no effects.
   */
  async recomputeAll(options: { derivations?: boolean } = {}): Promise<void> {
    const log = new UndoLog(true);
    // a lazy derivation goes stale and computes on read, unless something eager reads it
    const order = this.model.graph.derivationOrder.map((id) => this.derivationById(id));
    const inCycle = (d: DerivationNode): boolean => !d.lazy || this.lazyInCycle.has(d.id);
    if (options.derivations !== false) await this.deriveLevels(order.filter(inCycle), undefined, [], [], log);
    for (const d of order) if (!inCycle(d)) this.staleLazy.add(d.id);
    for (const m of this.model.metas) await this.evaluateMeta(m, undefined, []);
    this.appendAfter(log);
  }

  // ---------------------------------------------------------------- reads

  /** The merged document (lazy values brought up to date), as a fresh copy. */
  async getState(): Promise<JsonObject> {
    await this.refreshLazy();
    // Rebuilt as base-then-derived so fields read in the order a person wrote them (inputs first);
    // the content is exactly the merged document.
    const out = cloneJson<Record<string, unknown>>(this.base);
    const entries = [...this.derived].map(([k, v]) => ({ v, p: parseAddress(k) }));
    entries.sort((a, b) => (a.p.ok ? a.p.path.length : 0) - (b.p.ok ? b.p.path.length : 0));
    for (const e of entries) if (e.p.ok) spliceAt(out, e.p.path, cloneJson(e.v));
    return out as JsonObject;
  }

  /**
   * `projectPaths(getState(), paths)` at the cost of what the paths name: the subtrees are read
   * from the merged document (kept current write by write, the same content as getState) instead
   * of rebuilding the whole state, which on a 100,000-row model costs hundreds of milliseconds.
   * A `$` among the paths asks for everything, in getState's order.
   * @throws CalcError (INVALID_ARGUMENT) for a non-canonical address
   */
  async projectState(paths: readonly string[]): Promise<JsonObject> {
    const read: Path[] = [];
    for (const address of paths) {
      const parsed = parseAddress(address);
      if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', parsed.message);
      if (parsed.path.length === 0) return this.getState();
      read.push(parsed.path);
    }
    await this.refreshLazy(read);
    return projectPaths(this.merged as JsonObject, paths);
  }

  /**
   * The value at an address: derived → base → inside a derived ancestor. `undefined` when absent.
   * @throws CalcError (INVALID_ARGUMENT) for a non-canonical address
   */
  async getValue(address: string): Promise<JsonValue | undefined> {
    const parsed = parseAddress(address);
    if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', parsed.message);
    await this.refreshLazy([parsed.path]);
    // A derived entry first; a base value written inside a derived container next (the merged
    // document shows the derived container there); otherwise the merged document, so a row or
    // object comes back with its derived fields and a path inside a derived value resolves.
    if (this.derived.has(address)) return cloneJson(this.derived.get(address));
    if (this.underDerivedContainer(parsed.path)) {
      const base = getAt(this.base, parsed.path);
      if (base !== ABSENT) return cloneJson(base);
    }
    const v = getAt(this.merged, parsed.path);
    return v === ABSENT ? undefined : cloneJson(v);
  }

  /** Effective schema at an address: static fragment + live meta overlay. */
  getEffectiveSchema(address: string): JsonObject {
    const parsed = parseAddress(address);
    if (!parsed.ok) throw new CalcError('INVALID_ARGUMENT', parsed.message);
    return effectiveSchema(this.model.spec.schema, parsed.path, address, this.meta);
  }

  /** Live meta value (`$.x#read_only` keys), or undefined. */
  getMeta(key: string): JsonValue | undefined {
    return this.meta.get(key);
  }

  /** Traces whose target starts with `path`, oldest first. */
  explain(path: string, limit?: number): DerivationTrace[] {
    const all = this.traces.toArray().filter((t) => t.targetPath.startsWith(path));
    return limit !== undefined && limit >= 0 ? all.slice(Math.max(0, all.length - limit)) : all;
  }

  historyTimestamps(): number[] {
    return this.history.map((h) => h.timestamp);
  }

  /**
   * Merged state as it stood after the newest cycle at or before `time` (epoch ms).
   * @throws CalcError (HISTORY_NOT_FOUND) when no cycle is that old
   */
  async stateAt(time: number): Promise<JsonObject> {
    await this.refreshLazy();
    let k = -1;
    for (let i = 0; i < this.history.length; i++) if (this.history[i]!.timestamp <= time) k = i;
    if (k < 0)
      throw new CalcError(
        'HISTORY_NOT_FOUND',
        `no history entry at or before ${new Date(time).toISOString()}`,
      );
    const copy = cloneJson(this.merged);
    for (let j = this.history.length - 1; j > k; j--) {
      replayUndo(copy, this.history[j]!.after, cloneJson);
      replayUndo(copy, this.history[j]!.changes, cloneJson);
    }
    replayUndo(copy, this.history[k]!.after, cloneJson);
    return copy as JsonObject;
  }

  /** Base document, derived and meta caches, as plain JSON. */
  exportState(): RuntimeState {
    return {
      base: cloneJson(this.base) as JsonObject,
      derived: Object.fromEntries([...this.derived].map(([k, v]) => [k, cloneJson(v)])),
      meta: Object.fromEntries([...this.meta].map(([k, v]) => [k, cloneJson(v)])),
      history: this.history.map(storedHistoryEntry),
    };
  }

  /**
   * `JSON.stringify(this.exportState())` without `history`, made without copying: the state text a
   * durable store writes and hashes each cycle. History goes beside it, a row per cycle
   * (`newestHistoryRow`), so this text stays the size of the model.
   */
  exportStateText(): string {
    return JSON.stringify({
      base: this.base,
      derived: Object.fromEntries(this.derived),
      meta: Object.fromEntries(this.meta),
    });
  }

  /**
   * The history row of the newest cycle (history.ts), for the store to keep beside its audit
   * record; undefined when this runtime keeps no history. Ask right after the cycle.
   */
  newestHistoryRow(): string | undefined {
    const n = this.history.length;
    if (n === 0) return undefined;
    const newest = this.history[n - 1]!;
    return historyRowText(newest, newest.before ?? []);
  }

  /** The base document itself (read-only by convention; callers copy before changing). */
  baseDocument(): Readonly<Record<string, unknown>> {
    return this.base;
  }

  /**
   * Replaces base, derived and meta caches verbatim (no recompute); lazy targets go stale;
   * traces and history are cleared.
   */
  loadState(state: RuntimeState, options: { keepTraces?: boolean } = {}): void {
    this.base = cloneJson(state.base);
    this.derived.clear();
    this.derivedContainers.clear();
    this.rowCounts.clear();
    this.meta.clear();
    this.metaRows.clear();
    this.merged = cloneJson(this.base);
    const entries = Object.entries(state.derived)
      .map(([k, v]) => ({ k, v, p: parseAddress(k) }))
      .filter((e) => e.p.ok)
      .sort((a, b) => (a.p.ok && b.p.ok ? a.p.path.length - b.p.path.length : 0));
    for (const e of entries) {
      if (!e.p.ok) continue;
      const v = cloneJson(e.v);
      this.derived.set(e.k, v);
      if (v !== null && typeof v === 'object') this.derivedContainers.add(e.k);
      spliceAt(this.merged, e.p.path, cloneJson(v));
    }
    for (const d of this.model.derivations) {
      if (d.rows) {
        const arr = getAt(this.base, d.rows.array);
        this.rowCounts.set(d.id, Array.isArray(arr) ? arr.length : 0);
      }
    }
    for (const [k, v] of Object.entries(state.meta)) this.meta.set(k, cloneJson(v));
    this.indexMetaRows();
    this.staleLazy.clear();
    for (const d of this.model.derivations) if (d.lazy) this.staleLazy.add(d.id);
    if (!options.keepTraces) this.traces.clear();
    // history travels with the state; a state without it (a snapshot, an evolution) starts afresh
    this.history = (state.history ?? []).map((h) => ({
      timestamp: h.timestamp,
      changes: h.changes.map(loadReplayEntry),
      after: h.after.map(loadReplayEntry),
    }));
  }

  // ---------------------------------------------------------------- writes

  /**
   * Checks a mutation map without changing anything: non-canonical keys, wildcard keys, unsafe
   * values, read-only fields and live meta limits. The JSON Schema itself is checked after the
   * write (with its defaults), inside `mutate`. Returns the violations (empty when acceptable).
   */
  validateMutations(mutations: Record<string, unknown>): SchemaViolation[] {
    return preWriteViolations(this.model.spec.schema, this.meta, mutations);
  }

  /** The model's whole-schema write checker (write-schema.ts), found once per runtime. */
  private schemaChecker(): WriteSchemaChecker {
    const model = this.model;
    this.writeChecker ??= writeSchemaChecker(model, model.spec.schema, () =>
      [...model.derivedTargets.values()].map((d) => d.path),
    );
    return this.writeChecker;
  }

  /**
   * One reactive cycle for a mutation map (`{address: value}`).
   * @throws CalcError SCHEMA_VIOLATION, DERIVED_TARGET_WRITE, INDEX_LIMIT, CONSTRAINT_VIOLATION
   */
  async mutate(mutations: Record<string, unknown>, options: MutateOptions = {}): Promise<MutationResult> {
    const keys = Object.keys(mutations);
    options.onPhase?.('validate');
    if (!options.skipValidation) {
      const violations = this.validateMutations(mutations);
      if (violations.length > 0) throw schemaViolationError(violations);
    }
    const paths: Path[] = [];
    for (const address of keys) {
      const parsed = parseAddress(address);
      if (!parsed.ok)
        throw schemaViolationError([{ path: address, keyword: 'address', message: parsed.message }]);
      if (this.model.derivedTargets.has(address)) {
        throw new CalcError('DERIVED_TARGET_WRITE', `${address} is a derived field and cannot be written`, {
          path: address,
        });
      }
      for (const seg of parsed.path) {
        if (typeof seg === 'number' && seg > MAX_ARRAY_INDEX) {
          throw new CalcError(
            'INDEX_LIMIT',
            `${address}: array index ${seg} exceeds the limit of ${MAX_ARRAY_INDEX}`,
            { path: address },
          );
        }
      }
      paths.push(parsed.path);
    }
    options.onPhase?.('write');
    // before anything is written: what exists, the rows of arrays written whole, the rows writes create
    const firstCreated = paths.map((p) => firstAbsentPrefix(this.base, p));
    const newContainers = this.hasDefaultRules ? this.newContainers(paths) : [];
    const padding = paddingOf(this.base, paths);
    const before = this.captureArrays(paths);
    const created = this.createdRows(paths);
    const tx = new Transaction();
    try {
      const written: Path[] = [...paths];
      paths.forEach((p, i) => {
        if (!this.writeBase(p, cloneJson(mutations[keys[i]!]), tx)) {
          throw new CalcError(
            'INVALID_ARGUMENT',
            `${keys[i]}: the path runs through a value that is not a container`,
            { path: keys[i] },
          );
        }
      });
      const padded = this.fillPaddedRows(padding, tx);
      const defaulted: Path[] = [];
      if (this.hasDefaultRules) {
        const createdObjects = this.createdObjects(paths, newContainers, padded);
        if (createdObjects.length > 0) await this.applyDefaultRules(createdObjects, defaulted, tx);
      }
      if (!options.skipValidation) {
        const violations = checkWritten(this.schemaChecker(), this.base, paths, firstCreated, padded);
        if (violations.length > 0) throw schemaViolationError(violations);
      }
      appendAll(written, defaulted);
      appendAll(written, created);
      return await this.runCycle(
        [...keys, ...defaulted.map(formatPath)],
        written,
        tx,
        before,
        options.onPhase,
      );
    } catch (err) {
      tx.rollback();
      if (err instanceof IndexLimitError) throw new CalcError('INDEX_LIMIT', err.message);
      throw err;
    }
  }

  /** Writes into the base document, and into the merged one unless a derived value covers it. */
  private writeBase(path: Path, value: unknown, tx: Transaction | undefined): boolean {
    if (!setAt(this.base, path, value, tx?.base)) return false;
    if (!this.underDerivedContainer(path)) setAt(this.merged, path, cloneJson(value), tx?.merged);
    return true;
  }

  private underDerivedContainer(path: Path): boolean {
    if (this.derivedContainers.size === 0) return false;
    for (let n = 1; n < path.length; n++)
      if (this.derivedContainers.has(formatPath(path.slice(0, n)))) return true;
    return false;
  }

  /** Proper prefixes of the keys that are objects or elements and absent before the writes. */
  private newContainers(paths: Path[]): Path[] {
    const seen = new Set<string>();
    const out: Path[] = [];
    for (const p of paths) {
      for (let n = 1; n < p.length; n++) {
        if (typeof p[n] === 'number') continue; // the bare array before an index
        const prefix = p.slice(0, n);
        const key = formatPath(prefix);
        if (seen.has(key)) continue;
        seen.add(key);
        const v = getAt(this.base, prefix);
        if (v === ABSENT || v === null) out.push(prefix);
      }
    }
    return out.sort((a, b) => a.length - b.length);
  }

  /**
   * Every object the writes created, each once, shallowest first: the containers made on the way,
   * every object inside a value written whole (the value itself included), and padded rows.
   */
  private createdObjects(paths: Path[], newContainers: Path[], padded: Path[]): Path[] {
    const found: Path[] = [...newContainers, ...padded];
    for (const p of paths) {
      const v = getAt(this.base, p);
      if (v !== ABSENT) objectsWithin(v, p, found);
    }
    const seen = new Set<string>();
    const out: Path[] = [];
    for (const p of found) {
      const key = formatPath(p);
      if (seen.has(key) || !isObject(getAt(this.base, p))) continue;
      seen.add(key);
      out.push(p);
    }
    return out.sort((a, b) => a.length - b.length);
  }

  /**
   * A write past an array's end pads it with null; where the array holds objects (its items are
   * `type: "object"`), the padding rows are empty objects instead, so they are rows like any other
   * (defaults fill them; the schema checks them). Returns the rows so filled.
   */
  private fillPaddedRows(padding: Path[], tx: Transaction): Path[] {
    const out: Path[] = [];
    for (const row of padding) {
      if (getAt(this.base, row) !== null) continue;
      const itemSchema = schemaAt(this.model.spec.schema, row);
      if (itemSchema.type !== 'object') continue;
      this.writeBase(row, {}, tx);
      out.push(row);
    }
    return out;
  }

  /**
   * The rows, as they stand now, of every array `[*]` rules run over that a write replaces (the
   * array itself or a container holding it): a copy, with rows other writes change in place copied
   * too, so the cycle can tell which rows of the new array are the old ones (moved or not).
   */
  private captureArrays(paths: Path[]): Map<string, unknown[]> {
    const out = new Map<string, unknown[]>();
    const graph = this.model.graph;
    const capture = (array: Path): void => {
      const key = formatPath(array);
      if (out.has(key)) return;
      const rows = getAt(this.base, array);
      out.set(key, Array.isArray(rows) ? rows.slice() : []);
    };
    for (const p of paths) for (const array of graph.arraysWithin(p)) capture(array);
    if (paths.length > MANY_ROWS) {
      const rowsWritten = new Map<string, Set<number>>();
      for (const p of paths) {
        for (const at of graph.rowArraysCrossed(p)) {
          const key = formatPath(p.slice(0, at));
          const set = rowsWritten.get(key) ?? new Set<number>();
          set.add(p[at] as number);
          rowsWritten.set(key, set);
          if (set.size === MANY_ROWS + 1) capture(p.slice(0, at));
        }
      }
    }
    if (out.size === 0) return out;
    const copied = new Set<string>();
    for (const p of paths) {
      for (const at of graph.rowArraysCrossed(p)) {
        const key = formatPath(p.slice(0, at));
        const rows = out.get(key);
        const r = p[at] as number;
        if (!rows || r >= rows.length || copied.has(`${key}#${r}`)) continue;
        copied.add(`${key}#${r}`);
        rows[r] = cloneJson(rows[r]);
      }
    }
    return out;
  }

  /**
   * A write inside a row that does not exist yet creates it (and pads before it): the first new
   * row of each such array counts as written whole, so every `[*]` rule over the array computes the
   * new rows and every reader of the array follows, whatever field the write named.
   */
  private createdRows(paths: Path[]): Path[] {
    const out: Path[] = [];
    const seen = new Set<string>();
    for (const p of paths) {
      for (const at of this.model.graph.rowArraysCrossed(p)) {
        const array = p.slice(0, at);
        const rows = getAt(this.base, array);
        const length = Array.isArray(rows) ? rows.length : 0;
        if ((p[at] as number) < length) continue;
        const key = formatPath(array);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push([...array, length]);
      }
    }
    return out;
  }

  /** Runs the defaultValues rules for each new container, shallowest first, in spec order. */
  private async applyDefaultRules(containers: Path[], written: Path[], tx: Transaction): Promise<void> {
    for (const container of containers) {
      for (const rule of this.model.defaults) {
        if (!patternMatches(rule.path, container)) continue;
        const parentPath = container.length === 0 ? [] : container.slice(0, -1);
        const parentValue = getAt(this.base, parentPath);
        const self = getAt(this.base, container);
        const bindings = {
          ...this.model.bindings,
          parent: parentValue === ABSENT ? undefined : parentValue,
          self: self === ABSENT ? {} : self,
        };
        const out = await evaluate(rule.expr, this.base, bindings);
        if (!out.ok || !isObject(out.value)) continue;
        for (const [leaf, value] of flattenLeaves(toJson(out.value) as JsonObject, container)) {
          const current = getAt(this.base, leaf);
          if (current !== ABSENT && current !== null) continue;
          if (this.model.derivedTargets.has(formatPath(leaf))) continue;
          if (leaf.length === 0) continue;
          this.writeBase(leaf, value, tx);
          written.push(leaf);
        }
      }
    }
  }

  // ---------------------------------------------------------------- the cycle

  private async runCycle(
    mutatedPaths: string[],
    written: Path[],
    tx: Transaction,
    before: Map<string, unknown[]> = new Map(),
    onPhase?: (phase: CyclePhase) => void,
  ): Promise<MutationResult> {
    onPhase?.('derive');
    const dirty = this.model.graph.dirtyForAll(written);
    const plan = this.planRows(dirty, written, before);
    const traces: DerivationTrace[] = [];
    const derivedUpdated: string[] = [];
    const metaUpdated: string[] = [];
    const order = dirty.derivations.map((id) => this.derivationById(id));
    await this.deriveLevels(order, tx, derivedUpdated, traces, tx.merged, plan);
    for (const id of dirty.metas) await this.evaluateMeta(this.metaById(id), tx, metaUpdated, plan);

    onPhase?.('constraints');
    const violations: ConstraintViolation[] = [];
    for (const id of dirty.constraints) {
      const c = this.constraintById(id);
      const passed = await this.checkConstraint(c, traces);
      if (!passed)
        violations.push({ constraintId: c.spec.id, message: c.spec.message, policy: c.spec.policy });
    }
    const rollbacks = violations.filter((v) => v.policy === 'rollback');
    if (rollbacks.length > 0) {
      for (const v of rollbacks) {
        traces.push({
          targetPath: `$constraint:${v.constraintId}`,
          expression: '',
          inputPaths: [],
          result: null,
          constraintPassed: false,
          errorMessage: null,
        });
      }
      this.traces.pushAll(traces);
      throw constraintViolationError(rollbacks);
    }
    onPhase?.('effects');
    const dispatchedEffects: DispatchedEffect[] = [];
    for (const id of dirty.effects) await this.dispatchEffect(this.effectById(id), dispatchedEffects);

    // commit
    this.traces.pushAll(traces);
    // what was written since the previous cycle is stored with this one (history.ts)
    const previous = this.history[this.history.length - 1];
    this.history.push({
      timestamp: this.now(),
      changes: tx.merged.entries,
      after: [],
      before: previous?.after ?? [],
    });
    if (this.history.length > this.historyCapacity)
      this.history.splice(0, this.history.length - this.historyCapacity);
    return {
      success: true,
      mutatedPaths,
      derivedUpdated,
      metaUpdated,
      flaggedConstraints: violations.filter((v) => v.policy === 'flag'),
      dispatchedEffects,
      traces,
    };
  }

  /** The rows each `[*]` node reached in some rows only must recompute (ROW: the written rows). */
  private planRows(dirty: DirtySet, written: Path[], before: Map<string, unknown[]>): RowPlan {
    const rows = new Map<number, Set<number>>();
    if (dirty.partial.size > 0) {
      const graph = this.model.graph;
      for (const w of written) {
        for (const [id, scope] of graph.dirtyFor(w).partial) {
          if (scope !== ROW || dirty.partial.get(id) !== ROW) continue;
          let set = rows.get(id);
          if (!set) rows.set(id, (set = new Set()));
          set.add(w[graph.rowAt[id]!] as number);
        }
      }
    }
    return { dirty, rows, before, sources: new Map() };
  }

  /**
   * The rows a `[*]` node computes this cycle, and the values it keeps from rows that only moved.
   * ROW: the written rows plus rows it has no value for yet. ARRAY: rows of the new array that
   * equal no old row; a row equal to an old one (same place, or shifted by an insert or removal)
   * takes that row's value. Otherwise every row.
   */
  private rowWork(
    id: number,
    array: Path,
    suffix: Path,
    length: number,
    plan: RowPlan | undefined,
  ): { compute: number[]; kept: [number, JsonValue][] } {
    const scope = plan?.dirty.partial.get(id);
    const counted = this.rowCounts.get(id) ?? 0;
    const compute: number[] = [];
    const kept: [number, JsonValue][] = [];
    if (plan && scope === ROW && length >= counted) {
      const set = new Set(plan.rows.get(id));
      for (let r = counted; r < length; r++) set.add(r);
      for (const r of set) if (r < length) compute.push(r);
      compute.sort((a, b) => a - b);
      return { compute, kept };
    }
    // rows written one by one in number (a JSON Patch insert rewrites every row after it) are
    // compared with the rows as they were, like an array written whole
    if (plan && (scope === ARRAY || (scope === ROW && plan.before.has(formatPath(array))))) {
      const sources = this.rowSources(plan, array);
      for (let r = 0; r < length; r++) {
        const from = sources[r] ?? -1;
        if (from >= 0 && from < counted) {
          const key = formatPath([...array, from, ...suffix]);
          if (this.derived.has(key)) {
            kept.push([r, this.derived.get(key)!]);
            continue;
          }
        }
        compute.push(r);
      }
      return { compute, kept };
    }
    for (let r = 0; r < length; r++) compute.push(r);
    return { compute, kept };
  }

  /** For each row of an array written whole: the old row it equals (common head and tail), or -1. */
  private rowSources(plan: RowPlan, array: Path): Int32Array {
    const key = formatPath(array);
    const known = plan.sources.get(key);
    if (known) return known;
    const now = getAt(this.base, array);
    const rows = Array.isArray(now) ? now : [];
    const old = plan.before.get(key) ?? [];
    const sources = new Int32Array(rows.length).fill(-1);
    let head = 0;
    while (head < rows.length && head < old.length && identicalJson(rows[head], old[head])) {
      sources[head] = head;
      head++;
    }
    let tail = 0;
    while (
      tail < rows.length - head &&
      tail < old.length - head &&
      identicalJson(rows[rows.length - 1 - tail], old[old.length - 1 - tail])
    ) {
      sources[rows.length - 1 - tail] = old.length - 1 - tail;
      tail++;
    }
    plan.sources.set(key, sources);
    return sources;
  }

  private derivationById(id: number): DerivationNode {
    return this.model.derivations[id]!; // derivations are the first graph nodes, in spec order
  }
  private metaById(id: number): MetaNode {
    return this.model.metas[id - this.model.derivations.length]!;
  }
  private constraintById(id: number): ConstraintNode {
    return this.model.constraints[id - this.model.derivations.length - this.model.metas.length]!;
  }
  private effectById(id: number): EffectNode {
    return this.model.effects[
      id - this.model.derivations.length - this.model.metas.length - this.model.constraints.length
    ]!;
  }

  /**
   * Evaluates derivations level by level: every node of a level sees the document as it stood
   * before the level; results are spliced in before the next level.
   */
  private async deriveLevels(
    order: DerivationNode[],
    tx: Transaction | undefined,
    derivedUpdated: string[],
    traces: DerivationTrace[],
    mergedLog: UndoLog,
    plan?: RowPlan,
  ): Promise<void> {
    const depth = this.model.graph.depth;
    const nodes: DerivationNode[] = [];
    const paths: Path[] = [];
    const addresses: string[] = [];
    const values: JsonValue[] = [];
    const computed: boolean[] = [];
    let i = 0;
    while (i < order.length) {
      const level = depth[order[i]!.id]!;
      // one level's results as parallel lists (no tuple per rule); `computed` says whether the value
      // was computed (listed, traced) or kept from a moved row
      nodes.length = paths.length = addresses.length = values.length = computed.length = 0;
      const keep = (
        d: DerivationNode,
        path: Path,
        address: string,
        value: JsonValue,
        wasComputed: boolean,
      ) => {
        nodes.push(d);
        paths.push(path);
        addresses.push(address);
        values.push(value);
        computed.push(wasComputed);
      };
      const rowTotals: [DerivationNode, number][] = [];
      for (; i < order.length && depth[order[i]!.id] === level; i++) {
        const d = order[i]!;
        if (d.lazy && tx && !this.lazyInCycle.has(d.id)) {
          setAdd(this.staleLazy, d.id, tx);
          continue;
        }
        const input = this.rootReaders.has(d.id) ? await this.rootView(d) : this.merged;
        if (!d.rows) {
          // the fast path's answer synchronously (no promise per rule), else the evaluation's outcome
          const now = answerNow(d.expr, input, this.model.bindings);
          const value =
            now !== NOT_HANDLED
              ? this.traceValue(d, d.address, now, traces)
              : this.traceResult(d, d.address, await evaluate(d.expr, input, this.model.bindings), traces);
          keep(d, d.path, d.address, value, true);
          continue;
        }
        const arr = getAt(this.base, d.rows.array);
        const n = Array.isArray(arr) ? arr.length : 0;
        const work = this.rowWork(d.id, d.rows.array, d.rows.suffix, n, plan);
        for (const [r, value] of work.kept) {
          const path = [...d.rows.array, r, ...d.rows.suffix];
          keep(d, path, formatPath(path), value, false);
        }
        for (const r of work.compute) {
          const rowPath = [...d.rows.array, r];
          const parent = getAt(input, rowPath);
          const soon = evaluateSoon(d.expr, input, {
            ...this.model.bindings,
            parent: parent === ABSENT ? undefined : parent,
            index: r,
          });
          const out = soon instanceof Promise ? await soon : soon;
          const path = [...rowPath, ...d.rows.suffix];
          const address = formatPath(path);
          keep(d, path, address, this.traceResult(d, address, out, traces), true);
        }
        rowTotals.push([d, n]);
      }
      for (let k = 0; k < nodes.length; k++) {
        this.storeDerived(paths[k]!, addresses[k]!, values[k]!, tx, mergedLog);
        if (computed[k]) derivedUpdated.push(addresses[k]!);
        if (nodes[k]!.lazy) setDelete(this.staleLazy, nodes[k]!.id, tx);
      }
      for (const [d, n] of rowTotals) this.dropVanishedRows(d, n, tx);
    }
  }

  /**
   * What a root reader reads: the document as a from-scratch evaluation would show it at its turn.
   * The merged document also holds the reader's own previous value and those of rules evaluated
   * after it (`$sum($each($, …))` counted itself and drifted); they are taken out (a base value
   * they covered shows again), and lazy rules before it are computed fresh (their cache may be
   * stale or, at creation, empty). A copy: the merged document is not touched.
   */
  private async rootView(d: DerivationNode): Promise<Record<string, unknown>> {
    const rank = this.model.graph.rank;
    const turn = rank[d.id]!;
    const view = cloneJson(this.merged);
    for (const other of this.model.derivations) {
      if (rank[other.id]! < turn) continue;
      for (const p of expandPattern(view, other.path)) {
        const base = getAt(this.base, p);
        if (base === ABSENT) deleteAt(view, p);
        else spliceAt(view, p, cloneJson(base));
      }
    }
    for (const id of this.model.graph.derivationOrder) {
      if (rank[id]! >= turn) break;
      const lazy = this.derivationById(id);
      if (lazy.lazy) await this.deriveInto(view, lazy);
    }
    return view;
  }

  /** One rule computed into a document copy only (no cache, no trace): every row sees it as it was. */
  private async deriveInto(doc: Record<string, unknown>, d: DerivationNode): Promise<void> {
    if (!d.rows) {
      const out = await evaluate(d.expr, doc, this.model.bindings);
      spliceAt(doc, d.path, out.ok ? toJson(out.value) : null);
      return;
    }
    const arr = getAt(doc, d.rows.array);
    const n = Array.isArray(arr) ? arr.length : 0;
    const values: JsonValue[] = [];
    for (let r = 0; r < n; r++) {
      const parent = getAt(doc, [...d.rows.array, r]);
      const out = await evaluate(d.expr, doc, {
        ...this.model.bindings,
        parent: parent === ABSENT ? undefined : parent,
        index: r,
      });
      values.push(out.ok ? toJson(out.value) : null);
    }
    values.forEach((v, r) => spliceAt(doc, [...d.rows!.array, r, ...d.rows!.suffix], v));
  }

  /** The trace of a value computed without error; its JSON form is stored. */
  private traceValue(
    d: DerivationNode,
    address: string,
    computed: unknown,
    traces: DerivationTrace[],
  ): JsonValue {
    const value = toJson(computed);
    traces.push({
      targetPath: address,
      expression: d.expr.text,
      inputPaths: d.depStrings,
      result: value,
      constraintPassed: null,
      errorMessage: nonFiniteMessage(computed),
    });
    return value;
  }

  private traceResult(
    d: DerivationNode,
    address: string,
    out: EvalOutcome,
    traces: DerivationTrace[],
  ): JsonValue {
    if (out.ok) return this.traceValue(d, address, out.value, traces);
    traces.push({
      targetPath: address,
      expression: d.expr.text,
      inputPaths: [],
      result: null,
      constraintPassed: null,
      errorMessage: out.message,
    });
    return null;
  }

  private storeDerived(
    path: Path,
    address: string,
    value: JsonValue,
    tx: Transaction | undefined,
    mergedLog: UndoLog,
  ): void {
    mapSet(this.derived, address, value, tx);
    if (value !== null && typeof value === 'object') setAdd(this.derivedContainers, address, tx);
    else setDelete(this.derivedContainers, address, tx);
    spliceAt(
      this.merged,
      path,
      value !== null && typeof value === 'object' ? cloneJson(value) : value,
      mergedLog,
    );
  }

  /** A `[*]` target forgets rows that no longer exist (no stale answers after the array shrank). */
  private dropVanishedRows(d: DerivationNode, rows: number, tx: Transaction | undefined): void {
    const before = this.rowCounts.get(d.id) ?? 0;
    for (let r = rows; r < before; r++) {
      const address = formatPath([...d.rows!.array, r, ...d.rows!.suffix]);
      mapDelete(this.derived, address, tx);
      setDelete(this.derivedContainers, address, tx);
    }
    mapSet(this.rowCounts, d.id, rows, tx);
  }

  private async evaluateMeta(
    m: MetaNode,
    tx: Transaction | undefined,
    metaUpdated: string[],
    plan?: RowPlan,
  ): Promise<void> {
    if (!m.element) {
      const out = await evaluate(m.expr, this.merged, this.model.bindings);
      mapSet(this.meta, m.key, out.ok ? toJson(out.value) : null, tx);
      metaUpdated.push(m.key);
      return;
    }
    const array = m.element.slice(0, -1);
    const arr = getAt(this.base, array);
    const n = Array.isArray(arr) ? arr.length : 0;
    // a meta keeps no values for moved rows (its keys name the row): ARRAY recomputes every row
    const scoped = plan?.dirty.partial.get(m.id) === ARRAY ? undefined : plan;
    const { compute } = this.rowWork(m.id, array, [], n, scoped);
    let rows = this.metaRows.get(m.id);
    if (!rows) {
      rows = new Map();
      mapSet(this.metaRows, m.id, rows, tx);
    }
    for (const r of compute) await this.evaluateMetaRow(m, array, r, rows, tx, metaUpdated);
    // rows that no longer exist lose their meta values
    if (compute.length === n) for (const r of [...rows.keys()]) if (r >= n) this.setMetaRow(rows, r, [], tx);
    mapSet(this.rowCounts, m.id, n, tx);
  }

  /** One row of a `[*]` meta: every concrete match of its path in that row of the base document. */
  private async evaluateMetaRow(
    m: MetaNode,
    array: Path,
    r: number,
    rows: Map<number, string[]>,
    tx: Transaction | undefined,
    metaUpdated: string[],
  ): Promise<void> {
    const suffix = `#${META_PROPERTIES[m.property]}`;
    const element = getAt(this.base, [...array, r]);
    const keys: string[] = [];
    for (const concrete of expandPattern(this.base, [...array, r, ...m.path.slice(array.length + 1)])) {
      const out = await evaluate(m.expr, element === ABSENT ? undefined : element, this.model.bindings);
      const key = `${formatPath(concrete)}${suffix}`;
      mapSet(this.meta, key, out.ok ? toJson(out.value) : null, tx);
      keys.push(key);
      metaUpdated.push(key);
    }
    this.setMetaRow(rows, r, keys, tx);
  }

  /** Records a row's meta keys, dropping the values of keys the row no longer produces. */
  private setMetaRow(
    rows: Map<number, string[]>,
    r: number,
    keys: string[],
    tx: Transaction | undefined,
  ): void {
    const old = rows.get(r);
    if (old) for (const k of old) if (!keys.includes(k)) mapDelete(this.meta, k, tx);
    if (keys.length === 0 && !old) return;
    if (keys.length === 0) rows.delete(r);
    else rows.set(r, keys);
    tx?.onRollback(() => (old ? rows.set(r, old) : rows.delete(r)));
  }

  /** Rebuilds which row of which `[*]` meta each loaded meta key belongs to. */
  private indexMetaRows(): void {
    const bySuffix = new Map<string, MetaNode[]>();
    for (const m of this.model.metas) {
      if (!m.element) continue;
      const suffix = `#${META_PROPERTIES[m.property]}`;
      const list = bySuffix.get(suffix) ?? [];
      list.push(m);
      bySuffix.set(suffix, list);
      this.metaRows.set(m.id, new Map());
      const arr = getAt(this.base, m.element.slice(0, -1));
      this.rowCounts.set(m.id, Array.isArray(arr) ? arr.length : 0);
    }
    if (bySuffix.size === 0) return;
    for (const key of this.meta.keys()) {
      const hash = key.lastIndexOf('#');
      const metas = hash < 0 ? undefined : bySuffix.get(key.slice(hash));
      if (!metas) continue;
      const p = parseAddress(key.slice(0, hash));
      if (!p.ok) continue;
      // a [*] meta owns only the keys its own pattern produces
      for (const m of metas) {
        if (!patternMatches(m.path, p.path)) continue;
        const r = p.path[m.element!.length - 1];
        if (typeof r !== 'number') continue;
        const rows = this.metaRows.get(m.id)!;
        const list = rows.get(r) ?? [];
        list.push(key);
        rows.set(r, list);
      }
    }
  }

  private async checkConstraint(c: ConstraintNode, traces: DerivationTrace[]): Promise<boolean> {
    const inputs: unknown[] = [];
    if (!c.scopes) inputs.push(this.merged);
    else if (c.scopes.length === 1 && c.scopes[0]!.includes(WILDCARD)) {
      for (const concrete of expandPattern(this.base, c.scopes[0]!)) inputs.push(getAt(this.base, concrete));
    } else {
      for (const scope of c.scopes) {
        const v = getAt(this.merged, scope);
        inputs.push(v === ABSENT ? undefined : v);
      }
    }
    let allPassed = true;
    for (const input of inputs) {
      const out = await evaluate(c.expr, input, this.model.bindings);
      const passed = out.ok && isTruthy(out.value);
      traces.push({
        targetPath: `$constraint:${c.spec.id}`,
        expression: c.expr.text,
        inputPaths: [],
        result: null,
        constraintPassed: passed,
        errorMessage: null,
      });
      if (!passed) allPassed = false;
    }
    return allPassed;
  }

  private async dispatchEffect(e: EffectNode, out: DispatchedEffect[]): Promise<void> {
    const b = this.model.bindings;
    if (e.trigger) {
      const t = await evaluate(e.trigger, this.merged, b);
      if (!t.ok || !isTruthy(t.value)) return;
    }
    const key = e.dedupeKey ? await evaluate(e.dedupeKey, this.merged, b) : null;
    const keyValue = key && key.ok ? toJson(key.value) : null;
    const guarded = (statusPath: Path | null, k: JsonValue): boolean => {
      if (!statusPath) return false;
      const status = getAt(this.merged, statusPath);
      if (!isObject(status)) return false;
      if (status.phase === 'pending' || status.phase === 'in_flight') return true;
      return Object.prototype.hasOwnProperty.call(status, 'key') && jsonEqual(status.key, k);
    };
    const executor = e.spec.executor;
    if (executor === 'server' && e.requests) {
      const r = await evaluate(e.requests, this.merged, b);
      const list = r.ok ? toJson(r.value) : null;
      for (const desc of Array.isArray(list) ? list : list === null ? [] : [list]) {
        const d = isObject(desc) ? desc : {};
        const sp = typeof d.statusPath === 'string' ? parseAddress(d.statusPath) : null;
        const dk = d.dedupeKey !== undefined ? d.dedupeKey : keyValue;
        if (guarded(sp && sp.ok ? sp.path : e.statusPath, dk)) continue;
        out.push({ effectId: e.spec.id, executor, payload: { method: 'GET', ...d } });
      }
      return;
    }
    if (guarded(e.statusPath, keyValue)) return;
    const payload: JsonObject = {};
    if (executor === 'caller') {
      for (const [name, expr] of e.payload) {
        const v = await evaluate(expr, this.merged, b);
        payload[name] = v.ok ? toJson(v.value) : null;
      }
      out.push({
        effectId: e.spec.id,
        executor,
        ...(e.spec.emit !== undefined ? { emit: e.spec.emit } : {}),
        payload,
      });
      return;
    }
    if (executor === 'server' && e.spec.request) {
      const req = e.spec.request;
      payload.method = (req.method as JsonValue) ?? 'GET';
      if (typeof req.url === 'string') payload.url = await this.interpolate(req.url);
      if (isObject(req.headers)) {
        const headers: JsonObject = {};
        for (const [k, v] of Object.entries(req.headers))
          headers[k] = typeof v === 'string' ? await this.interpolate(v) : v;
        payload.headers = headers;
      }
      if (req.body !== undefined) payload.body = req.body;
    } else if (executor === 'server' && e.spec.target) {
      payload.target = e.spec.target;
      if (e.linkBody) {
        const v = await evaluate(e.linkBody, this.merged, b);
        payload.body = v.ok ? toJson(v.value) : null;
      }
    } else if (executor === 'llm' && e.prompt) {
      const p = await evaluate(e.prompt, this.merged, b);
      payload.prompt = p.ok ? toJson(p.value) : null;
    } else if (executor === 'timer') {
      if (e.at) {
        const v = await evaluate(e.at, this.merged, b);
        payload.at = v.ok ? toJson(v.value) : null;
      }
      if (e.afterMs) {
        const v = await evaluate(e.afterMs, this.merged, b);
        payload.afterMs = v.ok ? toJson(v.value) : null;
      }
    }
    if (keyValue !== null) payload.dedupeKey = keyValue;
    out.push({ effectId: e.spec.id, executor, payload });
  }

  /** `{ expr }` segments in a URL or header: null → "", objects → JSON text. */
  private async interpolate(template: string): Promise<string> {
    let out = '';
    let last = 0;
    for (const m of template.matchAll(/\{([^{}]+)\}/g)) {
      out += template.slice(last, m.index);
      last = (m.index ?? 0) + m[0].length;
      const c = compileExpression(m[1]!.trim());
      const v = c.ok ? await evaluate(c.expr, this.merged, this.model.bindings) : null;
      const value = v && v.ok ? v.value : null;
      out +=
        value === null || value === undefined
          ? ''
          : typeof value === 'object'
            ? JSON.stringify(toJson(value))
            : String(value);
    }
    return out + template.slice(last);
  }

  // ---------------------------------------------------------------- lazy values

  /** Evaluates stale lazy targets in evaluation order (a lazy rule may read another), outside any cycle. */
  /**
   * Computes the stale lazy derivations: all of them, or with `read`, only those a read of these
   * paths can see (a target at, inside or around a path) and the stale lazy ones they read, so a
   * read of one value does not pay for every lazy rule of the model (issue 45).
   */
  private async refreshLazy(read?: readonly Path[]): Promise<void> {
    if (this.staleLazy.size === 0) return;
    const wanted = read === undefined ? this.staleLazy : this.staleLazySeenBy(read);
    if (wanted.size === 0) return;
    const log = new UndoLog(true);
    for (const id of this.model.graph.derivationOrder) {
      if (!this.staleLazy.has(id) || !wanted.has(id)) continue;
      await this.deriveLevels([this.derivationById(id)], undefined, [], [], log);
      this.staleLazy.delete(id);
    }
    this.appendAfter(log);
  }

  /** The stale lazy derivations a read of `read` sees, with the stale lazy ones they read. */
  private staleLazySeenBy(read: readonly Path[]): Set<number> {
    const wanted = new Set<number>();
    for (const id of this.staleLazy) {
      const target = this.derivationById(id).path;
      if (
        read.some((p) => patternMatches(target, p) || isProperPrefix(target, p) || isProperPrefix(p, target))
      )
        wanted.add(id);
    }
    // reverse evaluation order: a rule's readers are decided before the rule
    const { derivationOrder, dependents } = this.model.graph;
    for (let i = derivationOrder.length - 1; i >= 0; i--) {
      const id = derivationOrder[i]!;
      if (!wanted.has(id) && this.staleLazy.has(id) && dependents[id]!.some((j) => wanted.has(j)))
        wanted.add(id);
    }
    return wanted;
  }

  private appendAfter(log: UndoLog): void {
    const last = this.history[this.history.length - 1];
    if (last) appendAll(last.after, log.entries);
  }

  // ---------------------------------------------------------------- helpers for tests and evolution

  /** Static schema fragment (no meta overlay) at a parsed path. */
  staticSchemaAt(path: Path): JsonObject {
    return schemaAt(this.model.spec.schema, path);
  }
}

/**
 * Lazy derivations whose value something evaluated in a cycle reads, directly or through other lazy
 * ones: an eager derivation, a meta rule, a constraint or an effect. Left stale, such a reader would
 * compute from an old or missing value, where a from-scratch evaluation reads the fresh one.
 */
function lazyReadInCycle(model: CompiledModel): Set<number> {
  const { derivations, graph } = model;
  const isLazy = (i: number): boolean => i < derivations.length && derivations[i]!.lazy;
  const needed = new Set<number>();
  // reverse evaluation order: a lazy rule's lazy readers are decided before it
  for (const id of [...graph.derivationOrder].reverse()) {
    if (!isLazy(id)) continue;
    if (graph.dependents[id]!.some((j) => !isLazy(j) || needed.has(j))) needed.add(id);
  }
  return needed;
}

/** The rows a write past an array's end will pad (absent before the write, before the written index). */
function paddingOf(base: Record<string, unknown>, paths: Path[]): Path[] {
  const out: Path[] = [];
  for (const p of paths) {
    for (let at = 0; at < p.length; at++) {
      const index = p[at];
      if (typeof index !== 'number') continue;
      const rows = getAt(base, p.slice(0, at));
      const length = Array.isArray(rows) ? rows.length : 0;
      for (let r = length; r < index && r < length + MAX_PADDING_ROWS; r++) out.push([...p.slice(0, at), r]);
    }
  }
  return out;
}

/** Object → its leaves (non-empty objects recurse; arrays, scalars and `{}` are leaves; nulls skipped). */
function flattenLeaves(obj: JsonObject, at: Path): [Path, JsonValue][] {
  const out: [Path, JsonValue][] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) continue;
    const p = [...at, k];
    if (isObject(v) && Object.keys(v).length > 0) appendAll(out, flattenLeaves(v, p));
    else out.push([p, v]);
  }
  return out;
}
