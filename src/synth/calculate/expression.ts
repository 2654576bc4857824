/**
 * Calculate's expression language (§5): `y[i] = expr` assignments separated by `;`, over inputs
 * `x[i]`, with + - * /, unary minus, parentheses, decimal literals and a fixed function set.
 * A program compiles once into one JavaScript function (a closure per operator cost a tenth of a
 * small model's time). The generated text holds nothing copied from the expression: only the
 * operators, parentheses and indexes the parser emits, with literals and functions passed in as
 * tables (`C[k]`, `F[k]`). Every assignment reads the original x values.
 */
import { SynthError } from '../errors.js';

/** 2^63 as a double: where Java's long conversions saturate. */
const LONG_LIMIT = 2 ** 63;

/** Java `Math.round(double)`: ties toward +infinity, NaN to 0, saturating at the long range. */
function javaRound(v: number): number {
  if (Number.isNaN(v)) return 0;
  const r = Math.round(v);
  return Math.max(-LONG_LIMIT, Math.min(LONG_LIMIT, r));
}

const FUNCS1: Record<string, (v: number) => number> = {
  floor: Math.floor,
  ceiling: Math.ceil,
  ceil: Math.ceil,
  round: javaRound,
  abs: Math.abs,
  sqrt: Math.sqrt,
  exp: Math.exp,
  log: Math.log,
  ln: Math.log,
};

const FUNCS2: Record<string, (a: number, b: number) => number> = {
  min: Math.min,
  max: Math.max,
  mod: (a, b) => a % b, // JS % follows the dividend's sign, like Java
  pow: Math.pow,
};

/** Every function an expression may call, in one table the generated code indexes. */
const FUNCTIONS: ((...args: number[]) => number)[] = [...Object.values(FUNCS1), ...Object.values(FUNCS2)];
const functionSlot = (f: (...args: number[]) => number): number => FUNCTIONS.indexOf(f);

/** Parentheses, unary signs and calls nest at most this deep. */
export const MAX_NESTING = 256;

/**
 * Operators (binary, unary, calls) one assignment may hold. The compiled text nests once per
 * operator, and the JavaScript compiler recurses on that nesting: far more would exhaust its stack.
 */
export const MAX_OPERATORS = 1000;

/** A compiled program: which outputs it assigns and a function filling them. */
export interface CompiledProgram {
  /** Highest y index assigned, or -1. */
  readonly maxOutput: number;
  /** Highest x index read, or -1. */
  readonly maxInput: number;
  /** Sets every assigned y[i] from x; outputs no assignment names keep their value. */
  readonly run: (x: Float64Array, y: Float64Array) => void;
}

/** Parses into JavaScript expression text over `x`, `C` (constants) and `F` (functions). */
class Parser {
  private pos = 0;
  private depth = 0;
  private operators = 0;
  maxInput = -1;
  readonly constants: number[] = [];

  constructor(private readonly src: string) {}

  private fail(msg: string): never {
    const shown = this.src.length > 200 ? `${this.src.slice(0, 200)}…` : this.src;
    throw new SynthError('SYNTH_LOAD', `expression "${shown}": ${msg} at position ${this.pos + 1}`);
  }

  private skip(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }

  peek(): string {
    this.skip();
    return this.src[this.pos] ?? '';
  }

  eat(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected "${ch}"`);
    this.pos++;
  }

  atEnd(): boolean {
    return this.peek() === '';
  }

  private ident(): string {
    this.skip();
    const m = /^[A-Za-z_]\w*/.exec(this.src.slice(this.pos));
    if (m === null) this.fail('expected a name');
    this.pos += m[0].length;
    return m[0];
  }

  index(): number {
    this.eat('[');
    this.skip();
    const m = /^\d+/.exec(this.src.slice(this.pos));
    if (m === null) this.fail('expected an index');
    this.pos += m[0].length;
    this.eat(']');
    return Number(m[0]);
  }

  assignment(): { index: number; code: string } {
    this.operators = 0;
    if (this.ident() !== 'y') this.fail('an assignment must start with y[i]');
    const index = this.index();
    this.eat('=');
    return { index, code: this.sum() };
  }

  private operator(): void {
    if (++this.operators > MAX_OPERATORS) this.fail(`more than ${MAX_OPERATORS} operators in one assignment`);
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_NESTING) this.fail(`nested deeper than ${MAX_NESTING} levels`);
    const out = parse();
    this.depth--;
    return out;
  }

  private sum(): string {
    let left = this.product();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') return left;
      this.operator();
      this.pos++;
      left = `(${left} ${op} ${this.product()})`;
    }
  }

  private product(): string {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/') return left;
      this.operator();
      this.pos++;
      left = `(${left} ${op} ${this.unary()})`;
    }
  }

  private unary(): string {
    if (this.peek() === '-') {
      this.operator();
      this.pos++;
      return this.nested(() => `(-${this.unary()})`);
    }
    if (this.peek() === '+') {
      this.pos++;
      return this.nested(() => this.unary());
    }
    return this.primary();
  }

  private primary(): string {
    const c = this.peek();
    if (c === '(') {
      this.pos++;
      const e = this.nested(() => this.sum());
      this.eat(')');
      return e;
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.src.slice(this.pos));
    if (num !== null) {
      this.pos += num[0].length;
      this.constants.push(Number(num[0]));
      return `C[${this.constants.length - 1}]`;
    }
    const name = this.ident();
    if (name === 'x') {
      const i = this.index();
      this.maxInput = Math.max(this.maxInput, i);
      return `x[${i}]`;
    }
    const fn = name.toLowerCase();
    this.operator();
    this.eat('(');
    const a = this.nested(() => this.sum());
    if (Object.hasOwn(FUNCS1, fn)) {
      this.eat(')');
      return `F[${functionSlot(FUNCS1[fn]!)}](${a})`;
    }
    if (Object.hasOwn(FUNCS2, fn)) {
      this.eat(',');
      const b = this.nested(() => this.sum());
      this.eat(')');
      return `F[${functionSlot(FUNCS2[fn]!)}](${a}, ${b})`;
    }
    return this.fail(`unknown function "${name}"`);
  }
}

/** Programs compiled lately, by source text (a Map: the text is data, never a property name). */
const compiled = new Map<string, CompiledProgram>();
const COMPILED_KEPT = 256;
/**
 * Longer texts are compiled each time, not kept: the cache then holds at most 256 x 4,096
 * characters of source (and their code) whatever models a server is sent.
 */
const COMPILED_MAX_CHARS = 4096;

/**
 * Compiles a Calculate program, or gives the one compiled before from the same text. A program is
 * a pure function of its text (constants frozen, functions shared), so one copy serves every graph
 * of a model (each generation of a long-lived server builds one): the text is compiled once, and
 * the Calculate component's call site sees one function rather than one per graph (the later
 * generations of the 3d6 model in one process ran about 3% faster for it).
 * @throws SynthError SYNTH_LOAD on a syntax error or unknown function
 */
export function compileExpression(source: string): CompiledProgram {
  if (source.length > COMPILED_MAX_CHARS) return compileFresh(source);
  const known = compiled.get(source);
  if (known !== undefined) return known;
  const program = compileFresh(source);
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(source, program);
  return program;
}

function compileFresh(source: string): CompiledProgram {
  const parser = new Parser(source);
  const assignments: { index: number; code: string }[] = [];
  do {
    if (parser.peek() === ';') {
      parser.eat(';');
      continue;
    }
    assignments.push(parser.assignment());
    if (!parser.atEnd()) parser.eat(';');
  } while (!parser.atEnd());
  if (assignments.length === 0) throw new SynthError('SYNTH_LOAD', 'expression has no assignment');
  // y and x are distinct arrays, so each assignment reads the original x
  const body = assignments.map((a) => `y[${a.index}] = ${a.code};`).join('\n');
  let make: (c: readonly number[], f: readonly ((...args: number[]) => number)[]) => CompiledProgram['run'];
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- text built by the parser above only
    make = new Function(
      'C',
      'F',
      `'use strict'; return function calculate(x, y) {\n${body}\n};`,
    ) as typeof make;
  } catch {
    // the limits above keep the text well inside what the compiler takes; this is the backstop
    throw new SynthError('SYNTH_LOAD', `expression is too large to compile (${source.length} characters)`);
  }
  let maxOutput = -1;
  for (const a of assignments) maxOutput = Math.max(maxOutput, a.index);
  return {
    maxOutput,
    maxInput: parser.maxInput,
    run: make(Object.freeze(parser.constants), FUNCTIONS),
  };
}
