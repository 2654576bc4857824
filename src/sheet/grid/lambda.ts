/**
 * LET and LAMBDA for the cell-grid evaluator (Excel 365; `_xlfn.LET(_xlpm.x, …)`): the pairs a
 * LET binds and the LAMBDA a call applies. Names are compared in lower case, as Excel does.
 */
import { LAMBDA_CALL, type Formula } from '../formula.js';
import { GridUnsupported } from './functions.js';

/** LAMBDAs calling LAMBDAs deeper than this are taken for recursion (not evaluated). */
export const MAX_LAMBDA_DEPTH = 16;

/** A LAMBDA applied to the arguments of a call. */
export interface LambdaCall {
  params: string[];
  body: Formula;
  args: Formula[];
  /**
   * Written in place (`LAMBDA(x, x+a)(5)`): its body also sees the LET names around it. One
   * behind a defined name sees only its parameters (and the workbook's names).
   */
  inPlace: boolean;
}

/** LET's pairs of a name (lower case) and its value; a LET written otherwise is not evaluated. */
export function letPairs(f: Formula & { kind: 'call' }): [string, Formula][] {
  const { args } = f;
  if (args.length < 3 || args.length % 2 === 0)
    throw new GridUnsupported('LET takes pairs of a name and a value, then a result');
  const pairs: [string, Formula][] = [];
  for (let i = 0; i + 1 < args.length; i += 2) {
    const name = args[i]!;
    if (name.kind !== 'name') throw new GridUnsupported('LET names a value with something not a name');
    pairs.push([name.name.toLowerCase(), args[i + 1]!]);
  }
  return pairs;
}

/**
 * The LAMBDA a call applies: one written in place, or the one a defined name stands for
 * (`definedLambda` gives the name's formula, or undefined when the call is no such name).
 */
export function lambdaCallOf(
  f: Formula & { kind: 'call' },
  definedLambda: (name: string) => Formula | undefined,
): LambdaCall | undefined {
  const inPlace = f.name === LAMBDA_CALL;
  const lambda = inPlace ? f.args[0] : definedLambda(f.name);
  if (!inPlace && lambda === undefined) return undefined;
  if (lambda?.kind !== 'call' || lambda.name !== 'LAMBDA' || lambda.args.length === 0)
    throw new GridUnsupported(`${f.name} is called but is not a LAMBDA`);
  const params = lambda.args.slice(0, -1).map((p) => {
    if (p.kind !== 'name') throw new GridUnsupported('a LAMBDA parameter is not a name');
    return p.name.toLowerCase();
  });
  return {
    params,
    body: lambda.args[lambda.args.length - 1]!,
    args: inPlace ? f.args.slice(1) : f.args,
    inPlace,
  };
}
