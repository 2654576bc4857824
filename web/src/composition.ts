/**
 * What the card says of a model's composition (docs/composition.md): the template it was branched
 * from (the nearest lineage entry) and its links to other models with each one's last phase, read
 * from the spec and state the card already has.
 */
type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface CompositionSummary {
  branchedFrom?: { ref: string; version?: string };
  links: { effectId: string; target: string; kind: 'write' | 'read'; watch: boolean; phase?: string }[];
}

/** The value at a `$.a.b` status path of the state (plain dotted paths only; others give undefined). */
function at(state: Json, path: string): Json {
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(path)) return undefined;
  let v: Json = state;
  for (const key of path.slice(2).split('.')) {
    if (!isObject(v) || !Object.hasOwn(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

export function compositionSummary(spec: Json, state: Json): CompositionSummary | undefined {
  if (!isObject(spec)) return undefined;
  const out: CompositionSummary = { links: [] };
  const nearest = Array.isArray(spec.lineage) ? spec.lineage[0] : undefined;
  if (isObject(nearest) && typeof nearest.ref === 'string')
    out.branchedFrom = {
      ref: nearest.ref,
      ...(typeof nearest.version === 'string' ? { version: nearest.version } : {}),
    };
  for (const e of Array.isArray(spec.effects) ? spec.effects : []) {
    if (!isObject(e) || !isObject(e.target) || typeof e.target.ref !== 'string') continue;
    const status = typeof e.statusPath === 'string' ? at(state, e.statusPath) : undefined;
    out.links.push({
      effectId: String(e.id),
      target: e.target.ref,
      kind: typeof e.target.read === 'string' ? 'read' : 'write',
      watch: e.target.watch === true,
      ...(isObject(status) && typeof status.phase === 'string' ? { phase: status.phase } : {}),
    });
  }
  return out.branchedFrom || out.links.length > 0 ? out : undefined;
}
