/**
 * LET and LAMBDA (Excel 365; in the file `_xlfn.LET(_xlpm.x, …)`, `_xlfn.LAMBDA(_xlpm.x, …)`).
 * LET compiles to a JSONata block binding each name to a fresh variable; a LAMBDA where it is
 * called (written in place, `LAMBDA(x, x + 1)(5)`, or through a defined name, `AddOne(5)`) to the
 * same block with its parameters bound to the arguments (a spreadsheet evaluates every argument
 * before the body, so binding them first computes the same). A LAMBDA that is not called (a value
 * of its own) has no spreadsheet value and is rejected.
 */
import { Rejection } from './errors.js';
import { LAMBDA_CALL, printFormula, type Formula } from './formula.js';
import type { Compiled } from './references.js';
import { AggregateCompiler } from './aggregate-items.js';

/** LAMBDAs calling LAMBDAs (through defined names) deeper than this are taken for recursion. */
const MAX_LAMBDA_DEPTH = 16;

export abstract class LetCompiler extends AggregateCompiler {
  /** Names bound by the LET or LAMBDA blocks around the formula being compiled (lower case). */
  private readonly bound = new Map<string, Compiled>();
  private lets = 0;
  private lambdaDepth = 0;

  /** A name a LET or LAMBDA around it binds, or undefined. */
  protected boundName(name: string): Compiled | undefined {
    return this.bound.get(name.toLowerCase());
  }

  /** LET, LAMBDA and calls of LAMBDAs; undefined for any other function. */
  protected letOrLambda(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'LET':
        if (args.length < 3 || args.length % 2 === 0)
          throw new Rejection('UNSUPPORTED_SYNTAX', 'LET takes pairs of a name and a value, then a result');
        return this.block(
          args.slice(0, -1).flatMap((a, i) => (i % 2 === 0 ? [[a, args[i + 1]!] as const] : [])),
          args[args.length - 1]!,
          'LET',
        );
      case LAMBDA_CALL:
        return this.apply(args[0]!, args.slice(1));
      case 'LAMBDA':
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          'a LAMBDA is compiled where it is called with its arguments; on its own it has no value',
        );
      default: {
        const lambda = this.lambdaName(name);
        return lambda ? this.apply(lambda, args) : undefined;
      }
    }
  }

  /** The LAMBDA a defined name stands for, or undefined when the name is not one. */
  private lambdaName(name: string): Formula | undefined {
    let f: Formula;
    try {
      f = this.scope.definedName(name, this.field.sheet);
    } catch {
      return undefined;
    }
    return f.kind === 'call' && f.name === 'LAMBDA' ? f : undefined;
  }

  /** A LAMBDA called with `args`: its parameters bound to them around its body. */
  private apply(lambda: Formula, args: Formula[]): Compiled {
    if (lambda.kind !== 'call' || lambda.name !== 'LAMBDA' || lambda.args.length === 0) {
      throw new Rejection('UNSUPPORTED_SYNTAX', `${printFormula(lambda)} is called but is not a LAMBDA`);
    }
    const params = lambda.args.slice(0, -1);
    if (args.length !== params.length) {
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `the LAMBDA takes ${params.length} arguments and is given ${args.length} (a spreadsheet gives #VALUE!)`,
      );
    }
    if (++this.lambdaDepth > MAX_LAMBDA_DEPTH) {
      throw new Rejection('CIRCULAR_REFERENCE', 'the LAMBDA calls itself (directly or through others)');
    }
    try {
      return this.block(
        params.map((p, i) => [p, args[i]!] as const),
        lambda.args[lambda.args.length - 1]!,
        'LAMBDA',
      );
    } finally {
      this.lambdaDepth--;
    }
  }

  /** `($v1 := value1; $v2 := value2; result)`, each name visible from the next value on. */
  private block(pairs: (readonly [Formula, Formula])[], result: Formula, what: string): Compiled {
    const saved = new Map<string, Compiled | undefined>();
    const lines: string[] = [];
    try {
      for (const [nameArg, valueArg] of pairs) {
        if (nameArg.kind !== 'name') {
          throw new Rejection(
            'UNSUPPORTED_SYNTAX',
            `${what} names a value with ${printFormula(nameArg)}, which is not a name`,
          );
        }
        const key = nameArg.name.toLowerCase();
        const value = this.compile(valueArg);
        const variable = `$let${++this.lets}`;
        lines.push(`${variable} := ${value.code}`);
        if (!saved.has(key)) saved.set(key, this.bound.get(key));
        this.bound.set(key, { code: variable, type: value.type });
      }
      const body = this.compile(result);
      return { code: `(${[...lines, body.code].join('; ')})`, type: body.type };
    } finally {
      for (const [key, before] of saved) {
        if (before) this.bound.set(key, before);
        else this.bound.delete(key);
      }
    }
  }
}
