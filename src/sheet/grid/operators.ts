/** Excel's operators over grid values: coercions, arrays element by element, errors passed on. */
import { GridUnsupported } from './functions.js';
import {
  approxAdd,
  compare,
  isMatrix,
  isXlError,
  toBoolean,
  toNumber,
  toText,
  xlError,
  type GridValue,
  type Matrix,
  type Scalar,
} from './values.js';

/** A one-cell array as its value; a larger one where one value is needed is #VALUE!. */
export function asScalar(v: GridValue): Scalar {
  if (!isMatrix(v)) return v;
  return v.length === 1 && v[0]!.length === 1 ? v[0]![0]! : xlError('#VALUE!');
}

export function numeric(x: Scalar, op: (n: number) => number): Scalar {
  const n = toNumber(x);
  return isXlError(n) ? n : finite(op(n));
}

const finite = (n: number): Scalar => (Number.isFinite(n) ? n : xlError('#NUM!'));

export function lift1(v: GridValue, op: (x: Scalar) => Scalar): GridValue {
  return isMatrix(v) ? v.map((row) => row.map(op)) : op(v);
}

/** An operator over arrays, element by element; a one-cell side is spread; a missing cell is #N/A. */
export function lift2(a: GridValue, b: GridValue, op: (x: Scalar, y: Scalar) => Scalar): GridValue {
  if (!isMatrix(a) && !isMatrix(b)) return op(a, b);
  const ma = isMatrix(a) ? a : [[a]];
  const mb = isMatrix(b) ? b : [[b]];
  const rows = Math.max(ma.length, mb.length);
  const cols = Math.max(ma[0]?.length ?? 0, mb[0]?.length ?? 0);
  const at = (m: Matrix, r: number, c: number): Scalar | undefined => {
    const rr = m.length === 1 ? 0 : r;
    const cc = m[0]!.length === 1 ? 0 : c;
    return m[rr]?.[cc];
  };
  const out: Matrix = [];
  for (let r = 0; r < rows; r++) {
    const row: Scalar[] = [];
    for (let c = 0; c < cols; c++) {
      const x = at(ma, r, c);
      const y = at(mb, r, c);
      row.push(x === undefined || y === undefined ? xlError('#N/A') : op(x, y));
    }
    out.push(row);
  }
  return out;
}

/** A binary operator; `cancelBelow` is the workbook's cancellation to 0 of + and - (approxAdd). */
export function binary(op: string, a: Scalar, b: Scalar, cancelBelow = 2 ** -48): Scalar {
  if (op === '&') {
    const x = toText(a);
    if (isXlError(x)) return x;
    const y = toText(b);
    return isXlError(y) ? y : x + y;
  }
  if (op === '=' || op === '<>' || op === '<' || op === '>' || op === '<=' || op === '>=') {
    const c = compare(a, b);
    if (isXlError(c)) return c;
    switch (op) {
      case '=':
        return c === 0;
      case '<>':
        return c !== 0;
      case '<':
        return c < 0;
      case '>':
        return c > 0;
      case '<=':
        return c <= 0;
      default:
        return c >= 0;
    }
  }
  const x = toNumber(a);
  if (isXlError(x)) return x;
  const y = toNumber(b);
  if (isXlError(y)) return y;
  switch (op) {
    case '+':
      return finite(approxAdd(x, y, cancelBelow));
    case '-':
      return finite(approxAdd(x, -y, cancelBelow));
    case '*':
      return finite(x * y);
    case '/':
      return y === 0 ? xlError('#DIV/0!') : finite(x / y);
    case '^':
      if (x === 0 && y === 0) return xlError('#NUM!');
      return finite(x ** y);
    default:
      throw new GridUnsupported(`the operator ${op} is not evaluated`);
  }
}

/**
 * IF with an array condition: each element's branch, the branches repeated as operators repeat
 * their operands. The branches are paired as an object: a pair as an array of two scalars would
 * read as a matrix (isMatrix) where both branches are scalars (`{=SUM(IF(B4:B6>0,1,0))}`).
 */
export function ifOverArray(cond: GridValue, yes: GridValue, no: GridValue): GridValue {
  type Pair = { yes: Scalar; no: Scalar };
  const pairs = lift2(yes, no, (y, n) => ({ yes: y, no: n }) as unknown as Scalar);
  return lift2(cond, pairs, (c, yn) => {
    const b = toBoolean(c);
    if (isXlError(b)) return b;
    const pair = yn as unknown as Pair;
    return b ? pair.yes : pair.no;
  });
}
