/**
 * The validator's findings collector and the small helpers every section of it uses.
 */
import { parseAddress, type Path } from './address.js';

export interface ValidationFinding {
  location: string;
  message: string;
  /** A stable code on warnings a caller may act on (PERCENT_LOOKS_LIKE_FRACTION, …). */
  code?: string;
}

/** Collects findings; remembers error locations so one slip is not reported twice. */
export class Report {
  readonly errors: ValidationFinding[] = [];
  readonly warnings: ValidationFinding[] = [];
  private readonly errorLocations = new Set<string>();

  error(location: string, message: string): void {
    this.errors.push({ location, message });
    this.errorLocations.add(location);
  }
  warn(location: string, message: string, code?: string): void {
    this.warnings.push(code === undefined ? { location, message } : { location, message, code });
  }
  hasErrorAt(location: string): boolean {
    return this.errorLocations.has(location);
  }
}

/** `loc.name` for identifier-like keys, `loc["odd key"]` otherwise. */
export function key(location: string, name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)
    ? `${location}.${name}`
    : `${location}[${JSON.stringify(name)}]`;
}

/** Levenshtein distance; names are short, so the quadratic table is fine. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest candidate within max(1, len/3) edits, if any. */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Checks a required address; returns its parsed path when canonical. */
export function checkAddress(address: string, location: string, report: Report): Path | undefined {
  if (report.hasErrorAt(location)) return undefined; // already reported missing by the loader
  const parsed = parseAddress(address);
  if (!parsed.ok) {
    report.error(location, parsed.message);
    return undefined;
  }
  return parsed.path;
}

/** Flags a repeated key in a keyed list section. */
export function checkUnique(
  seen: Map<string, string>,
  value: string,
  location: string,
  what: string,
  report: Report,
): void {
  if (value === '') return;
  const first = seen.get(value);
  if (first !== undefined)
    report.error(location, `duplicate ${what} '${value}' (first declared at ${first})`);
  else seen.set(value, location);
}
