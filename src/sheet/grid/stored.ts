/**
 * The cell-grid evaluator that can also evaluate a formula cell alone on the values the workbook
 * stored: its own formula on its inputs and on the stored results of the formula cells it reads,
 * whatever a recalculation computed for them. Whether the cell, taken alone, computes what the
 * spreadsheet stored there (verify.ts: a drift carried down a chain). The stored values are one
 * value store beside the grid's, made the first time a cell is asked about.
 */
import { CellGrid, fromCell } from './evaluate.js';
import { gridKey } from './order.js';
import { GridUnsupported } from './functions.js';
import { ValueStore } from './store.js';
import { isMatrix, type Scalar } from './values.js';

export class StoredGrid extends CellGrid {
  private stored?: ValueStore;

  /** The cell's formula on the stored values; undefined where the grid does not evaluate it. */
  evaluateAlone(sheet: number, row: number, col: number): Scalar | undefined {
    const c = this.cells.get(gridKey(sheet, row, col));
    if (!c?.formula || c.unsupported || c.spill || c.spillOf) return undefined;
    const recalculated = this.values;
    this.values = this.stored ??= this.storedValues();
    try {
      const v = this.evaluate(c.formula, { sheet, row, col });
      return isMatrix(v) ? undefined : v;
    } catch (err) {
      if (err instanceof GridUnsupported) return undefined;
      throw err;
    } finally {
      this.values = recalculated;
    }
  }

  private storedValues(): ValueStore {
    const store = new ValueStore();
    this.book.sheets.forEach((s, i) => {
      for (const cell of s.cells.values()) store.set(i, cell.row, cell.col, fromCell(cell.value));
    });
    return store;
  }
}
