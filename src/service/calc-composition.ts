/**
 * Composition over the stored models (docs/composition.md): resolving a branch's template, the
 * link topology check at create and evolve, and the composition graph. The rules themselves are
 * the engine's (src/calc/templates.ts, composition.ts); this reads the models they need.
 */
import type { ModelRuntime, ModelSpec } from '../calc/index.js';
import { isObject, type JsonObject, type JsonValue } from '../calc/index.js';
import { type Coordinate, versionAccepts } from '../calc/coordinates.js';
import { checkLinkTopology, linkEdges } from '../calc/composition.js';
import { specDigest, type ResolvedTemplate } from '../calc/templates.js';
import type { PendingEffect } from './effect-approvals.js';

/** What composition reads of a service's models. */
export interface StoredModels {
  ids(): Promise<string[]>;
  has(id: string): Promise<boolean>;
  /** @throws CalcError MODEL_NOT_FOUND */
  runtime(id: string): Promise<ModelRuntime>;
}

/** GET /composition/graph (valem-parity.md §1.6). */
export interface CompositionGraph {
  nodes: { ref: string; modelClass: 'local'; running: boolean }[];
  linkEdges: {
    from: string;
    to: string;
    effectId: string;
    kind: 'write' | 'read';
    last: { phase: JsonValue; at: JsonValue; error: JsonValue } | null;
  }[];
  lineageEdges: { branch: string; template: string }[];
}

/** What a model's info shows of its composition, each part only when it has some. */
export interface CompositionInfo {
  lineage?: JsonValue[];
  links?: { effectId: string; to: string; kind: 'write' | 'read' }[];
  awaitingApproval?: PendingEffect[];
}

export function compositionInfo(spec: ModelSpec, awaiting: PendingEffect[]): CompositionInfo {
  const info: CompositionInfo = {};
  if (spec.lineage.length > 0) info.lineage = spec.lineage;
  const links = linkEdges(spec).map(({ effectId, to, kind }) => ({ effectId, to, kind }));
  if (links.length > 0) info.links = links;
  if (awaiting.length > 0) info.awaitingApproval = awaiting;
  return info;
}

/** A model's spec, or undefined when it was deleted meanwhile. */
async function specOf(models: StoredModels, id: string): Promise<ModelSpec | undefined> {
  try {
    return (await models.runtime(id)).model.spec;
  } catch {
    return undefined;
  }
}

/**
 * The stored model a template coordinate names, if its version (or digest) is one the
 * coordinate accepts. This server's store is the one repository (`local`) for now.
 */
export async function resolveTemplate(
  models: StoredModels,
  c: Coordinate,
): Promise<ResolvedTemplate | undefined> {
  if (!(await models.has(c.identity))) return undefined;
  const found = await specOf(models, c.identity);
  if (!found) return undefined;
  const spec = found as unknown as JsonObject;
  if (!versionAccepts(c.version, found.version, specDigest(spec))) return undefined;
  return { id: c.identity, version: found.version, spec, repo: 'local' };
}

/**
 * The links `spec` would make, checked with every stored model's (src/calc/composition.ts).
 * @throws CalcError LINK_TARGET_UNRESOLVED, LINK_CYCLE_UNGUARDED
 */
export async function checkLinks(models: StoredModels, spec: ModelSpec): Promise<void> {
  if (!spec.effects.some((e) => e.target !== undefined)) return;
  const stored: ModelSpec[] = [];
  for (const id of await models.ids()) {
    if (id === spec.id) continue;
    const other = await specOf(models, id);
    if (other) stored.push(other);
  }
  checkLinkTopology(spec, stored, { lazyTargets: process.env.MODELWORKS_LAZY_LINK_TARGETS === 'true' });
}

/**
 * Every stored model, the links between them (with each link's last status, read from its
 * source's state) and the lineage edges to their templates. Computed on request from the specs:
 * never authoritative.
 */
export async function compositionGraph(models: StoredModels): Promise<CompositionGraph> {
  const graph: CompositionGraph = { nodes: [], linkEdges: [], lineageEdges: [] };
  for (const id of await models.ids()) {
    let runtime: ModelRuntime;
    try {
      runtime = await models.runtime(id);
    } catch {
      continue; // deleted meanwhile
    }
    const spec = runtime.model.spec;
    graph.nodes.push({ ref: id, modelClass: 'local', running: true });
    for (const e of linkEdges(spec)) {
      const last =
        e.statusPath === undefined ? undefined : await runtime.getValue(e.statusPath).catch(() => undefined);
      graph.linkEdges.push({
        from: e.from,
        to: e.to,
        effectId: e.effectId,
        kind: e.kind,
        last: isObject(last)
          ? { phase: last.phase ?? null, at: last.at ?? null, error: last.error ?? null }
          : null,
      });
    }
    const nearest = spec.lineage[0];
    if (isObject(nearest) && typeof nearest.ref === 'string')
      graph.lineageEdges.push({ branch: id, template: nearest.ref });
  }
  return graph;
}
