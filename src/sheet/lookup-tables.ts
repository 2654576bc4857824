/**
 * The side blocks of VLOOKUP and HLOOKUP: their constants embedded as rows of the spec's library,
 * and the rules for approximate match over them (sorted keys only).
 */
import type { JsonObject, JsonValue } from '../calc/index.js';
import { Rejection } from './errors.js';
import { isError } from './fields.js';
import type { CellRef, Formula } from './formula.js';
import { cellKey, cellName, type Worksheet } from './xlsx.js';

/** Whether VLOOKUP/HLOOKUP matches approximately: a 4th argument TRUE or non-zero, or none. */
export function approximate(name: string, modeArg: Formula | undefined): boolean {
  if (modeArg === undefined) return true;
  const mode = constantNumber(modeArg);
  if (mode === undefined)
    throw new Rejection(
      'UNSUPPORTED_SYNTAX',
      `${name}'s 4th argument must be a constant (TRUE, FALSE, 1 or 0)`,
    );
  return mode !== 0;
}

/**
 * An approximate lookup's first column must hold numbers only, or text only, ascending (blanks
 * aside): on unsorted keys Excel and LibreOffice each answer by the steps of their own binary
 * search, which a model does not reproduce.
 */
export function requireSorted(name: string, rows: JsonValue[]): void {
  const keys = rows.map((r) => (r as JsonObject).c1).filter((v) => v !== null && v !== undefined);
  const numbers = keys.every((k) => typeof k === 'number');
  const texts = keys.every((k) => typeof k === 'string');
  // mixed keys are refused below; comparing them here would call a string method on a number
  const sorted =
    (numbers || texts) &&
    keys.every((k, i) => {
      if (i === 0) return true;
      const prev = keys[i - 1]!;
      return numbers
        ? (prev as number) <= (k as number)
        : (prev as string).toLowerCase() <= (k as string).toLowerCase();
    });
  if (!(numbers || texts) || !sorted) {
    throw new Rejection(
      'APPROXIMATE_VLOOKUP',
      `${name} matches approximately (no FALSE as its 4th argument) over keys that are not ${numbers || texts ? 'sorted ascending' : 'all numbers or all text'}; a spreadsheet then answers by the steps of its own binary search`,
    );
  }
}

/**
 * The block's constants as rows `{c1, c2, …}` (HLOOKUP: the block's columns, `c1` its first row),
 * and the non-empty values of the result column (for the result's type). A formula or an error in
 * the block rejects it.
 */
export function embedBlock(
  name: string,
  sheet: Worksheet,
  from: CellRef,
  to: CellRef,
  result: number,
  across: boolean,
): { rows: JsonValue[]; resultValues: JsonValue[] } {
  const rows: JsonValue[] = [];
  const resultValues: JsonValue[] = [];
  const [outer0, outer1, inner0, inner1] = across
    ? [from.col, to.col, from.row, to.row]
    : [from.row, to.row, from.col, to.col];
  for (let o = outer0; o <= outer1; o++) {
    const row: JsonObject = {};
    for (let i = inner0; i <= inner1; i++) {
      const [r, c] = across ? [i, o] : [o, i];
      const cell = sheet.cells.get(cellKey(r, c));
      if (cell?.formula || isError(cell?.value)) {
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `the ${name} table cell ${cellName(r, c)} holds a formula or an error; side tables must hold constants`,
        );
      }
      const v = (cell?.value ?? null) as JsonValue;
      row[`c${i - inner0 + 1}`] = v;
      if (i - inner0 + 1 === result && v !== null) resultValues.push(v);
    }
    rows.push(row);
  }
  return { rows, resultValues };
}

/** A constant number argument (`1`, `-1`), or undefined when it is anything else. */
export function constantNumber(f: Formula): number | undefined {
  if (f.kind === 'number') return f.value;
  if (f.kind === 'unary' && f.operand.kind === 'number')
    return f.op === '-' ? -f.operand.value : f.operand.value;
  if (f.kind === 'boolean') return f.value ? 1 : 0;
  return undefined;
}
