// The LibreOffice differential shared by the function test files (test/sheet/*-libreoffice.test.ts):
// generated workbooks of patterns, recalculated headless as stored and after seeded edits.
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../../src/sheet/compile.js';
import { CellGrid, type GridEdit } from '../../../src/sheet/grid/evaluate.js';
import { readWorkbookParts, type CellValue } from '../../../src/sheet/xlsx.js';
import { splitRef, writeBook, type Stored } from './book.js';
import { agrees, compareEdits } from './differential.js';
import { SOFFICE, SOFFICE_SKIP_REASON } from './libreoffice.js';
import type { Pattern } from './layout.js';
import { prepare, type Prepared } from './checked.js';

export type { Prepared };

/** Every pattern's book as stored and after seeded edit sets, recalculated in one soffice run (checked.ts). */
export const recalculatePatterns = prepare;

/**
 * One `describe` per file of patterns: every workbook recalculated by headless LibreOffice as
 * stored and after `edits` seeded edit sets; each pattern's converted model and the cell-grid
 * evaluator must give LibreOffice's value in every formula cell, and nothing may be rejected.
 * Skipped, saying why, without soffice.
 */
export function describePatternsAgainstLibreOffice(options: {
  title: string;
  patterns: Pattern[];
  seed: number;
  edits: number;
  /** Prefix of the converted models' ids. */
  idPrefix: string;
}): void {
  const { patterns: PATTERNS, seed: SEED, edits: EDITS, idPrefix } = options;
  const title = SOFFICE
    ? `${options.title} against LibreOffice`
    : `${options.title} (skipped: ${SOFFICE_SKIP_REASON})`;
  describe.skipIf(!SOFFICE)(title, () => {
    const prepared = new Map<string, Prepared>();

    beforeAll(() => {
      for (const [name, p] of recalculatePatterns(PATTERNS, SEED, EDITS)) prepared.set(name, p);
    }, 240_000);

    /** The book with LibreOffice's results stored in its formula cells. */
    const storedBook = (p: Pattern): Uint8Array => {
      const { base } = prepared.get(p.name)!;
      return writeBook(p.book, (sheet, ref): Stored | undefined => {
        const { row, col } = splitRef(ref);
        return base.get(sheet)?.get(`${row}:${col}`);
      });
    };

    /** Every formula cell as the grid evaluates it after each edit set, against LibreOffice. */
    function gridMismatches(p: Pattern): string[] {
      const { edits, edited } = prepared.get(p.name)!;
      const book = readWorkbookParts(storedBook(p));
      const grid = new CellGrid(book);
      grid.recalculate();
      const out: string[] = [];
      edits.forEach((set, k) => {
        const changes: GridEdit[] = [];
        for (const [sheetName, cells] of set) {
          const sheet = book.sheets.findIndex((s) => s.name === sheetName);
          for (const [ref, value] of cells) changes.push({ sheet, ...splitRef(ref), value });
        }
        grid.withEdits(changes, () => {
          book.sheets.forEach((s, i) => {
            for (const cell of s.cells.values()) {
              if (!cell.formula) continue;
              const v = grid.value(i, cell.row, cell.col);
              const model = v instanceof Error ? null : v;
              const lo: CellValue | undefined = edited[k]!.get(s.name)?.get(`${cell.row}:${cell.col}`);
              if (!agrees(model, lo))
                out.push(
                  `edit ${k} ${s.name}!${cell.row}:${cell.col}: grid ${String(v)}, LibreOffice ${JSON.stringify(lo)}`,
                );
            }
          });
        });
      });
      return out;
    }

    for (const p of PATTERNS) {
      it(`${p.name}: ${p.covers}`, async () => {
        const { edits, edited } = prepared.get(p.name)!;
        const { spec, report } = await convertWorkbook(storedBook(p), {
          modelId: `${idPrefix}-${p.name}`,
          filename: `${p.name}.xlsx`,
        });
        expect(report.rejected, `${p.name}: rejected cells`).toEqual([]);
        expect(
          report.checks.filter((c) => !c.checked.startsWith('what-if') && c.checked !== 'constant'),
        ).toEqual([]);
        expect(report.verifiedCells).toBe(report.formulaCells);
        const { compared, mismatches } = await compareEdits(spec, p.book, edits, edited);
        expect(mismatches, `${p.name}: model cells that disagree with LibreOffice`).toEqual([]);
        expect(compared).toBeGreaterThan(0);
        expect(gridMismatches(p), `${p.name}: grid cells that disagree with LibreOffice`).toEqual([]);
      });
    }
  });
}
