/**
 * The cells of an element-wise array formula (elementwise.ts) as the compiler reads them: the
 * anchor and every other cell of a multi-cell result get their element's plain formula, and a
 * one-cell legacy array its SUMs expanded. Undefined for any other cell, or an array formula that
 * is not element-wise (the caller then rejects it as before).
 */
import { Rejection } from './errors.js';
import { expandArraySums, spillElement } from './elementwise.js';
import type { Formula } from './formula.js';
import { cellKey, columnNumber, type SheetCell, type Worksheet } from './xlsx.js';

const ADDRESS = /^([A-Z]{1,3})(\d+)$/i;
const RANGE = /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/i;

export function arrayElement(
  sheet: Worksheet,
  cell: SheetCell,
  parse: (cell: SheetCell) => Formula,
): Formula | undefined {
  const info = cell.formula;
  if (!info) return undefined;
  try {
    if (info.spillOf !== undefined) {
      const m = ADDRESS.exec(info.spillOf);
      const anchor = m ? sheet.cells.get(cellKey(Number(m[2]), columnNumber(m[1]!))) : undefined;
      return anchor ? elementOf(anchor, cell, parse) : undefined;
    }
    if (info.spill !== undefined) return elementOf(cell, cell, parse);
    if (info.array && !info.dynamic && info.text !== undefined) return expandArraySums(parse(cell));
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
  }
  return undefined;
}

/** The formula of `cell` in the result of the array formula anchored at `anchor`. */
function elementOf(
  anchor: SheetCell,
  cell: SheetCell,
  parse: (cell: SheetCell) => Formula,
): Formula | undefined {
  const m = anchor.formula?.spill ? RANGE.exec(anchor.formula.spill) : null;
  if (!m || anchor.formula?.text === undefined) return undefined;
  const [top, bottom] = [Number(m[2]), Number(m[4])];
  const [left, right] = [columnNumber(m[1]!), columnNumber(m[3]!)];
  if (cell.row < top || cell.row > bottom || cell.col < left || cell.col > right) return undefined;
  return spillElement(parse(anchor), bottom - top + 1, right - left + 1, cell.row - top, cell.col - left);
}
