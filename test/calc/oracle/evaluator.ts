/**
 * The oracle's from-scratch evaluation: written for the test, sharing no code with the engine.
 * A state is its base document; everything else follows from it: every derivation in dependency
 * order (each stage sees the document as the stages before it left it) with plain `jsonata`, then
 * the constraints. Addresses here are plain segment lists; the test formats them for the service.
 */
import jsonata from 'jsonata';

export type Segments = (string | number)[];
export type Doc = Record<string, unknown>;

export interface OracleRule {
  /** Target; `'*'` stands for every row of the array before it. */
  target: Segments;
  expr: string;
  lazy: boolean;
  /** Dependency order: a rule reads only rules of lower stages (root readers see every lower stage). */
  stage: number;
}

export interface OracleConstraint {
  id: string;
  expr: string;
  policy: 'rollback' | 'flag';
}

export interface DefaultRule {
  /** The container pattern (`'*'` matches any row) and the leaves it fills when absent or null. */
  container: Segments;
  fill: Doc;
}

const compiled = new Map<string, jsonata.Expression>();
function compile(expr: string): jsonata.Expression {
  let c = compiled.get(expr);
  if (!c) compiled.set(expr, (c = jsonata(expr)));
  return c;
}

/** A JSON copy; JSONata's results (sequences, null-prototype objects, undefined) become plain JSON. */
export function plain<T>(value: T): T {
  return value === undefined ? (null as T) : (JSON.parse(JSON.stringify(value)) as T);
}

/** An expression's value; an evaluation error (`$sum` of a null) gives no value, so null is stored. */
export async function run(
  expr: string,
  input: unknown,
  bindings: Record<string, unknown> = {},
): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await compile(expr).evaluate(input, bindings) };
  } catch {
    return { ok: false };
  }
}

export function get(doc: unknown, path: Segments): unknown {
  let at: unknown = doc;
  for (const seg of path) {
    if (at === null || typeof at !== 'object') return undefined;
    if (!Object.hasOwn(at, seg)) return undefined;
    at = (at as Record<string | number, unknown>)[seg];
  }
  return at;
}

/** Sets a value, creating missing objects on the way (rules and writes never skip an index). */
export function put(doc: Doc, path: Segments, value: unknown): void {
  let at: Record<string | number, unknown> = doc;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i]!;
    let next = at[seg];
    if (next === null || typeof next !== 'object') {
      next = typeof path[i + 1] === 'number' ? [] : {};
      at[seg] = next;
    }
    at = next as Record<string | number, unknown>;
  }
  at[path[path.length - 1]!] = value;
}

/** The full state of a base document: derivations by stage, each stage against the one before. */
export async function fromScratch(rules: readonly OracleRule[], base: Doc): Promise<Doc> {
  const doc = plain(base);
  const stages = [...new Set(rules.map((r) => r.stage))].sort((a, b) => a - b);
  for (const stage of stages) {
    const results: [Segments, unknown][] = [];
    for (const rule of rules.filter((r) => r.stage === stage)) {
      const star = rule.target.indexOf('*');
      if (star < 0) {
        if (rule.target.length > 1 && !isContainerOrAbsent(get(doc, rule.target.slice(0, -1)))) continue;
        const out = await run(rule.expr, doc);
        results.push([rule.target, out.ok ? plain(out.value) : null]);
        continue;
      }
      const rows = get(doc, rule.target.slice(0, star));
      if (!Array.isArray(rows)) continue;
      for (let r = 0; r < rows.length; r++) {
        const out = await run(rule.expr, doc, { parent: rows[r], index: r });
        const at = [...rule.target.slice(0, star), r, ...rule.target.slice(star + 1)];
        results.push([at, out.ok ? plain(out.value) : null]);
      }
    }
    for (const [path, value] of results) put(doc, path, value);
  }
  return doc;
}

function isContainerOrAbsent(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'object';
}

/** The constraints that fail on a full state. */
export async function failing(
  constraints: readonly OracleConstraint[],
  state: Doc,
): Promise<OracleConstraint[]> {
  const out: OracleConstraint[] = [];
  for (const c of constraints) {
    const result = await run(c.expr, state);
    const v = result.ok ? result.value : undefined; // an evaluation error fails the constraint
    const passed = v !== undefined && v !== null && v !== false && v !== 0 && v !== '';
    if (!passed) out.push(c);
  }
  return out;
}

function matches(pattern: Segments, path: Segments): boolean {
  return pattern.length === path.length && pattern.every((s, i) => s === '*' || s === path[i]);
}

/** Fills a new container's absent (or null) leaves from every rule matching it; derived targets skipped. */
export function applyDefaults(
  base: Doc,
  container: Segments,
  rules: readonly DefaultRule[],
  derivedTargets: readonly Segments[],
): void {
  for (const rule of rules) {
    if (!matches(rule.container, container)) continue;
    const leaves: [Segments, unknown][] = [];
    const walk = (v: unknown, at: Segments): void => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0)
        for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
      else if (v !== null) leaves.push([at, v]);
    };
    walk(rule.fill, container);
    for (const [leaf, value] of leaves) {
      const now = get(base, leaf);
      if (now !== undefined && now !== null) continue;
      if (derivedTargets.some((t) => matches(t, leaf))) continue;
      put(base, leaf, plain(value));
    }
  }
}
