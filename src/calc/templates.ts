/**
 * Branching from a template (issue 41): a spec with `template: {ref}` is materialised into a
 * self-contained spec before it is validated and stored. The template is resolved (through a
 * resolver the service gives: the engine knows no store), its sections are merged under the
 * branch's own by the rules below, `template` is dropped and `lineage` pinned — one entry per
 * ancestor, nearest first, each with the version and the SHA-256 digest of the spec it was
 * served as. Deleting the template later changes nothing in the branch.
 *
 * A stored model is already materialised, so the template's own ancestors come from its stored
 * lineage: meeting an identity twice on that chain (the branch's own id included) is a cycle.
 *
 * Merge rules, base = the template, overlay = the branch:
 *   derivations      keyed by path (base order kept, new ones appended)
 *   metaDerivations  keyed by path#property
 *   constraints, effects  keyed by id (an inherited effect gets `origin: {fromRef, fromOwner}`)
 *   defaultValues    keyed by path
 *   constants        key by key, the overlay's wins
 *   schema           the overlay's, unless it is empty ({} or absent)
 *   viewDefinition   the overlay's if present
 *   tests            the overlay's if it has any
 *   library          layers concatenated, base first (an inherited layer with the same ref is
 *                    added once), `extends` unioned, the overlay's description if set
 */
import { createHash } from 'node:crypto';
import { type Coordinate, ownerOf, parseCoordinate } from './coordinates.js';
import { CalcError } from './errors.js';
import { canonicalJson, isObject, type JsonObject, type JsonValue } from './json.js';

/** A stored model a coordinate resolved to. */
export interface ResolvedTemplate {
  /** Its id (an identity). */
  id: string;
  version: string;
  /** The spec as the server serves it (self-contained). */
  spec: JsonObject;
  /** The repository it was found in (`local` for this server's store). */
  repo: string;
}

/** Finds the model a coordinate names (version spec included), or undefined. */
export type TemplateResolver = (coordinate: Coordinate) => Promise<ResolvedTemplate | undefined>;

/** `sha256:` and the hex digest of a spec's canonical JSON (what a lineage entry pins). */
export function specDigest(spec: JsonValue): string {
  return `sha256:${createHash('sha256').update(canonicalJson(spec)).digest('hex')}`;
}

/**
 * The branch materialised: its template's sections merged under its own, `template` removed,
 * `lineage` pinned. A spec without a template comes back as it is (the same object).
 * @throws CalcError TEMPLATE_UNRESOLVED (nothing answers the ref), TEMPLATE_CYCLE (an identity
 *   met twice on the ancestor chain, the branch's own id included)
 */
export async function materialiseTemplate(raw: JsonObject, resolve: TemplateResolver): Promise<JsonObject> {
  const template = raw.template;
  if (template === undefined || template === null) return raw;
  // the validator words a malformed template; here only a well-formed one is resolved
  if (!isObject(template)) return raw;
  const coordinate = parseCoordinate(template.ref);
  if (coordinate === undefined) return raw;
  const own = typeof raw.id === 'string' ? raw.id : '';
  if (coordinate.identity === own)
    throw new CalcError('TEMPLATE_CYCLE', `model '${own}' names itself as its template`, {
      error: 'Template cycle',
      chain: [own, own],
    });
  const found = await resolve(coordinate);
  if (found === undefined)
    throw new CalcError(
      'TEMPLATE_UNRESOLVED',
      `template '${coordinate.text}' resolves to no stored model${coordinate.version.kind === 'any' ? '' : ' at that version'}: create it first, or fix the ref`,
      { error: 'Unresolved template', ref: coordinate.text },
    );
  const inherited = Array.isArray(found.spec.lineage) ? found.spec.lineage : [];
  // null fields are left out
  const entry: JsonObject = {
    ref: found.id,
    version: found.version,
    digest: specDigest(found.spec),
    repo: found.repo,
  };
  const owner = ownerOf(found.id);
  if (owner !== undefined) entry.owner = owner;
  const lineage: JsonValue[] = [entry, ...inherited];
  const chain = [own, ...lineage.map((e) => (isObject(e) && typeof e.ref === 'string' ? e.ref : ''))];
  const seen = new Set<string>();
  for (const id of chain) {
    if (seen.has(id))
      throw new CalcError('TEMPLATE_CYCLE', `the template chain meets '${id}' twice: ${chain.join(' → ')}`, {
        error: 'Template cycle',
        chain,
      });
    seen.add(id);
  }
  const merged = mergeLayers(found.spec, raw, found.id);
  merged.lineage = lineage;
  delete merged.template;
  return merged;
}

const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** Entries of `base` then `overlay` by key: an overlay entry replaces the base's in place. */
function keyed(
  base: JsonValue | undefined,
  overlay: JsonValue | undefined,
  key: (e: JsonObject) => string | undefined,
  adopt: (e: JsonObject) => JsonObject = (e) => e,
): JsonValue[] {
  const out: JsonValue[] = [];
  const at = new Map<string, number>();
  for (const e of list(base)) {
    const k = isObject(e) ? key(e) : undefined;
    if (k !== undefined) at.set(k, out.length);
    out.push(isObject(e) ? adopt(e) : e);
  }
  for (const e of list(overlay)) {
    const k = isObject(e) ? key(e) : undefined;
    const i = k === undefined ? undefined : at.get(k);
    if (i === undefined) out.push(e);
    else out[i] = e;
  }
  return out;
}

const str = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function isEmptySchema(v: JsonValue | undefined): boolean {
  return v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0);
}

/** The overlay merged over the base (module comment); `templateId` names inherited origins. */
function mergeLayers(base: JsonObject, overlay: JsonObject, templateId: string): JsonObject {
  const merged: JsonObject = { ...overlay };
  const fromOwner = ownerOf(templateId);
  // an effect keeps the origin it already had (from a farther ancestor: the nearest one that
  // defines it); one the template wrote itself gets the template as its origin. An approval is
  // its approver's: it never travels into a branch, whose owner approves for themselves.
  const adoptEffect = (e: JsonObject): JsonObject => {
    if (!isObject(e.origin))
      return { ...e, origin: { fromRef: templateId, ...(fromOwner !== undefined ? { fromOwner } : {}) } };
    const { approved: _approved, ...origin } = e.origin;
    return { ...e, origin };
  };
  merged.derivations = keyed(base.derivations, overlay.derivations, (e) => str(e.path));
  merged.metaDerivations = keyed(base.metaDerivations, overlay.metaDerivations, (e) =>
    str(e.path) !== undefined && str(e.property) !== undefined
      ? `${str(e.path)}#${str(e.property)}`
      : undefined,
  );
  merged.constraints = keyed(base.constraints, overlay.constraints, (e) => str(e.id));
  merged.effects = keyed(base.effects, overlay.effects, (e) => str(e.id), adoptEffect);
  merged.defaultValues = keyed(base.defaultValues, overlay.defaultValues, (e) => str(e.path));
  merged.constants = {
    ...(isObject(base.constants) ? base.constants : {}),
    ...(isObject(overlay.constants) ? overlay.constants : {}),
  };
  if (isEmptySchema(overlay.schema) && base.schema !== undefined) merged.schema = base.schema;
  if (
    (overlay.viewDefinition === undefined || overlay.viewDefinition === null) &&
    base.viewDefinition !== undefined
  )
    merged.viewDefinition = base.viewDefinition;
  if (list(overlay.tests).length === 0 && base.tests !== undefined) merged.tests = base.tests;
  const library = mergeLibrary(base, overlay, templateId);
  if (library !== undefined) merged.library = library;
  return merged;
}

/** The library layers of a spec's `library` value as objects (a bare string is one layer). */
function layersOf(library: JsonValue | undefined): JsonObject[] {
  if (typeof library === 'string') return [{ define: library }];
  if (!isObject(library)) return [];
  const out: JsonObject[] = [];
  for (const l of list(library.layers))
    if (typeof l === 'string') out.push({ define: l });
    else if (isObject(l)) out.push(l);
  if (typeof library.define === 'string') out.push({ define: library.define });
  return out;
}

function mergeLibrary(base: JsonObject, overlay: JsonObject, templateId: string): JsonValue | undefined {
  const b = base.library;
  const o = overlay.library;
  if (b === undefined || b === null) return o;
  // the template's own definitions become a layer pinned to it; its inherited layers keep their refs
  const version = str(base.version);
  const inherited = layersOf(b).map((l) =>
    l.ref !== undefined ? l : { ...l, ref: templateId, ...(version !== undefined ? { version } : {}) },
  );
  const mine = isObject(o) ? o : typeof o === 'string' ? { define: o } : {};
  const layers: JsonValue[] = [];
  const refs = new Set<string>();
  for (const l of [...inherited, ...list(mine.layers)]) {
    const ref = isObject(l) ? str(l.ref) : undefined;
    // a diamond brings the same ancestor's layer twice: it is compiled once
    if (ref !== undefined && refs.has(ref)) continue;
    if (ref !== undefined) refs.add(ref);
    layers.push(l);
  }
  const ext = [...new Set([...list(isObject(b) ? b.extends : undefined), ...list(mine.extends)].map(String))];
  const out: JsonObject = { layers };
  if (typeof mine.define === 'string') out.define = mine.define;
  const description = str(mine.description) ?? (isObject(b) ? str(b.description) : undefined);
  if (description !== undefined) out.description = description;
  if (ext.length > 0) out.extends = ext;
  if (isObject(mine.signatures) || (isObject(b) && isObject(b.signatures)))
    out.signatures = {
      ...(isObject(b) && isObject(b.signatures) ? b.signatures : {}),
      ...(isObject(mine.signatures) ? mine.signatures : {}),
    };
  return out;
}
