// A pattern checked against LibreOffice on both sides: recalculated by headless LibreOffice as
// stored and after seeded edits, then the converted model (compareEdits) and the cell-grid
// evaluator, recalculated with the same edits, must both give LibreOffice's value in every cell.
import { CellGrid, type GridEdit } from '../../../src/sheet/grid/evaluate.js';
import { readWorkbookParts, type CellValue } from '../../../src/sheet/xlsx.js';
import { splitRef, writeBook, type Stored } from './book.js';
import { agrees, applyEdits, drawEdits, type Edits } from './differential.js';
import type { Pattern } from './layout.js';
import { recalculate, type Recalculated } from './libreoffice.js';

export interface Prepared {
  edits: Edits[];
  base: Recalculated;
  edited: Recalculated[];
}

/** Every pattern, as stored and with each of `count` seeded edit sets, recalculated in one soffice run. */
export function prepare(patterns: Pattern[], seed: number, count: number): Map<string, Prepared> {
  const files = new Map<string, Uint8Array>();
  const edits = new Map<string, Edits[]>();
  for (const p of patterns) {
    const sets = drawEdits(p.edits, seed, count);
    edits.set(p.name, sets);
    files.set(`${p.name}-base`, writeBook(p.book));
    sets.forEach((e, k) => files.set(`${p.name}-edit${k}`, writeBook(applyEdits(p.book, e))));
  }
  const values = recalculate(files);
  const out = new Map<string, Prepared>();
  for (const p of patterns) {
    out.set(p.name, {
      edits: edits.get(p.name)!,
      base: values.get(`${p.name}-base`)!,
      edited: edits.get(p.name)!.map((_, k) => values.get(`${p.name}-edit${k}`)!),
    });
  }
  return out;
}

/** The book with LibreOffice's results stored in its formula cells, as a spreadsheet saves it. */
export function storedBook(p: Pattern, prepared: Prepared): Uint8Array {
  return writeBook(p.book, (sheet, ref): Stored | undefined => {
    const { row, col } = splitRef(ref);
    return prepared.base.get(sheet)?.get(`${row}:${col}`);
  });
}

/** Every formula cell as the grid evaluates it, as stored and after each edit set, against LibreOffice. */
export function gridMismatches(p: Pattern, prepared: Prepared): string[] {
  const { edits, edited, base } = prepared;
  const book = readWorkbookParts(storedBook(p, prepared));
  const grid = new CellGrid(book);
  grid.recalculate();
  const out: string[] = [];
  const compare = (label: string, oracle: Recalculated): void => {
    book.sheets.forEach((s, i) => {
      for (const cell of s.cells.values()) {
        if (!cell.formula) continue;
        const v = grid.value(i, cell.row, cell.col);
        const model = v instanceof Error ? null : v;
        const lo: CellValue | undefined = oracle.get(s.name)?.get(`${cell.row}:${cell.col}`);
        if (!agrees(model, lo))
          out.push(
            `${label} ${s.name}!${cell.row}:${cell.col}: grid ${String(v)}, LibreOffice ${JSON.stringify(lo)}`,
          );
      }
    });
  };
  compare('stored', base);
  edits.forEach((set, k) => {
    const changes: GridEdit[] = [];
    for (const [sheetName, cells] of set) {
      const sheet = book.sheets.findIndex((s) => s.name === sheetName);
      for (const [ref, value] of cells) changes.push({ sheet, ...splitRef(ref), value });
    }
    grid.withEdits(changes, () => compare(`edit ${k}`, edited[k]!));
  });
  return out;
}
