/**
 * Restore, tied to its model and honest about the spec it lands in (issue 38): a snapshot of
 * another model is refused; a snapshot's inputs are put back and every derived value and meta is
 * computed again under the model's current spec, so a restore never brings back a number the
 * current spec would not compute (the snapshot's own caches are not trusted, whatever its version).
 */
import { createHash } from 'node:crypto';
import {
  CalcError,
  canonicalJson,
  formatPath,
  isObject,
  ModelRuntime,
  parseAddress,
  patternMatches,
  restoreSnapshot,
  schemaAt,
  takeSnapshot,
  type JsonObject,
  type ModelSpec,
  type Path,
  type Snapshot,
} from '../calc/index.js';

/** A snapshot as the service hands it out: the engine's, plus the hash of the spec it was taken under. */
export type ModelSnapshot = Snapshot & { specHash: string };

/** What a restore answers. */
export interface RestoreReport {
  restored: true;
  /** The model's revision after the restore. */
  revision: number;
  /** The spec version the state was re-derived under (the model's current one). */
  modelVersion: string;
  /** The spec version the snapshot was taken under, when it says. */
  snapshotVersion?: string;
  /** Whether the snapshot was taken under exactly the current spec (same spec hash). */
  sameSpec: boolean;
  /** Addresses of snapshot inputs the current spec no longer has (not restored). */
  droppedInputs: string[];
  /** Things the caller should know (a snapshot without a model id, …). */
  warnings: string[];
}

/** SHA-256 of the spec's canonical JSON: equal for equal specs whatever store kept them. */
export function specHashOf(spec: ModelSpec): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}

export function snapshotOf(runtime: ModelRuntime): ModelSnapshot {
  return { ...takeSnapshot(runtime), specHash: specHashOf(runtime.model.spec) };
}

/**
 * Which model a snapshot belongs to. A snapshot of another model is refused; one that names no
 * model (made by hand, or by a client that dropped the field) is accepted with a warning: its
 * inputs are still checked against this model's schema and everything is re-derived.
 * @throws CalcError INVALID_ARGUMENT (not a snapshot), SNAPSHOT_MODEL_MISMATCH
 */
export function checkSnapshotOwner(modelId: string, snapshot: unknown): string[] {
  if (!isObject(snapshot) || !isObject(snapshot.baseDoc))
    throw new CalcError('INVALID_ARGUMENT', 'a snapshot needs a baseDoc object (as snapshot returned it)');
  const owner = snapshot.modelId;
  if (owner === undefined) {
    return [
      `the snapshot names no model: restored into '${modelId}' because its inputs fit this model's schema; take snapshots with snapshot so they carry their model id`,
    ];
  }
  if (typeof owner !== 'string')
    throw new CalcError('INVALID_ARGUMENT', 'a snapshot modelId must be a string');
  if (owner !== modelId) {
    throw new CalcError(
      'SNAPSHOT_MODEL_MISMATCH',
      `this snapshot was taken of model '${owner}', not '${modelId}'; nothing was restored. Restore it into '${owner}', or create a model from its spec first`,
      { snapshotModelId: owner, modelId },
    );
  }
  return [];
}

/**
 * The snapshot's inputs restored into a copy of `current` and re-derived under its spec; the
 * inputs the spec no longer has are left out and listed. `current` itself is not touched.
 * @throws CalcError SCHEMA_VIOLATION (an input breaks the current schema), INVALID_ARGUMENT
 */
export async function rederivedRestore(
  current: ModelRuntime,
  snapshot: Record<string, unknown>,
): Promise<{ runtime: ModelRuntime; droppedInputs: string[] }> {
  const model = current.model;
  const derivedPatterns = [...model.derivedTargets.keys()].flatMap((address) => {
    const parsed = parseAddress(address);
    return parsed.ok ? [parsed.path] : [];
  });
  const droppedInputs: string[] = [];
  const keep = (path: Path): boolean => {
    // a field the spec now computes is no longer an input
    if (derivedPatterns.some((p) => patternMatches(p, path))) return false;
    // a named field the schema no longer names (free-form objects keep whatever they hold)
    const parent = schemaAt(model.spec.schema, path.slice(0, -1));
    const named = isObject(parent.properties) && Object.keys(parent.properties).length > 0;
    return !named || Object.keys(schemaAt(model.spec.schema, path)).length > 0;
  };
  const prune = (value: unknown, at: Path): unknown => {
    if (Array.isArray(value)) return value.map((v, i) => prune(v, [...at, i]));
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const path = [...at, key];
      if (keep(path)) out[key] = prune(v, path);
      else droppedInputs.push(formatPath(path));
    }
    return out;
  };
  const base = prune(snapshot.baseDoc, []) as JsonObject;
  const copy = new ModelRuntime(model, { now: current.now });
  // the engine's checks (unsafe keys, every leaf against the schema with the snapshot's meta)
  restoreSnapshot(copy, { baseDoc: base, derivedCache: {}, metaCache: snapshot.metaCache ?? {} });
  copy.loadState({ base, derived: {}, meta: {} });
  await copy.recomputeAll();
  return { runtime: copy, droppedInputs };
}
