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

/** The block of an Excel Table a structured reference names, read from the cell at `ctx`. */
export function tableArea(
  book: Workbook,
  f: StructuredRef,
  ctx: { sheet: number; row: number; col: number },
): Area {
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
  const { sheet, t } = found;
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
