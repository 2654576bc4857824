/**
 * The links between models (issue 41; valem-parity.md §1.3, §1.6): a `server` effect with a
 * `target` writes into (`target.path`) or reads from (`target.read`) another model. This module
 * reads the links out of specs and checks the topology a new or evolved spec would make with the
 * models already stored: every target exists (unless the check is deferred), and a cycle of links
 * is allowed only when every link on it carries both `statusPath` and `dedupeKey` — the two that
 * let a run see that its answer already arrived, so a ping⇄pong settles instead of looping.
 */
import { parseCoordinate } from './coordinates.js';
import { CalcError } from './errors.js';
import type { ModelSpec } from './spec.js';

export interface LinkEdge {
  from: string;
  /** The target's identity (the coordinate's version dropped). */
  to: string;
  effectId: string;
  kind: 'write' | 'read';
  /** Both statusPath and dedupeKey: the link may lie on a cycle. */
  guarded: boolean;
  statusPath?: string;
}

/** The links a spec declares (effects with a well-formed target). */
export function linkEdges(spec: Pick<ModelSpec, 'id' | 'effects'>): LinkEdge[] {
  const edges: LinkEdge[] = [];
  for (const e of spec.effects) {
    const target = e.target;
    if (!target) continue;
    const c = parseCoordinate(target.ref);
    if (!c) continue;
    edges.push({
      from: spec.id,
      to: c.identity,
      effectId: e.id,
      kind: target.path !== undefined ? 'write' : 'read',
      guarded: typeof e.statusPath === 'string' && typeof e.dedupeKey === 'string',
      ...(typeof e.statusPath === 'string' ? { statusPath: e.statusPath } : {}),
    });
  }
  return edges;
}

/**
 * Checks the links of `candidate` against the stored specs (the candidate replaces a stored spec
 * of the same id).
 * @throws CalcError LINK_TARGET_UNRESOLVED (a target no model has, unless `lazyTargets`),
 *   LINK_CYCLE_UNGUARDED (a link without statusPath or dedupeKey on a cycle)
 */
export function checkLinkTopology(
  candidate: Pick<ModelSpec, 'id' | 'effects'>,
  stored: readonly Pick<ModelSpec, 'id' | 'effects'>[],
  options: { lazyTargets?: boolean } = {},
): void {
  const specs = new Map(stored.map((s) => [s.id, s]));
  specs.set(candidate.id, candidate);
  if (options.lazyTargets !== true)
    for (const edge of linkEdges(candidate))
      if (!specs.has(edge.to))
        throw new CalcError(
          'LINK_TARGET_UNRESOLVED',
          `link '${edge.effectId}' of model '${candidate.id}' targets '${edge.to}', which is not a stored model: create it first, or set MODELWORKS_LAZY_LINK_TARGETS=true to check targets only when the link runs`,
          { error: 'Unresolved link target', effectId: edge.effectId, source: candidate.id, target: edge.to },
        );
  const edges = [...specs.values()].flatMap((s) => linkEdges(s));
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  /** Whether `to` can reach `from` along the links (the edge from → to lies on a cycle). */
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === goal) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...(out.get(at) ?? []));
    }
    return false;
  };
  for (const e of edges)
    if (!e.guarded && reaches(e.to, e.from))
      throw new CalcError(
        'LINK_CYCLE_UNGUARDED',
        `link '${e.effectId}' of model '${e.from}' to '${e.to}' lies on a cycle of links but lacks ${e.statusPath === undefined ? 'statusPath' : 'dedupeKey'}: a link on a cycle needs both, so a run can tell its own answer coming back`,
        { error: 'Unguarded cycle', effectId: e.effectId, source: e.from, target: e.to },
      );
}
