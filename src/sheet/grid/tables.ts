/** Structured references (`Tbl[Col]`, `[@Col]`) as blocks of cells, for the cell-grid evaluator. */
import type { StructuredRef } from '../structured.js';
import type { Workbook, Worksheet } from '../xlsx.js';
import { GridUnsupported } from './functions.js';

/** A block of cells a formula reads. */
export interface Area {
  sheet: number;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

type At = { sheet: number; row: number; col: number };

/** The Excel Table a structured reference names (or the one around `ctx`), and its sheet. */
function tableOf(
  book: Workbook,
  f: StructuredRef,
  ctx: At,
): { sheet: number; t: Worksheet['tables'][number] } {
  let found: { sheet: number; t: Worksheet['tables'][number] } | undefined;
  book.sheets.forEach((s, i) => {
    for (const t of s.tables) {
      const named = f.table !== undefined && t.name.toLowerCase() === f.table.toLowerCase();
      const around =
        f.table === undefined &&
        i === ctx.sheet &&
        ctx.row >= t.top &&
        ctx.row <= t.bottom &&
        ctx.col >= t.left &&
        ctx.col <= t.right;
      if (!found && (named || around)) found = { sheet: i, t };
    }
  });
  if (!found) throw new GridUnsupported(`the table of ${f.text} is not in the workbook`);
  return found;
}

/**
 * Whether a `[#This Row]` reference read from the cell at `ctx` falls on a data row of its table.
 * From outside the table (a formula beside it, or on another sheet) Excel reads the table's cell
 * in the formula's own row (implicit intersection): #VALUE! in a row its data does not cover.
 */
export function thisRowInside(book: Workbook, f: StructuredRef, ctx: At): boolean {
  const { t } = tableOf(book, f, ctx);
  return ctx.row >= t.top + t.headerRows && ctx.row <= t.bottom - t.totalsRows;
}

/** The block of an Excel Table a structured reference names, read from the cell at `ctx`. */
export function tableArea(book: Workbook, f: StructuredRef, ctx: At): Area {
  const { sheet, t } = tableOf(book, f, ctx);
  const column = (name: string): number => {
    const i = t.columns.findIndex((c) => c.trim().toLowerCase() === name.trim().toLowerCase());
    if (i < 0) throw new GridUnsupported(`the table ${t.name} has no column '${name}'`);
    return t.left + i;
  };
  const left = f.from === undefined ? t.left : column(f.from);
  const right = f.to === undefined ? t.right : column(f.to);
  const dataTop = t.top + t.headerRows;
  const dataBottom = t.bottom - t.totalsRows;
  const rows: Record<StructuredRef['area'], [number, number]> = {
    data: [dataTop, dataBottom],
    thisRow: [ctx.row, ctx.row],
    totals: [t.bottom, t.bottom],
    headers: [t.top, t.top],
    all: [t.top, t.bottom],
  };
  const [top, bottom] = rows[f.area];
  return { sheet, top, bottom, left: Math.min(left, right), right: Math.max(left, right) };
}
