/**
 * Reads the worksheets of an .xlsx: every cell's formula (as written) and the value the workbook
 * itself stored for it, each sheet's Excel Tables and the workbook's defined names. Only the parts
 * needed are inflated, each within the limits.
 */
import { DEFAULT_LIMITS, SheetError, type SheetLimits } from './errors.js';
import { columnNumber, definedNames, elementsOf, readTables, resolvePart } from './workbook-parts.js';
import { scanXml, XmlScanner } from './xml.js';
import { cellFormats } from './number-formats.js';
import { readExternalSheets } from './external.js';
import { documentProperties } from './doc-props.js';
import { BUDGET_CODES, checkBudgets, checkColumn, checkUsedRange, countElements } from './sheet-budgets.js';
import { cellKey, cellName } from './cell-names.js';

export { columnNumber, decodeXstring, type DefinedName, type ExcelTable } from './workbook-parts.js';
export {
  isOwnSheet,
  type CellRewrite,
  type CellValue,
  type ClockSource,
  type FormulaInfo,
  type SheetCell,
  type Workbook,
  type Worksheet,
} from './workbook-types.js';
import type {
  CellRewrite,
  CellValue,
  FormulaInfo,
  SheetCell,
  Workbook,
  Worksheet,
} from './workbook-types.js';
import { inflateEntry, looksLikeZip, readCentralDirectory, readEntry, type ZipEntry } from './zip.js';

/** How a sheet's cells are read besides its XML: its styles' number formats, a rewrite. */
interface ReadExtras {
  formats?: readonly (string | undefined)[];
  rewriteCells?: CellRewrite;
}

export { cellKey, cellName, columnLetter } from './cell-names.js';

const decoder = new TextDecoder();

/** What the bytes are, roughly, when they are not an .xlsx. */
function sniff(bytes: Uint8Array): string {
  const head = Array.from(bytes.subarray(0, 8));
  if (head.join(',') === '208,207,17,224,161,177,26,225') {
    return 'an OLE2 compound file (a legacy .xls, or an encrypted workbook)';
  }
  if (bytes.length === 0) return 'an empty file';
  const start = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  if (start.startsWith('%pdf')) return 'a PDF document';
  if (start.startsWith('<')) return 'an XML or HTML text';
  return 'not a zip archive';
}

/** Reads the first worksheet of an .xlsx within the limits. */
export function readWorkbook(bytes: Uint8Array, limits: SheetLimits = DEFAULT_LIMITS): Worksheet {
  return readWorkbookParts(bytes, limits).sheets[0]!;
}

/** Reads every worksheet of an .xlsx (with its Excel Tables) and the defined names, within the limits. */
export function readWorkbookParts(
  bytes: Uint8Array,
  limits: SheetLimits = DEFAULT_LIMITS,
  /** Told after each sheet: sheets read so far, of how many. */
  onSheet?: (done: number, total: number) => void,
  /**
   * Rewrites a sheet's cells as read, before its spills are marked (the converter passes
   * google.ts's rewrite of Google Sheets exports; a hook, so that this reader imports none of the
   * formula modules, which import it).
   */
  rewriteCells?: CellRewrite,
): Workbook {
  const part = openParts(bytes, limits);
  const workbookBytes = part('xl/workbook.xml');
  if (!part.has('[Content_Types].xml') || !workbookBytes) {
    throw new SheetError(
      'UNSUPPORTED_FORMAT',
      'the zip archive is not an .xlsx workbook (no [Content_Types].xml or xl/workbook.xml)',
    );
  }
  const sheets = elementsOf('xl/workbook.xml', workbookBytes, 'sheet', 'sheets');
  if (sheets.length === 0) throw new SheetError('NO_TABLE', 'the workbook has no worksheet');
  const sheetNames = sheets.map((s) => s.name ?? '');
  const relsBytes = part('xl/_rels/workbook.xml.rels');
  const rels = relsBytes
    ? elementsOf('xl/_rels/workbook.xml.rels', relsBytes, 'Relationship', 'Relationships')
    : [];
  const stylesRel = rels.find((r) => r.Type !== undefined && /\/styles$/.test(r.Type));
  const formats = cellFormats(part(resolvePart('xl/', stylesRel?.Target ?? 'styles.xml')));
  const reader = new SheetReader(
    part,
    readSharedStrings(part('xl/sharedStrings.xml')),
    sheetNames,
    limits,
    formats,
    rewriteCells,
  );
  const read: Worksheet[] = [];
  const missing: string[] = [];
  sheets.forEach((sheet, i) => {
    const rel = rels.find((r) => r.Id === sheet.id);
    // a chart sheet or a dialog sheet holds no cells
    if (rel?.Type !== undefined && !/\/worksheet$/.test(rel.Type)) return;
    const sheetPath = resolvePart('xl/', rel?.Target ?? `worksheets/sheet${i + 1}.xml`);
    const ws = reader.read(sheetPath, sheetNames[i] ?? `Sheet${i + 1}`);
    // a sheet listed without its part is left out; the workbook is refused only when none is left
    if (ws) read.push(ws);
    else missing.push(sheetPath);
    onSheet?.(i + 1, sheets.length);
  });
  if (read.length === 0 && missing.length > 0) {
    throw new SheetError('PARSE_FAILED', `the worksheet part ${missing[0]} is missing`);
  }
  if (read.length === 0) throw new SheetError('NO_TABLE', 'the workbook has no worksheet with cells');
  // every sheet past a budget: the workbook is refused as a whole, as before
  if (reader.refusal && read.every((s) => s.tooLarge)) throw reader.refusal;
  // the linked workbooks' cached values, as sheets after the file's own (external.ts)
  const linked = readExternalSheets(workbookBytes, rels, part).map((s): Worksheet => ({
    ...s,
    sheetNames,
    tables: [],
  }));
  const { savedAt, writer } = documentProperties(part);
  const props = elementsOf('xl/workbook.xml', workbookBytes, 'workbookPr', 'workbook')[0];
  const date1904 = props?.date1904 === '1' || props?.date1904 === 'true';
  return {
    sheets: [...read, ...linked],
    names: definedNames(workbookBytes),
    ...(savedAt !== undefined ? { savedAt } : {}),
    ...(writer ? { writer } : {}),
    ...(date1904 ? { date1904 } : {}),
  };
}

type Parts = ((name: string) => Uint8Array | undefined) & {
  has(name: string): boolean;
  /**
   * A part streamed: its text, chunk by chunk, into `onText`, each call inflating it again (a sheet
   * is read twice: counted, then parsed); charged to the zip-bomb budget once. False when missing.
   */
  stream(name: string): ((onText: (text: string) => void) => void) | undefined;
};

/** The zip's parts, each inflated on demand within the zip-bomb budget. */
function openParts(bytes: Uint8Array, limits: SheetLimits): Parts {
  if (bytes.length > limits.maxFileBytes) {
    throw new SheetError(
      'FILE_TOO_LARGE',
      `the file has ${bytes.length} bytes; the limit is ${limits.maxFileBytes} bytes`,
    );
  }
  if (!looksLikeZip(bytes)) {
    throw new SheetError(
      'UNSUPPORTED_FORMAT',
      `expected an .xlsx workbook (a zip archive), got ${sniff(bytes)}`,
    );
  }
  const entries = readCentralDirectory(bytes);
  let budget = limits.maxUncompressedBytes;
  const part = (name: string): Uint8Array | undefined => {
    const entry: ZipEntry | undefined = entries.get(name);
    if (!entry) return undefined;
    const data = readEntry(bytes, entry, budget);
    budget -= data.length;
    return data;
  };
  const stream = (name: string): ((onText: (text: string) => void) => void) | undefined => {
    const entry = entries.get(name);
    if (!entry) return undefined;
    const allowed = budget;
    if (entry.size <= budget) budget -= entry.size;
    return (onText) => {
      const text = new TextDecoder();
      inflateEntry(bytes, entry, allowed, (chunk) => onText(text.decode(chunk, { stream: true })));
      const rest = text.decode();
      if (rest !== '') onText(rest);
    };
  };
  return Object.assign(part, { has: (name: string) => entries.has(name), stream });
}

/** Reads sheets one by one within the workbook's cell budget; a sheet past a budget is left out alone. */
class SheetReader {
  // the cell budget is the workbook's: every sheet's <c> elements, counted before any is parsed
  private cellsLeft: number;
  /** The first budget a sheet went past. */
  refusal?: SheetError;

  constructor(
    private readonly part: Parts,
    private readonly shared: string[],
    private readonly sheetNames: string[],
    private readonly limits: SheetLimits,
    /** Each cell style's number format (number-formats.ts). */
    private readonly formats: readonly (string | undefined)[] = [],
    private readonly rewriteCells?: CellRewrite,
  ) {
    this.cellsLeft = limits.maxCells;
  }

  /**
   * The sheet at `path`, or undefined when the part is missing. The part is streamed twice: its
   * rows, cells and formulas counted (a sheet past a budget is never parsed), then its cells read;
   * its whole text is never held at once.
   */
  read(path: string, name: string): Worksheet | undefined {
    const feed = this.part.stream(path);
    if (!feed) return undefined;
    const counts = countElements(feed);
    let cells: number;
    let ws: Worksheet;
    try {
      cells = checkBudgets(counts, name, this.limits, this.cellsLeft);
      ws = readCells(path, feed, this.shared, name, this.sheetNames, this.limits, {
        formats: this.formats,
        ...(this.rewriteCells ? { rewriteCells: this.rewriteCells } : {}),
      });
    } catch (err) {
      // a sheet past a budget is left out alone (SHEET_TOO_LARGE); the others still convert
      if (!(err instanceof SheetError) || !BUDGET_CODES.has(err.code)) throw err;
      this.refusal ??= err;
      return {
        ...emptySheet(name, this.sheetNames),
        tooLarge: { message: err.message, formulaCells: counts.formulas },
      };
    }
    this.cellsLeft -= cells;
    ws.tables = readTables(path, this.part);
    return ws;
  }
}

const emptySheet = (name: string, sheetNames: string[]): Worksheet => ({
  name,
  sheetNames,
  cells: new Map(),
  maxRow: 0,
  maxCol: 0,
  tables: [],
});

/**
 * Collects a string item (`<si>` of the shared strings, `<is>` of an inline string): its own `<t>`,
 * or else its rich-text runs' `<t>` joined; phonetic hints (`<rPh>`) are not part of the text.
 */
class StringItem {
  private own: string | undefined;
  private runs = '';
  private into: 'own' | 'run' | undefined;

  open(name: string, parent: string | undefined, item: string): void {
    if (name === 't' && parent === item) {
      this.into = 'own';
      this.own ??= '';
    } else if (name === 't' && parent === 'r') this.into = 'run';
  }
  close(name: string): void {
    if (name === 't') this.into = undefined;
  }
  get wantsText(): boolean {
    return this.into !== undefined;
  }
  text(text: string): void {
    if (this.into === 'own') this.own += text;
    else this.runs += text;
  }
  get value(): string {
    return this.own ?? this.runs;
  }
}

function readSharedStrings(bytes: Uint8Array | undefined): string[] {
  if (!bytes) return [];
  const out: string[] = [];
  let item: StringItem | undefined;
  scanXml('xl/sharedStrings.xml', decoder.decode(bytes), {
    open: (name, _attrs, parent) => {
      if (name === 'si') item = new StringItem();
      else item?.open(name, parent, 'si');
    },
    close: (name) => {
      if (name === 'si' && item) {
        out.push(item.value);
        item = undefined;
      } else item?.close(name);
    },
    wantsText: () => item?.wantsText ?? false,
    text: (text) => item?.text(text),
  });
  return out;
}

/** A `<c>` element as read: its attributes and the text of its parts. */
interface RawCell {
  ref: string | undefined;
  type: string;
  value: string | undefined;
  /** The cell's metadata index (`cm`): Excel 365 marks a dynamic array formula with it. */
  cm?: string;
  /** The cell's style index (`s`), which names its number format. */
  style?: string;
  formula?: { body: string; t: string | undefined; si: string | undefined; ref: string | undefined };
  inline?: StringItem;
}

function readCells(
  part: string,
  feed: (onText: (text: string) => void) => void,
  shared: string[],
  name: string,
  sheetNames: string[],
  limits: SheetLimits,
  { formats = [], rewriteCells }: ReadExtras = {},
): Worksheet {
  const cells = new Map<string, SheetCell>();
  const hiddenRows = new Set<number>();
  let maxRow = 0;
  let maxCol = 0;
  let rowNumber = 0;
  let colNumber = 0;
  let raw: RawCell | undefined;
  let into: 'value' | 'formula' | undefined;
  const finish = (c: RawCell): void => {
    const m = c.ref ? /^([A-Z]{1,3})(\d+)$/i.exec(c.ref) : null;
    colNumber = m ? columnNumber(m[1]!) : colNumber + 1;
    const cellRow = m ? Number(m[2]) : rowNumber;
    checkColumn(cellRow, colNumber, limits);
    const cell = readCell(c, shared, cellRow, colNumber);
    if (cell.value === null && !cell.formula) return;
    const format = c.style !== undefined && /^\d+$/.test(c.style) ? formats[Number(c.style)] : undefined;
    if (format !== undefined) cell.format = format;
    cells.set(cellKey(cellRow, colNumber), cell);
    maxRow = Math.max(maxRow, cellRow);
    maxCol = Math.max(maxCol, colNumber);
  };
  const scanner = new XmlScanner(part, {
    open: (el, attrs, parent) => {
      if (raw) {
        if (el === 'v' && parent === 'c') {
          raw.value = '';
          into = 'value';
        } else if (el === 'f' && parent === 'c') {
          const a = attrs();
          raw.formula = { body: '', t: a.t, si: a.si, ref: a.ref };
          into = 'formula';
        } else if (el === 'is' && parent === 'c') raw.inline = new StringItem();
        else raw.inline?.open(el, parent, 'is');
        return;
      }
      if (el === 'row' && parent === 'sheetData') {
        const a = attrs();
        rowNumber = a.r !== undefined && /^\d+$/.test(a.r) ? Number(a.r) : rowNumber + 1;
        colNumber = 0;
        if (a.hidden === '1' || a.hidden === 'true') hiddenRows.add(rowNumber);
      } else if (el === 'c' && parent === 'row') {
        const a = attrs();
        raw = { ref: a.r, type: a.t ?? 'n', value: undefined, cm: a.cm, style: a.s };
      }
    },
    close: (el) => {
      if (!raw) return;
      if (el === 'c') {
        finish(raw);
        raw = undefined;
      } else if (el === 'v' || el === 'f') into = undefined;
      else raw.inline?.close(el);
    },
    wantsText: () => into !== undefined || (raw?.inline?.wantsText ?? false),
    text: (text) => {
      if (!raw) return;
      if (into === 'value') raw.value += text;
      else if (into === 'formula') raw.formula!.body += text;
      else raw.inline?.text(text);
    },
  });
  feed((text) => scanner.push(text));
  scanner.end();
  rewriteCells?.(cells);
  for (const c of markSpills(cells)) {
    maxRow = Math.max(maxRow, c.row);
    maxCol = Math.max(maxCol, c.col);
  }
  checkUsedRange(name, maxRow, maxCol, limits);
  return { name, sheetNames, cells, maxRow, maxCol, tables: [], hiddenRows };
}

function readCell(c: RawCell, shared: string[], row: number, col: number): SheetCell {
  const raw = c.value;
  let value: CellValue = null;
  switch (c.type) {
    case 's': {
      const i = Number(raw);
      value = Number.isInteger(i) && i >= 0 && i < shared.length ? shared[i]! : null;
      if (value === null && raw !== undefined) {
        throw new SheetError(
          'PARSE_FAILED',
          `${cellName(row, col)} names shared string ${raw}, which does not exist`,
        );
      }
      break;
    }
    case 'inlineStr':
      value = c.inline === undefined ? '' : c.inline.value;
      break;
    case 'str':
    case 'd':
      value = raw ?? '';
      break;
    case 'b':
      value = raw === undefined ? null : raw.trim() === '1' || raw.trim().toLowerCase() === 'true';
      break;
    case 'e':
      value = { error: raw ?? '#VALUE!' };
      break;
    default: {
      if (raw === undefined || raw.trim() === '') break;
      const n = Number(raw);
      if (!Number.isFinite(n)) {
        throw new SheetError('PARSE_FAILED', `${cellName(row, col)} holds '${raw}', which is not a number`);
      }
      value = n;
    }
  }
  const cell: SheetCell = { row, col, value };
  if (c.formula) {
    const { body, t, si, ref } = c.formula;
    const formula: FormulaInfo = { array: t === 'array' };
    if (t === 'array' && ref !== undefined && ref.includes(':')) formula.spill = ref;
    if (t === 'array' && c.cm !== undefined) formula.dynamic = true;
    if (body !== '') formula.text = body.startsWith('=') ? body.slice(1) : body;
    if (t === 'shared') formula.shared = si ?? '';
    if (formula.text !== undefined || formula.shared !== undefined) cell.formula = formula;
  }
  return cell;
}

/** The largest result range of an array formula marked cell by cell (Excel's own sheet is 1M × 16K). */
const MAX_SPILL_CELLS = 100_000;

/**
 * The other cells of an array formula's result range hold its result, though the file stores them
 * as plain values: they are marked (`spillOf`) so that nothing reads them as constants — a formula
 * reading one would otherwise be compiled against a value that no edit of the array's inputs moves.
 */
function markSpills(cells: Map<string, SheetCell>): SheetCell[] {
  const added: SheetCell[] = [];
  for (const anchor of [...cells.values()]) {
    const range = anchor.formula?.spill;
    const m = range ? /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/i.exec(range) : null;
    if (!m) continue;
    const [top, bottom] = [Number(m[2]), Number(m[4])];
    const [left, right] = [columnNumber(m[1]!), columnNumber(m[3]!)];
    if ((bottom - top + 1) * (right - left + 1) > MAX_SPILL_CELLS) continue;
    const of = cellName(anchor.row, anchor.col);
    for (let r = top; r <= bottom; r++)
      for (let c = left; c <= right; c++) {
        if (r === anchor.row && c === anchor.col) continue;
        const key = cellKey(r, c);
        const found = cells.get(key);
        if (found?.formula?.text !== undefined) continue; // a formula of its own: the file is odd, keep it
        const cell = found ?? { row: r, col: c, value: null };
        cell.formula = { array: true, spillOf: of };
        if (!found) {
          cells.set(key, cell);
          added.push(cell);
        }
      }
  }
  return added;
}
