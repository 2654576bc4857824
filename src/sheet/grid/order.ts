/** The cell-grid evaluator's formula cells and the order they are evaluated in. */
import type { Formula } from '../formula.js';
import type { Area } from './tables.js';
import { lowerBound } from './values.js';

/** A cell's place in the grid's maps. */
export const gridKey = (sheet: number, row: number, col: number): string => `${sheet}:${row}:${col}`;

export interface FormulaCell {
  key: string;
  sheet: number;
  row: number;
  col: number;
  formula?: Formula;
  /** A cell of an array formula's result range (a spill): the anchor's key and its place there. */
  spillOf?: { key: string; dr: number; dc: number; dynamic: boolean };
  /** An anchor's result range: rows and columns (its own cell first). */
  spill?: { rows: number; cols: number };
  /** Why the cell cannot be evaluated at all (parse, array formula, dynamic reference, cycle …). */
  unsupported?: string;
  reads: Area[];
}

/**
 * Formula cells in dependency order (an iterative depth-first walk, so a long recurrence does
 * not exhaust the stack); a cell on a cycle is unsupported, as is one reading such a cell.
 */
export function dependencyOrder(
  cells: Map<string, FormulaCell>,
  address: (c: FormulaCell) => string,
): FormulaCell[] {
  const byColumn = new Map<string, number[]>();
  for (const c of cells.values()) {
    const k = `${c.sheet}:${c.col}`;
    const rows = byColumn.get(k);
    if (rows) rows.push(c.row);
    else byColumn.set(k, [c.row]);
  }
  for (const rows of byColumn.values()) rows.sort((a, b) => a - b);
  const precedents = (c: FormulaCell): FormulaCell[] => {
    const out: FormulaCell[] = [];
    for (const a of c.reads) {
      for (let col = a.left; col <= a.right; col++) {
        const rows = byColumn.get(`${a.sheet}:${col}`);
        if (!rows) continue;
        for (let i = lowerBound(rows, a.top); i < rows.length && rows[i]! <= a.bottom; i++) {
          out.push(cells.get(gridKey(a.sheet, rows[i]!, col))!);
        }
      }
    }
    return out;
  };
  const state = new Map<FormulaCell, 1 | 2>();
  const order: FormulaCell[] = [];
  for (const start of cells.values()) {
    if (state.has(start)) continue;
    const stack: { cell: FormulaCell; next: FormulaCell[]; i: number }[] = [
      { cell: start, next: precedents(start), i: 0 },
    ];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.i < top.next.length) {
        const p = top.next[top.i++]!;
        const s = state.get(p);
        if (s === 1) {
          // a cycle: every cell from p up the stack is on it
          const at = stack.findIndex((e) => e.cell === p);
          for (const e of stack.slice(at)) e.cell.unsupported ??= 'it is on a circular reference';
        } else if (s === undefined) {
          state.set(p, 1);
          stack.push({ cell: p, next: precedents(p), i: 0 });
        } else if (p.unsupported && !top.cell.unsupported) {
          top.cell.unsupported = `it reads ${address(p)}, which cannot be evaluated`;
        }
        continue;
      }
      stack.pop();
      state.set(top.cell, 2);
      for (const p of top.next) {
        if (p.unsupported && !top.cell.unsupported)
          top.cell.unsupported = `it reads ${address(p)}, which cannot be evaluated`;
      }
      order.push(top.cell);
    }
  }
  return order;
}
