/**
 * A fast path for the hottest whole-array reader, `$sum(a.b…)` (a path of plain field names): over
 * 100,000 rows JSONata spends most of its time building and budget-checking the path's sequences,
 * while the sum itself is one loop. The fast path walks the document directly, but only where the
 * outcome is certain to be JSONata's: it gives up (NOT_HANDLED) on anything else — a value that is
 * not a plain object, an array of plain objects or a number where it looks, a sequence longer than
 * the budget, a binding that replaces `$sum` — and JSONata evaluates as always. Sums add in document
 * order from 0, as JSONata's `$sum` does, so every value is bit for bit the same;
 * `test/calc/fast-sum.test.ts` holds it to JSONata on generated documents.
 */
import type jsonata from 'jsonata';

type JsonataNode = jsonata.ExprNode;

export const NOT_HANDLED: unique symbol = Symbol('not handled');

export type FastEvaluation = (
  input: unknown,
  bindings: Record<string, unknown> | undefined,
) => number | undefined | typeof NOT_HANDLED;

/** Shortest time budget the fast path runs under: its loop is far quicker than that. */
const MIN_TIMEOUT_MS = 100;

interface Limits {
  timeoutMs: number;
  maxSequence: number;
}

/** Keys every parsed node may carry (from the parser's symbol, see releaseParserTables). */
const NODE_KEYS = new Set(['type', 'value', 'position', 'id', 'lbp']);

/** The field names of `$sum(name.name…)`, or undefined for any other expression. */
function sumPathNames(ast: JsonataNode): string[] | undefined {
  const node = ast as unknown as Record<string, unknown>;
  if (node.type !== 'function' || node.value !== '(') return undefined;
  const procedure = node.procedure as Record<string, unknown> | undefined;
  if (procedure?.type !== 'variable' || procedure.value !== 'sum') return undefined;
  if (Object.keys(procedure).some((k) => !NODE_KEYS.has(k))) return undefined;
  const args = node.arguments as Record<string, unknown>[] | undefined;
  if (!Array.isArray(args) || args.length !== 1) return undefined;
  const path = args[0]!;
  // any other key (group, keepSingletonArray, tuple, …) changes what the path yields
  if (path.type !== 'path' || Object.keys(path).some((k) => k !== 'type' && k !== 'steps')) return undefined;
  const steps = path.steps as Record<string, unknown>[];
  if (!Array.isArray(steps) || steps.length === 0) return undefined;
  const names: string[] = [];
  for (const step of steps) {
    // a plain name step carries exactly these keys; stages, focus, tuple, predicates add others
    const keys = Object.keys(step);
    if (step.type !== 'name' || typeof step.value !== 'string') return undefined;
    if (keys.some((k) => !NODE_KEYS.has(k))) return undefined;
    names.push(step.value);
  }
  return names;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A document array (JSONata marks its own sequences, which carry other rules). */
function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && !Object.prototype.hasOwnProperty.call(value, 'sequence');
}

/** The fast evaluation for `ast` under `limits`, or undefined when the expression has none. */
export function fastEvaluation(ast: JsonataNode, limits: Limits): FastEvaluation | undefined {
  if (limits.timeoutMs < MIN_TIMEOUT_MS) return undefined;
  const names = sumPathNames(ast);
  if (!names) return undefined;
  const maxSequence = limits.maxSequence;
  return (input, bindings) => {
    if (bindings !== undefined && Object.prototype.hasOwnProperty.call(bindings, 'sum')) return NOT_HANDLED;
    if (!isPlainObject(input)) return NOT_HANDLED;
    // JSONata reads own properties only; where Object.prototype has none of that name, a plain
    // object's property read is the same thing, and one lookup instead of two
    const read = (item: Record<string, unknown>, name: string): unknown =>
      name in Object.prototype && !Object.prototype.hasOwnProperty.call(item, name) ? undefined : item[name];
    // each level is a list of runs of items (a document array, or one object), not a copy
    let current: unknown[][] = [[input]];
    for (let i = 0; i < names.length - 1; i++) {
      const name = names[i]!;
      const next: unknown[][] = [];
      let count = 0;
      for (const run of current)
        for (const item of run) {
          if (!isPlainObject(item)) return NOT_HANDLED;
          const value = read(item, name);
          if (value === undefined) continue;
          if (isPlainArray(value)) {
            next.push(value);
            count += value.length;
          } else if (isPlainObject(value)) {
            next.push([value]);
            count++;
          } else return NOT_HANDLED;
        }
      if (count > maxSequence) return NOT_HANDLED;
      if (count === 0) return undefined; // the path yields nothing: $sum of nothing
      current = next;
    }
    const last = names[names.length - 1]!;
    let found = 0;
    let first: unknown;
    let total = 0;
    let count = 0;
    for (const run of current)
      for (const item of run) {
        if (!isPlainObject(item)) return NOT_HANDLED;
        const value = read(item, last);
        if (value === undefined) continue;
        if (found++ === 0) first = value;
        if (typeof value === 'number') {
          total += value;
          count++;
        } else if (isPlainArray(value)) {
          // flattened one level into the sequence
          for (const element of value) {
            if (typeof element !== 'number') return NOT_HANDLED;
            total += element;
            count++;
          }
        } else return NOT_HANDLED;
      }
    if (count > maxSequence) return NOT_HANDLED;
    // JSONata hands a lone array found at the last step over whole, so `[]` sums to 0; otherwise an
    // empty sequence is nothing
    if (found === 1 && isPlainArray(first)) return total;
    return count === 0 ? undefined : total;
  };
}
