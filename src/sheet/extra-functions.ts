/**
 * VALUE, DATEDIF, LOOKUP (its vector form), LARGE, SMALL, PROPER and RANK compiled to JSONata
 * (helpers in extra-library.ts), and the functions a model cannot compute refused with their reason.
 */
import { Rejection } from './errors.js';
import type { Formula } from './formula.js';
import type { HelperName } from './library.js';
import type { Compiled } from './references.js';

export const EXTRA_FUNCTIONS = ['VALUE', 'DATEDIF', 'LOOKUP', 'LARGE', 'SMALL', 'PROPER', 'RANK', 'RANK.EQ'];

/**
 * Functions of a continuous mathematics a model's expressions cannot compute to a spreadsheet's
 * last bits: JSONata has no exponential, logarithm or error function, and an approximation written
 * in it would be ours, not a library's (the grid evaluator has formulajs's).
 */
const NO_JSONATA = new Set([
  'EXP',
  'LN',
  'LOG',
  'LOG10',
  'NORM.S.DIST',
  'NORMSDIST',
  'NORM.DIST',
  'NORMDIST',
]);

export interface ExtraContext {
  args(name: string, args: Formula[], min: number, max: number): void;
  scalar(args: Formula[], i: number, fallback?: string): string;
  items(arg: Formula, name: string): string[];
  compile(f: Formula): Compiled;
  /** A compiled value read as text. */
  text(c: Compiled): string;
  resolve(f: Formula): Formula;
  helper(name: HelperName): string;
  fresh(): string;
  /** A whole table column's numbers sorted (`{n, s}`, s: position → number) for a column formula, else undefined. */
  sortedNumbers(f: Formula): string | undefined;
}

const num = (code: string): Compiled => ({ code, type: 'number' });

/** A range of one row or one column. */
function isVector(f: Formula): boolean {
  return f.kind === 'range' && (f.from.row === f.to.row || f.from.col === f.to.col);
}

/** The function compiled, or undefined when it is not one of this module's. */
export function compileExtra(name: string, args: Formula[], ctx: ExtraContext): Compiled | undefined {
  if (NO_JSONATA.has(name))
    throw new Rejection(
      'UNSUPPORTED_FUNCTION',
      `${name} is not compiled: a model's expressions (JSONata) have no exponential, logarithm or normal distribution to compute it to the spreadsheet's last bits`,
    );
  switch (name) {
    case 'VALUE': {
      ctx.args(name, args, 1, 1);
      const c = ctx.compile(args[0]!);
      if (c.type === 'number') return c;
      return num(`${ctx.helper('xl_value')}(${c.code})`);
    }
    case 'DATEDIF': {
      ctx.args(name, args, 3, 3);
      return num(
        `${ctx.helper('xl_datedif')}(${ctx.scalar(args, 0)}, ${ctx.scalar(args, 1)}, ${ctx.text(ctx.compile(args[2]!))})`,
      );
    }
    case 'LARGE':
    case 'SMALL': {
      ctx.args(name, args, 2, 2);
      const list = `[${ctx.items(args[0]!, name).join(', ')}]`;
      return num(`${ctx.helper('xl_kth')}(${list}, ${ctx.scalar(args, 1)}, ${name === 'LARGE'})`);
    }
    case 'RANK':
    case 'RANK.EQ':
      return rank(name, args, ctx);
    case 'PROPER':
      ctx.args(name, args, 1, 1);
      return { code: `${ctx.helper('xl_proper')}(${ctx.text(ctx.compile(args[0]!))})`, type: 'string' };
    case 'LOOKUP': {
      // the vector form over sorted data: the last key not above the one sought. Keys and results
      // side by side (the result column right of the keys, or its row below them) are VLOOKUP's
      // (HLOOKUP's) approximate match over that block, which checks the keys sorted and embeds
      // them; other vectors are INDEX(result, MATCH(value, keys, 1)). The array form (a block or
      // an array expression as keys) is not compiled
      ctx.args(name, args, 2, 3);
      const look = ctx.resolve(args[1]!);
      const result = args[2] ? ctx.resolve(args[2]) : look;
      if (!isVector(look) || !isVector(result) || look.kind !== 'range' || result.kind !== 'range')
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          'LOOKUP is compiled in its vector form: a lookup range and a result range of one row or column each',
        );
      const yes: Formula = { kind: 'boolean', value: true };
      const sameSheet = (look.sheet ?? '') === (result.sheet ?? '');
      const column = look.from.col === look.to.col && result.from.col === result.to.col;
      const row = look.from.row === look.to.row && result.from.row === result.to.row;
      if (
        sameSheet &&
        column &&
        look.from.row === result.from.row &&
        look.to.row === result.to.row &&
        result.from.col >= look.from.col
      ) {
        const block: Formula = { kind: 'range', sheet: look.sheet, from: look.from, to: result.to };
        const index: Formula = { kind: 'number', value: result.from.col - look.from.col + 1 };
        return ctx.compile({ kind: 'call', name: 'VLOOKUP', args: [args[0]!, block, index, yes] });
      }
      if (
        sameSheet &&
        row &&
        look.from.col === result.from.col &&
        look.to.col === result.to.col &&
        result.from.row >= look.from.row
      ) {
        const block: Formula = { kind: 'range', sheet: look.sheet, from: look.from, to: result.to };
        const index: Formula = { kind: 'number', value: result.from.row - look.from.row + 1 };
        return ctx.compile({ kind: 'call', name: 'HLOOKUP', args: [args[0]!, block, index, yes] });
      }
      const position: Formula = {
        kind: 'call',
        name: 'MATCH',
        args: [args[0]!, look, { kind: 'number', value: 1 }],
      };
      return ctx.compile({ kind: 'call', name: 'INDEX', args: [result, position] });
    }
    default:
      return undefined;
  }
}

/**
 * RANK(x, ref, order): 1 + how many numbers of ref are above x (order 0 or none) or below it; no
 * value (#N/A) when x is not among them, or is not a number. The numbers compare as they are:
 * `COUNTIF(ref, ">"&x)` would compare with x written out in 15 digits, as the spreadsheet's `&`
 * does, and count x itself when it has more. A column formula ranking within a whole table column
 * reads its numbers sorted (built once) by two binary searches; anything else reads the list.
 */
function rank(name: string, args: Formula[], ctx: ExtraContext): Compiled {
  ctx.args(name, args, 2, 3);
  const order = args[2];
  let ascending = false;
  if (order !== undefined && order.kind !== 'missing') {
    if (order.kind !== 'number')
      throw new Rejection('UNSUPPORTED_FUNCTION', `${name}'s order must be a number written in the formula`);
    ascending = order.value !== 0;
  }
  const x = ctx.fresh();
  const sorted = ctx.sortedNumbers(args[1]!);
  if (sorted) {
    const [a, s, le, lt] = [ctx.fresh(), ctx.fresh(), ctx.fresh(), ctx.fresh()];
    const count = (cmp: string): string =>
      `${ctx.helper('xl_bcount')}(${a}.n, function($j) { $lookup(${s}, $string($j)) ${cmp} ${x} })`;
    return num(
      `(${x} := ${ctx.scalar(args, 0)}; $type(${x}) = "number" ? ( ${a} := ${sorted}; ${s} := ${a}.s; ` +
        `${le} := ${count('<=')}; ${lt} := ${count('<')}; ` +
        `${le} > ${lt} ? ${ascending ? `1 + ${lt}` : `1 + ${a}.n - ${le}`} : $nothing ) : $nothing)`,
    );
  }
  const l = ctx.fresh();
  const list = `[${ctx.items(args[1]!, name).join(', ')}][$type($) = "number"]`;
  return num(
    `(${x} := ${ctx.scalar(args, 0)}; ${l} := ${list}; $type(${x}) = "number" and ${x} in ${l} ? ` +
      `1 + $count(${l}[$ ${ascending ? '<' : '>'} ${x}]) : $nothing)`,
  );
}
