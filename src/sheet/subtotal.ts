/**
 * SUBTOTAL as the spreadsheet computes it: the aggregate its function number names, over its
 * ranges less the cells that are themselves subtotals (a formula calling SUBTOTAL or AGGREGATE
 * anywhere), so a grand total over sections and their subtotals counts each value once. Rows a
 * filter or a person hid are skipped by SUBTOTAL (by every number when filtered, by 101–111 when
 * hidden by hand); the file does not say which, so a range with a hidden row is not compiled.
 */
import { Rejection } from './errors.js';
import type { Formula } from './formula.js';
import { cellKey, type SheetCell, type Worksheet } from './xlsx.js';

/** The aggregate of each function number (1–11; 101–111 the same, skipping hidden rows). */
export const SUBTOTAL_FUNCTIONS = [
  'AVERAGE',
  'COUNT',
  'COUNTA',
  'MAX',
  'MIN',
  'PRODUCT',
  'STDEV',
  'STDEVP',
  'SUM',
  'VAR',
  'VARP',
];

/** The aggregate SUBTOTAL's constant function number names, or undefined. */
export function subtotalFunction(code: Formula): string | undefined {
  if (code.kind !== 'number' || !Number.isInteger(code.value)) return undefined;
  const n = code.value > 100 ? code.value - 100 : code.value;
  return n >= 1 && n <= SUBTOTAL_FUNCTIONS.length ? SUBTOTAL_FUNCTIONS[n - 1] : undefined;
}

const SUBTOTAL_CALL = /\b(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(/i;

/** The formula text of shared-formula groups, by sheet and group id (a follower stores none). */
const sharedTexts = new WeakMap<Worksheet, Map<string, string>>();

function formulaText(sheet: Worksheet, cell: SheetCell | undefined): string | undefined {
  const f = cell?.formula;
  if (!f) return undefined;
  if (f.text !== undefined || f.shared === undefined) return f.text;
  let texts = sharedTexts.get(sheet);
  if (!texts) {
    texts = new Map();
    for (const c of sheet.cells.values()) {
      const g = c.formula;
      if (g?.shared !== undefined && g.text !== undefined && !texts.has(g.shared))
        texts.set(g.shared, g.text);
    }
    sharedTexts.set(sheet, texts);
  }
  return texts.get(f.shared);
}

/** Whether the cell holds a subtotal: a formula calling SUBTOTAL or AGGREGATE. */
export function isSubtotalCell(sheet: Worksheet, row: number, col: number): boolean {
  const text = formulaText(sheet, sheet.cells.get(cellKey(row, col)));
  return text !== undefined && SUBTOTAL_CALL.test(text);
}

type Range = Formula & { kind: 'range' };

/**
 * A SUBTOTAL range as ranges without its subtotal cells (each column's runs between them); the
 * range itself when it holds none. A hidden row in it is a rejection.
 */
export function withoutSubtotals(r: Range, sheet: Worksheet): Range[] {
  const { from, to } = r;
  if (from.row === 0 || to.row === 0 || from.col === 0 || to.col === 0) return [r];
  const [top, bottom] = [Math.min(from.row, to.row), Math.max(from.row, to.row)];
  const [left, right] = [Math.min(from.col, to.col), Math.max(from.col, to.col)];
  for (const row of sheet.hiddenRows ?? []) {
    if (row >= top && row <= bottom) {
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        `SUBTOTAL over rows ${top}–${bottom}, of which row ${row} is hidden: SUBTOTAL skips filtered rows, which are not compiled`,
      );
    }
  }
  const pieces: Range[] = [];
  let split = false;
  for (let col = left; col <= right; col++) {
    let start: number | undefined;
    for (let row = top; row <= bottom + 1; row++) {
      const skip = row > bottom || isSubtotalCell(sheet, row, col);
      if (skip && row <= bottom) split = true;
      if (!skip && start === undefined) start = row;
      if (skip && start !== undefined) {
        pieces.push({
          kind: 'range',
          sheet: r.sheet,
          from: { ...from, row: start, col },
          to: { ...to, row: row - 1, col },
        });
        start = undefined;
      }
    }
  }
  return split ? pieces : [r];
}
