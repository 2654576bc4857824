/**
 * Links to other workbooks (`'[1]WACC'!D22`, `[1]IS!F5`). The file keeps the values it last read
 * from the linked workbook in `xl/externalLinks/externalLinkN.xml` (the `sheetDataSet`), and the
 * linked file's name in that part's relationship. Each linked sheet is read as a sheet of values
 * named as formulas name it (`[1]WACC`), marked `external`, so that a cell a formula reads
 * becomes an input holding the cached value, as a side cell of the workbook does (scope.ts).
 */
import { columnNumber, elementsOf, resolvePart } from './workbook-parts.js';
import { scanXml } from './xml.js';

/** A cached value, as a cell of the workbook holds one (xlsx.ts's CellValue). */
type CellValue = number | string | boolean | { error: string } | null;
type SheetCell = { row: number; col: number; value: CellValue };

/** A linked sheet's cached cells, made a worksheet by the reader (xlsx.ts). */
export interface LinkedSheet {
  /** As formulas name it: `[1]WACC`. */
  name: string;
  cells: Map<string, SheetCell>;
  maxRow: number;
  maxCol: number;
  external: ExternalSource;
}

const cellKey = (row: number, col: number): string => `${row}:${col}`;

/** Where a sheet of cached values comes from. */
export interface ExternalSource {
  /** The linked file's name (the relationship's target, its folders left out). */
  file: string;
  /** The sheet's name in that file. */
  sheet: string;
}

const decoder = new TextDecoder();

/** Cells cached per linked sheet, at most this many in all (a link caches what formulas read). */
const MAX_EXTERNAL_CELLS = 100_000;

/**
 * The linked workbooks' cached sheets, in the order of `<externalReferences>` (the `[n]` of a
 * formula is its place there, from 1). A link without its part is left out: formulas reading it
 * stay rejected as reading a sheet that is not there.
 */
export function readExternalSheets(
  workbookBytes: Uint8Array,
  rels: Record<string, string | undefined>[],
  part: (name: string) => Uint8Array | undefined,
): LinkedSheet[] {
  const refs = elementsOf('xl/workbook.xml', workbookBytes, 'externalReference', 'externalReferences');
  const out: LinkedSheet[] = [];
  let budget = MAX_EXTERNAL_CELLS;
  refs.forEach((ref, i) => {
    const target = rels.find((r) => r.Id === ref.id)?.Target;
    if (target === undefined) return;
    const path = resolvePart('xl/', target);
    const bytes = part(path);
    if (!bytes) return;
    const slash = path.lastIndexOf('/');
    const relsPath = `${path.slice(0, slash + 1)}_rels/${path.slice(slash + 1)}.rels`;
    const relsBytes = part(relsPath);
    const linkRels = relsBytes ? elementsOf(relsPath, relsBytes, 'Relationship', 'Relationships') : [];
    const book = readLink(path, bytes, (id) => linkRels.find((r) => r.Id === id)?.Target);
    for (const [sheet, cells] of book.sheets) {
      budget -= cells.size;
      if (budget < 0) return;
      let maxRow = 0;
      let maxCol = 0;
      for (const c of cells.values()) {
        maxRow = Math.max(maxRow, c.row);
        maxCol = Math.max(maxCol, c.col);
      }
      out.push({ name: `[${i + 1}]${sheet}`, cells, maxRow, maxCol, external: { file: book.file, sheet } });
    }
  });
  return out;
}

/** The file name of a link's target (`file:///C:\Users\…\DCF%20Key.xlsx` → `DCF Key.xlsx`). */
function fileName(target: string | undefined): string {
  if (target === undefined) return 'an unnamed workbook';
  const last = target.split(/[\\/]/).pop() ?? target;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** One externalLink part: the linked file, and each of its sheets' cached cells. */
function readLink(
  path: string,
  bytes: Uint8Array,
  target: (id: string) => string | undefined,
): { file: string; sheets: Map<string, Map<string, SheetCell>> } {
  const names: string[] = [];
  const sheets = new Map<string, Map<string, SheetCell>>();
  let file: string | undefined;
  let current: Map<string, SheetCell> | undefined;
  let cell: { ref: string; type: string; text: string } | undefined;
  let inValue = false;
  scanXml(path, decoder.decode(bytes), {
    open: (name, attrs, parent) => {
      if (name === 'externalBook') file = fileName(target(attrs().id ?? ''));
      else if (name === 'sheetName' && parent === 'sheetNames') names.push(attrs().val ?? '');
      else if (name === 'sheetData' && parent === 'sheetDataSet') {
        const id = Number(attrs().sheetId);
        const sheet = Number.isInteger(id) ? names[id] : undefined;
        current = sheet === undefined ? undefined : new Map();
        if (sheet !== undefined && current) sheets.set(sheet, current);
      } else if (name === 'cell' && parent === 'row' && current) {
        const a = attrs();
        cell = { ref: a.r ?? '', type: a.t ?? 'n', text: '' };
      } else if (name === 'v' && parent === 'cell' && cell) inValue = true;
    },
    close: (name) => {
      if (name === 'v') inValue = false;
      else if (name === 'cell' && cell && current) {
        const m = /^([A-Z]{1,3})(\d+)$/i.exec(cell.ref);
        if (m) {
          const row = Number(m[2]);
          const col = columnNumber(m[1]!);
          current.set(cellKey(row, col), { row, col, value: cachedValue(cell.type, cell.text) });
        }
        cell = undefined;
      } else if (name === 'sheetData') current = undefined;
    },
    wantsText: () => inValue,
    text: (t) => {
      if (cell) cell.text += t;
    },
  });
  return { file: file ?? 'an unnamed workbook', sheets };
}

/** A cached value: a number, text (`t="str"`, or `t="s"` as some writers put it), a boolean, an error. */
function cachedValue(type: string, text: string): CellValue {
  switch (type) {
    case 'str':
    case 's':
    case 'inlineStr':
      return text;
    case 'b':
      return text.trim() === '1' || text.trim().toLowerCase() === 'true';
    case 'e':
      return { error: text || '#REF!' };
    default: {
      if (text.trim() === '') return null;
      const n = Number(text);
      return Number.isFinite(n) ? n : text;
    }
  }
}
