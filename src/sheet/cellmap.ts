/**
 * The cell map: which workbook cells each field of the spec holds, machine-readable, both ways.
 * A table column is one entry (`Sheet1!C2:C6` ↔ `rows[*].amount`, row i of the array being the
 * range's first row + i), so the map stays as long as the spec, not as the workbook.
 */
import type { Field } from './fields.js';
import { cellName, columnNumber } from './xlsx.js';

export interface CellMapEntry {
  /** `Sheet1!B12` for a top-level field; `Sheet1!C2:C6` for a table column (its rows, in order). */
  cells: string;
  /** The state path: `vat`, or `rows[*].amount` (`[*]` standing for the row's index). */
  path: string;
  /** input: a writable field (a table's constant column, a side cell); formula: a compiled formula. */
  kind: 'input' | 'formula';
}

const quoteSheet = (name: string): string =>
  /^[A-Za-z_][\w.]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;

/** The cells of a field as the map and the schema's `x-cells` write them. */
export function cellsOf(f: Field): string {
  // a clock input (volatile.ts) is the function itself, no cell of the workbook
  if (f.sheet.clock) return f.title;
  const sheet = quoteSheet(f.sheet.name);
  if (!f.table) return `${sheet}!${cellName(f.row, f.col)}`;
  return `${sheet}!${cellName(f.table.firstRow, f.col)}:${cellName(f.table.lastRow, f.col)}`;
}

export const pathOf = (f: Field): string => (f.table ? `${f.table.name}[*].${f.name}` : f.name);

/** Every field of the spec (inputs and compiled formulas alike) with its cells. */
export function buildCellMap(live: Field[]): CellMapEntry[] {
  return live.map((f) => ({
    cells: cellsOf(f),
    path: pathOf(f),
    kind: f.kind === 'input' || f.kind === 'side' || f.constant ? 'input' : 'formula',
  }));
}

const parseCell = (s: string): { row: number; col: number } | undefined => {
  const m = /^\$?([A-Za-z]{1,3})\$?(\d+)$/.exec(s);
  return m ? { row: Number(m[2]), col: columnNumber(m[1]!) } : undefined;
};

function splitSheet(ref: string): { sheet: string; rest: string } | undefined {
  const bang = ref.lastIndexOf('!');
  if (bang < 0) return undefined;
  let sheet = ref.slice(0, bang);
  if (sheet.startsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'");
  return { sheet, rest: ref.slice(bang + 1) };
}

/** The state path of a workbook cell (`Sheet1!C4` → `rows[2].amount`), if the spec holds it. */
export function pathOfCell(map: CellMapEntry[], cell: string): string | undefined {
  const want = splitSheet(cell);
  const at = want && parseCell(want.rest);
  if (!want || !at) return undefined;
  for (const e of map) {
    const got = splitSheet(e.cells)!;
    if (got.sheet.toLowerCase() !== want.sheet.toLowerCase()) continue;
    const [from, to] = got.rest.split(':').map(parseCell);
    if (!to) {
      if (from!.row === at.row && from!.col === at.col) return e.path;
      continue;
    }
    if (at.col === from!.col && at.row >= from!.row && at.row <= to.row)
      return e.path.replace('[*]', `[${at.row - from!.row}]`);
  }
  return undefined;
}

/** The workbook cell of a state path (`rows[2].amount` → `Sheet1!C4`), if it is one. */
export function cellOfPath(map: CellMapEntry[], path: string): string | undefined {
  const m = /^([^[\].]+)\[(\d+)\]\.(.+)$/.exec(path);
  for (const e of map) {
    const got = splitSheet(e.cells)!;
    if (!m) {
      if (e.path === path) return e.cells;
      continue;
    }
    if (e.path !== `${m[1]}[*].${m[3]}`) continue;
    const [from, to] = got.rest.split(':').map(parseCell);
    const row = from!.row + Number(m[2]);
    if (!to || row > to.row) return undefined;
    return `${e.cells.slice(0, e.cells.lastIndexOf('!') + 1)}${cellName(row, from!.col)}`;
  }
  return undefined;
}
