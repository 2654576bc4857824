/**
 * LibreOffice's values for a generated workbook as written and after seeded edit sets of its
 * inputs: the set-up of the LibreOffice-checked tests that compare a conversion after edits.
 */
import { writeBook, type BookDef } from './book.js';
import { applyEdits, drawEdits, type Edits } from './differential.js';
import { recalculate, type Recalculated } from './libreoffice.js';
import type { EditDef } from './patterns.js';

export interface EditedBooks {
  base: Recalculated;
  edits: Edits[];
  edited: Recalculated[];
}

export function recalculateWithEdits(
  book: () => BookDef,
  defs: EditDef[],
  seed: number,
  sets: number,
): EditedBooks {
  const edits = drawEdits(defs, seed, sets);
  const files = new Map<string, Uint8Array>([['base', writeBook(book())]]);
  edits.forEach((e, k) => files.set(`edit${k}`, writeBook(applyEdits(book(), e))));
  const values = recalculate(files);
  return { base: values.get('base')!, edits, edited: edits.map((_, k) => values.get(`edit${k}`)!) };
}
