/**
 * Shared JSONata programs for expressions of the same shape. A generated or converted model holds
 * thousands of derivations that differ only in the fields they name (`in12 * 3 + b12`,
 * `in13 * 3 + b13`), and `jsonata(text)` costs about half a millisecond each, most of it building
 * the parser's symbol table afresh. Texts whose only differences are plain field names share one
 * JSONata program: the first is compiled as written, and its syntax tree's name steps (and the
 * positions errors report) read the names of the expression being evaluated from an async context,
 * so concurrent evaluations of different members never see each other's names. Each member has its
 * own syntax tree (the shared tree with its names and positions), built when something reads it;
 * the validator's checks and the dependency extraction analyse the shape once instead (its first
 * tree, or `slotTree` with a placeholder per name) and put each member's names in.
 *
 * The shape is found by a deliberately narrow scan: a text with a string, a backtick name, a
 * comment, a regular expression, a lambda or any character outside JSONata's operators, digits,
 * identifiers and whitespace is compiled on its own, as before. The first member's tree is checked
 * against the scan (every `name` node sits at a name the scan found, and no other node holds one),
 * so a shape the scan misread is never shared. `test/calc/expression-shape.test.ts` holds shared
 * compilations to direct ones on generated expressions and documents: trees, values, types and
 * errors (message and position).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { fastArithmeticOfShape } from './fast-arithmetic.js';

/** One text's shape: the text with each field name replaced by a slot, and the names in order. */
export interface ExpressionShape {
  key: string;
  names: string[];
  /** Where each name ends in the text (JSONata's token positions are token ends). */
  ends: number[];
}

const OPERATOR_CHARS = new Set('.[]{}(),@#;:?+-*/%|=<>^&!~');
const SPACE = new Set(' \t\n\r\v');
/** Names the lexer turns into operators or literals, and the lambda keywords: never slots. */
const KEYWORDS = new Set(['and', 'or', 'in', 'true', 'false', 'null']);
const LAMBDA = new Set(['function']);
const SLOT = '\u0001';

const isIdentStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isIdentChar = (c: string): boolean => isIdentStart(c) || isDigit(c);
const NUMBER = /(0|[1-9][0-9]*)(\.[0-9]+)?([Ee][-+]?[0-9]+)?/y;

/** The shape of a text, or null when the narrow scan cannot vouch for it (see the module comment). */
export function shapeOf(text: string): ExpressionShape | null {
  // the key is the text with each name replaced by SLOT: everything else is copied as written, so
  // it is built from slices of the text (appending character by character made garbage per text)
  let key = '';
  let copied = 0;
  const names: string[] = [];
  const ends: number[] = [];
  /** Whether the previous token ends an operand (then `/` divides; otherwise it opens a regex). */
  let afterOperand = false;
  let i = 0;
  const n = text.length;
  const delimited = (at: number): boolean => at >= n || SPACE.has(text[at]!) || OPERATOR_CHARS.has(text[at]!);
  while (i < n) {
    const c = text[i]!;
    if (SPACE.has(c)) {
      i++;
      continue;
    }
    if (isDigit(c)) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return null; // sticky: test() moves lastIndex without a match array
      const end = NUMBER.lastIndex;
      if (!delimited(end)) return null;
      i = end;
      afterOperand = true;
      continue;
    }
    if (c === '$') {
      let end = i + 1;
      while (end < n && isIdentChar(text[end]!)) end++;
      if (!delimited(end)) return null;
      i = end;
      afterOperand = true;
      continue;
    }
    if (isIdentStart(c)) {
      let end = i + 1;
      while (end < n && isIdentChar(text[end]!)) end++;
      if (!delimited(end)) return null;
      const word = text.slice(i, end);
      if (LAMBDA.has(word)) return null;
      let next = end;
      while (next < n && SPACE.has(text[next]!)) next++;
      if (KEYWORDS.has(word) || text[next] === '(') {
        // an operator word, a literal, or a name in call position: part of the shape
        afterOperand = word === 'true' || word === 'false' || word === 'null' || !KEYWORDS.has(word);
      } else {
        key += text.slice(copied, i) + SLOT;
        copied = end;
        names.push(word);
        ends.push(end);
        afterOperand = true;
      }
      i = end;
      continue;
    }
    if (!OPERATOR_CHARS.has(c)) return null; // strings, backticks, non-ASCII: compiled alone
    if (c === '/' && (!afterOperand || text[i + 1] === '*')) return null; // a regex or a comment
    afterOperand = c === ')' || c === ']' || c === '}';
    i++;
  }
  key += text.slice(copied);
  return { key, names, ends };
}

/** What an evaluation of a shared program reads instead of the first member's names. */
export interface MemberContext {
  /** The shape whose program this member evaluates (a nested evaluation of another shape ignores it). */
  owner: SharedShape;
  names: readonly string[];
  /** `shift[k]`: how far a position after the first k names moves (their length differences). */
  shift: readonly number[];
}

const current = new AsyncLocalStorage<MemberContext>();

/**
 * Evaluations running as a member. While an AsyncLocalStorage is enabled, Node 20 runs a hook on
 * every promise of the process (about 0.13 µs each: a tenth of an MCP round trip's server time),
 * so the storage is disabled again whenever no member evaluation is in flight.
 */
let membersInFlight = 0;
const memberSettled = (): void => {
  if (--membersInFlight === 0) current.disable();
};

/** Runs `evaluate` with the member's names in force for the shared program. */
export function asMember<T>(member: MemberContext, evaluate: () => Promise<T>): Promise<T> {
  membersInFlight++;
  let evaluation: Promise<T>;
  try {
    evaluation = current.run(member, evaluate);
  } catch (err) {
    memberSettled();
    throw err;
  }
  evaluation.then(memberSettled, memberSettled);
  return evaluation;
}

type Node = Record<string, unknown>;

/**
 * The shared side of one shape: the first member's tree (its name nodes and positions turned into
 * context readers) and a cloner that gives each member its own tree.
 */
export class SharedShape {
  /** The shape's arithmetic fast path, compiled on first use; null when the shape has none. */
  private arithmeticPath: ReturnType<typeof fastArithmeticOfShape> | null | undefined;

  private constructor(
    private readonly template: ExpressionShape,
    /** The first member's tree as compiled (plain data, before any reader was installed). */
    private readonly pristine: unknown,
  ) {}

  /**
   * Prepares a shape from the first member's compiled tree, or answers null when the tree does not
   * match the scan (then the shape is never shared). Installs the readers on `liveTree`, the tree
   * the shared JSONata program evaluates.
   */
  static from(shape: ExpressionShape, liveTree: unknown): SharedShape | null {
    const slotByEnd = new Map<number, number>();
    shape.ends.forEach((end, k) => slotByEnd.set(end, k));
    const names = new Set(shape.names);
    const hit = new Set<number>();
    const seen = new Set<object>();
    let ok = true;
    const check = (node: unknown): void => {
      if (!ok || node === null || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      if (Array.isArray(node)) {
        for (const v of node) check(v);
        return;
      }
      const o = node as Node;
      for (const [k, v] of Object.entries(o)) {
        if (typeof v === 'string' && k !== 'type' && names.has(v)) {
          const slot = typeof o.position === 'number' ? slotByEnd.get(o.position) : undefined;
          if (o.type !== 'name' || k !== 'value' || slot === undefined || shape.names[slot] !== v) ok = false;
          else hit.add(slot);
        } else if (typeof v === 'function') ok = false;
        else check(v);
      }
    };
    check(liveTree);
    if (!ok || hit.size !== shape.names.length) return null;
    const shared = new SharedShape(
      shape,
      cloneTree(liveTree, (n) => n),
    );
    installReaders(liveTree, shape, slotByEnd, shared);
    return shared;
  }

  /**
   * The first member's tree as compiled, for analyses that read the tree's structure and not its
   * field names (name checks, regex checks, which variables it reads): shared, never to be changed.
   */
  get firstTree(): unknown {
    return this.pristine;
  }

  private slotted: unknown;
  /**
   * The first member's tree with each slot's name node holding `slotName(k)` instead of a name: what
   * an analysis that copies names into its answer (dependency extraction) runs on once per shape,
   * then puts each member's names in (`slotIndex`). Shared, never to be changed.
   */
  slotTree(): unknown {
    if (this.slotted !== undefined) return this.slotted;
    const ends = this.template.ends;
    this.slotted = cloneTree(this.pristine, (node) => {
      const slot =
        node.type === 'name' && typeof node.position === 'number' ? ends.indexOf(node.position) : -1;
      if (slot >= 0) node.value = slotName(slot);
      return node;
    });
    return this.slotted;
  }

  /** The member for a text of this shape (its names and how its positions move). */
  member(names: readonly string[]): MemberContext {
    const shift: number[] = [0];
    let total = 0;
    for (let k = 0; k < names.length; k++) {
      total += names[k]!.length - this.template.names[k]!.length;
      shift.push(total);
    }
    return { owner: this, names, shift };
  }

  /**
   * The arithmetic fast path (fast-arithmetic.ts) of every member, compiled once from the first
   * member's tree: its name steps read the evaluated member's names (`member.names`).
   */
  arithmetic(): ReturnType<typeof fastArithmeticOfShape> | null {
    if (this.arithmeticPath !== undefined) return this.arithmeticPath;
    const ends = this.template.ends;
    this.arithmeticPath =
      fastArithmeticOfShape(this.pristine, (node) => {
        const slot =
          node.type === 'name' && typeof node.position === 'number' ? ends.indexOf(node.position) : -1;
        return slot >= 0 ? slot : undefined;
      }) ?? null;
    return this.arithmeticPath;
  }

  /** The member's own syntax tree: the first member's, with its names and positions. */
  treeOf(names: readonly string[], member: MemberContext): unknown {
    const ends = this.template.ends;
    return cloneTree(this.pristine, (node) => {
      if (typeof node.position === 'number') {
        const p = node.position;
        const slot = node.type === 'name' ? ends.indexOf(p) : -1;
        if (slot >= 0) node.value = names[slot];
        node.position = p + member.shift[slotsEndingBy(ends, p)]!;
      }
      return node;
    });
  }
}

/**
 * A slot's placeholder in `slotTree`: a NUL cannot occur in a name the shape scan accepts, so no
 * member's name is ever taken for one (an address segment could hold one: callers check).
 */
export const SLOT_PREFIX = '\u0000slot:';
const slotName = (k: number): string => `${SLOT_PREFIX}${k}`;
/** The slot a placeholder names, or -1 for any other segment. */
export function slotIndex(segment: unknown): number {
  return typeof segment === 'string' && segment.startsWith(SLOT_PREFIX)
    ? Number(segment.slice(SLOT_PREFIX.length))
    : -1;
}

/** How many names end at or before position `p` (ends ascend). */
function slotsEndingBy(ends: readonly number[], p: number): number {
  let k = 0;
  while (k < ends.length && ends[k]! <= p) k++;
  return k;
}

/** A deep copy of a syntax tree (shared subtrees stay shared), each object passed through `edit`. */
function cloneTree(tree: unknown, edit: (node: Node) => Node): unknown {
  // most trees share no node: then a plain recursive copy, without the memo's cost
  const copies = sharesNodes(tree) ? new Map<object, unknown>() : undefined;
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const done = copies?.get(v);
    if (done !== undefined) return done;
    if (Array.isArray(v)) {
      const out: unknown[] = new Array<unknown>(v.length);
      copies?.set(v, out);
      for (let i = 0; i < v.length; i++) out[i] = copy(v[i]);
      return out;
    }
    const out: Node = {};
    copies?.set(v, out);
    const from = v as Node;
    for (const k in from) if (Object.prototype.hasOwnProperty.call(from, k)) out[k] = copy(from[k]);
    return edit(out);
  };
  return copy(tree);
}

const sharing = new WeakMap<object, boolean>();
/** Whether some object of the tree is reached twice (remembered per tree). */
function sharesNodes(tree: unknown): boolean {
  if (tree === null || typeof tree !== 'object') return false;
  const known = sharing.get(tree);
  if (known !== undefined) return known;
  const seen = new Set<object>();
  let shared = false;
  const visit = (v: unknown): void => {
    if (shared || v === null || typeof v !== 'object') return;
    if (seen.has(v)) {
      shared = true;
      return;
    }
    seen.add(v);
    for (const x of Object.values(v)) visit(x);
  };
  visit(tree);
  sharing.set(tree, shared);
  return shared;
}

/** Turns the live tree's names and positions into readers of the evaluating member. */
function installReaders(
  tree: unknown,
  shape: ExpressionShape,
  slotByEnd: Map<number, number>,
  owner: SharedShape,
): void {
  const evaluating = (): MemberContext | undefined => {
    const m = current.getStore();
    return m?.owner === owner ? m : undefined;
  };
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const v of node) visit(v);
      return;
    }
    const o = node as Node;
    for (const v of Object.values(o)) visit(v);
    if (typeof o.position !== 'number') return;
    const p = o.position;
    const before = slotsEndingBy(shape.ends, p);
    Object.defineProperty(o, 'position', {
      enumerable: true,
      configurable: true,
      get: () => {
        const m = evaluating();
        return m ? p + m.shift[before]! : p;
      },
    });
    const slot = o.type === 'name' ? slotByEnd.get(p) : undefined;
    if (slot !== undefined) {
      const own = shape.names[slot]!;
      Object.defineProperty(o, 'value', {
        enumerable: true,
        configurable: true,
        get: () => evaluating()?.names[slot] ?? own,
      });
    }
  };
  visit(tree);
}
