/**
 * Calculate's expression language (§5): `y[i] = expr` assignments separated by `;`, over inputs
 * `x[i]`, with + - * /, unary minus, parentheses, decimal literals and a fixed function set.
 * Programs compile once into closures; every assignment reads the original x values.
 */
import { SynthError } from '../errors.js';

type Expr = (x: Float64Array) => number;

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

/** A compiled program: which outputs it assigns and a function filling them. */
export interface CompiledProgram {
  /** Highest y index assigned, or -1. */
  readonly maxOutput: number;
  /** Highest x index read, or -1. */
  readonly maxInput: number;
  /** The assignments in order: output index and evaluator. */
  readonly assignments: readonly { index: number; evaluate: Expr }[];
}

class Parser {
  private pos = 0;
  maxInput = -1;

  constructor(private readonly src: string) {}

  private fail(msg: string): never {
    throw new SynthError('SYNTH_LOAD', `expression "${this.src}": ${msg} at position ${this.pos + 1}`);
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

  assignment(): { index: number; evaluate: Expr } {
    if (this.ident() !== 'y') this.fail('an assignment must start with y[i]');
    const index = this.index();
    this.eat('=');
    return { index, evaluate: this.sum() };
  }

  private sum(): Expr {
    let left = this.product();
    for (;;) {
      const op = this.peek();
      if (op !== '+' && op !== '-') return left;
      this.pos++;
      const a = left;
      const b = this.product();
      left = op === '+' ? (x) => a(x) + b(x) : (x) => a(x) - b(x);
    }
  }

  private product(): Expr {
    let left = this.unary();
    for (;;) {
      const op = this.peek();
      if (op !== '*' && op !== '/') return left;
      this.pos++;
      const a = left;
      const b = this.unary();
      left = op === '*' ? (x) => a(x) * b(x) : (x) => a(x) / b(x);
    }
  }

  private unary(): Expr {
    if (this.peek() === '-') {
      this.pos++;
      const e = this.unary();
      return (x) => -e(x);
    }
    if (this.peek() === '+') {
      this.pos++;
      return this.unary();
    }
    return this.primary();
  }

  private primary(): Expr {
    const c = this.peek();
    if (c === '(') {
      this.pos++;
      const e = this.sum();
      this.eat(')');
      return e;
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(this.src.slice(this.pos));
    if (num !== null) {
      this.pos += num[0].length;
      const v = Number(num[0]);
      return () => v;
    }
    const name = this.ident();
    if (name === 'x') {
      const i = this.index();
      this.maxInput = Math.max(this.maxInput, i);
      return (x) => x[i]!;
    }
    const fn = name.toLowerCase();
    this.eat('(');
    const a = this.sum();
    if (fn in FUNCS1) {
      this.eat(')');
      const f = FUNCS1[fn]!;
      return (x) => f(a(x));
    }
    if (fn in FUNCS2) {
      this.eat(',');
      const b = this.sum();
      this.eat(')');
      const f = FUNCS2[fn]!;
      return (x) => f(a(x), b(x));
    }
    return this.fail(`unknown function "${name}"`);
  }
}

/**
 * Compiles a Calculate program.
 * @throws SynthError SYNTH_LOAD on a syntax error or unknown function
 */
export function compileExpression(source: string): CompiledProgram {
  const parser = new Parser(source);
  const assignments: { index: number; evaluate: Expr }[] = [];
  do {
    if (parser.peek() === ';') {
      parser.eat(';');
      continue;
    }
    assignments.push(parser.assignment());
    if (!parser.atEnd()) parser.eat(';');
  } while (!parser.atEnd());
  if (assignments.length === 0) throw new SynthError('SYNTH_LOAD', 'expression has no assignment');
  return {
    maxOutput: Math.max(...assignments.map((a) => a.index)),
    maxInput: parser.maxInput,
    assignments,
  };
}
