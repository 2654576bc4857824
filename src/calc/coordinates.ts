/**
 * Model coordinates (issue 41): `[namespace/]name[@version-spec]`, the way one model names
 * another — a template to branch from, a link's target. A segment is `[A-Za-z][A-Za-z0-9_-]*`;
 * the namespace may be dotted (`acme.finance/quote`). The version spec is an exact semver, a
 * range (one operator `^ ~ >= > <= < =` then a semver), or `sha256:` and 64 hex digits. The
 * identity is `namespace/name` (the version dropped); the owner is the namespace, if any.
 * Version comparison is semver's own (the `semver` package): a pre-release sorts before its
 * release, and a range admits pre-releases only of its own version, as npm ranges do.
 */
// semver's functions one by one: its index requires all of it (some 50 modules), which every
// process that loads the calc engine paid for (`modelworks mcp` before its first tools/list)
import eq from 'semver/functions/eq.js';
import satisfies from 'semver/functions/satisfies.js';
import valid from 'semver/functions/valid.js';

const SEGMENT = '[A-Za-z][A-Za-z0-9_-]*';
const IDENTITY = new RegExp(`^(?:(${SEGMENT}(?:\\.${SEGMENT})*)/)?(${SEGMENT})$`);
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const RANGE = /^(\^|~|>=|>|<=|<|=)(.+)$/;

export type VersionSpec =
  | { kind: 'any' }
  | { kind: 'exact'; version: string }
  | { kind: 'range'; operator: string; version: string }
  | { kind: 'digest'; digest: string };

export interface Coordinate {
  /** `namespace/name`, or `name` without a namespace. */
  identity: string;
  /** The namespace (the owner), or undefined. */
  namespace?: string;
  name: string;
  version: VersionSpec;
  /** The text it was read from. */
  text: string;
}

/** A strict semver (`1.2.3`, `1.2.3-rc.1`): no `v`, no loose forms. */
function exactSemver(text: string): string | undefined {
  const v = valid(text);
  return v !== null && v === text ? v : undefined;
}

function parseVersion(text: string): VersionSpec | undefined {
  if (text.startsWith('sha256:')) return DIGEST.test(text) ? { kind: 'digest', digest: text } : undefined;
  const exact = exactSemver(text);
  if (exact !== undefined) return { kind: 'exact', version: exact };
  const m = RANGE.exec(text);
  if (m === null) return undefined;
  const version = exactSemver(m[2]!);
  return version === undefined ? undefined : { kind: 'range', operator: m[1]!, version };
}

/** The coordinate `text` names, or undefined when it is not one. */
export function parseCoordinate(text: unknown): Coordinate | undefined {
  if (typeof text !== 'string') return undefined;
  const at = text.indexOf('@');
  const m = IDENTITY.exec(at < 0 ? text : text.slice(0, at));
  if (m === null) return undefined;
  const version = at < 0 ? ({ kind: 'any' } as const) : parseVersion(text.slice(at + 1));
  if (version === undefined) return undefined;
  const namespace = m[1];
  return {
    identity: namespace === undefined ? m[2]! : `${namespace}/${m[2]!}`,
    ...(namespace !== undefined ? { namespace } : {}),
    name: m[2]!,
    version,
    text,
  };
}

/** Whether `text` is a coordinate without a version (a model id, a lineage ref). */
export function isIdentity(text: unknown): text is string {
  return typeof text === 'string' && IDENTITY.test(text);
}

/** The owner of a model id: its namespace, or undefined. */
export function ownerOf(identity: string): string | undefined {
  const slash = identity.lastIndexOf('/');
  return slash < 0 ? undefined : identity.slice(0, slash);
}

/**
 * Whether a model at `version` (with canonical digest `digest`) is one `spec` accepts. A version
 * that is not a semver satisfies only "any" and a digest.
 */
export function versionAccepts(spec: VersionSpec, version: string, digest: string): boolean {
  switch (spec.kind) {
    case 'any':
      return true;
    case 'digest':
      return spec.digest === digest;
    case 'exact':
      return valid(version) !== null && eq(version, spec.version);
    case 'range': {
      if (valid(version) === null) return false;
      const range = spec.operator === '=' ? spec.version : `${spec.operator}${spec.version}`;
      return satisfies(version, range);
    }
  }
}
