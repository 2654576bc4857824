/**
 * TODAY() and NOW() read from the clock sheet (volatile.ts): a call with no arguments becomes a
 * reference to its clock cell, so that the compiler and the grid evaluator both see an input cell,
 * and an edit of it reaches every formula that calls it.
 */
import type { Formula } from './formula.js';
import { CLOCK_SHEET } from './clock-names.js';

export { CLOCK_ROWS, CLOCK_SHEET, clockFunction } from './clock-names.js';

/** The formula with each bound volatile call replaced by its clock cell; the same object when none is. */
export function withClockReads(f: Formula, calls: ReadonlyMap<string, { row: number }>): Formula {
  switch (f.kind) {
    case 'call': {
      const bound = f.args.length === 0 ? calls.get(f.name) : undefined;
      if (bound) {
        return {
          kind: 'ref',
          sheet: CLOCK_SHEET,
          ref: { row: bound.row, col: 1, rowAbs: true, colAbs: true },
        };
      }
      const args = f.args.map((a) => withClockReads(a, calls));
      return args.every((a, i) => a === f.args[i]) ? f : { ...f, args };
    }
    case 'binary': {
      const left = withClockReads(f.left, calls);
      const right = withClockReads(f.right, calls);
      return left === f.left && right === f.right ? f : { ...f, left, right };
    }
    case 'unary':
    case 'percent': {
      const operand = withClockReads(f.operand, calls);
      return operand === f.operand ? f : { ...f, operand };
    }
    default:
      return f;
  }
}
