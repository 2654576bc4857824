/**
 * The cell-grid evaluator on the values the workbook stored, never recalculated: a formula cell's
 * own formula evaluated on its inputs and on the stored results of the formula cells it reads.
 * Whether the cell, taken alone, computes what the spreadsheet stored there (verify.ts: a drift
 * carried down a chain), whatever the cells above it computed in a recalculation.
 */
import { CellGrid } from './evaluate.js';
import { gridKey } from './order.js';
import { GridUnsupported } from './functions.js';
import { isMatrix, type Scalar } from './values.js';

export class StoredGrid extends CellGrid {
  /** The cell's formula on the stored values; undefined where the grid does not evaluate it. */
  evaluateAlone(sheet: number, row: number, col: number): Scalar | undefined {
    const c = this.cells.get(gridKey(sheet, row, col));
    if (!c?.formula || c.unsupported || c.spill || c.spillOf) return undefined;
    try {
      const v = this.evaluate(c.formula, { sheet, row, col });
      return isMatrix(v) ? undefined : v;
    } catch (err) {
      if (err instanceof GridUnsupported) return undefined;
      throw err;
    }
  }
}
