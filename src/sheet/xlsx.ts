/**
 * Reads the first worksheet of an .xlsx: every cell's formula (as written) and the value the
 * workbook itself stored for it. Only the parts needed are inflated, each within the limits.
 */
import { XMLParser } from 'fast-xml-parser';
import { DEFAULT_LIMITS, SheetError, type SheetLimits } from './errors.js';
import { looksLikeZip, readCentralDirectory, readEntry, type ZipEntry } from './zip.js';

export type CellValue = number | string | boolean | { error: string } | null;

export interface FormulaInfo {
  /** Formula text without the leading `=`; absent on a shared-formula follower. */
  text?: string;
  /** Shared-formula group id (`si`), when the formula is shared. */
  shared?: string;
  /** A legacy array (CSE) formula. */
  array: boolean;
}

export interface SheetCell {
  row: number;
  col: number;
  /** The constant, or for a formula cell the value the workbook stored as its result. */
  value: CellValue;
  formula?: FormulaInfo;
}

export interface Worksheet {
  name: string;
  sheetNames: string[];
  cells: Map<string, SheetCell>;
  maxRow: number;
  maxCol: number;
}

export const cellKey = (row: number, col: number): string => `${row}:${col}`;

/** 1 → A, 27 → AA. */
export function columnLetter(col: number): string {
  let s = '';
  for (let n = col; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}
export const cellName = (row: number, col: number): string => `${columnLetter(col)}${row}`;

const ARRAYS = new Set(['row', 'c', 'si', 'r', 'sheet', 'Relationship', 'Override', 'Default']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  alwaysCreateTextNode: true,
  processEntities: true,
  htmlEntities: false,
  isArray: (name) => ARRAYS.has(name),
});

type XmlNode = Record<string, unknown>;
const asNode = (v: unknown): XmlNode => (typeof v === 'object' && v !== null ? (v as XmlNode) : {});
const asList = (v: unknown): XmlNode[] =>
  Array.isArray(v) ? v.map(asNode) : v === undefined ? [] : [asNode(v)];
const text = (v: unknown): string => {
  if (typeof v === 'string') return v;
  const t = asNode(v)['#text'];
  return typeof t === 'string' ? t : '';
};
const attr = (node: XmlNode, name: string): string | undefined => {
  const v = node[`@_${name}`];
  return typeof v === 'string' ? v : undefined;
};

function parseXml(name: string, bytes: Uint8Array): XmlNode {
  const xml = new TextDecoder().decode(bytes);
  if (/<!DOCTYPE/i.test(xml.slice(0, 4096))) {
    throw new SheetError('PARSE_FAILED', `${name} declares a DOCTYPE, which an .xlsx part never does`);
  }
  try {
    return asNode(parser.parse(xml));
  } catch (err) {
    throw new SheetError('PARSE_FAILED', `${name} is not well-formed XML: ${(err as Error).message}`);
  }
}

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
  const workbookBytes = part('xl/workbook.xml');
  if (!entries.has('[Content_Types].xml') || !workbookBytes) {
    throw new SheetError(
      'UNSUPPORTED_FORMAT',
      'the zip archive is not an .xlsx workbook (no [Content_Types].xml or xl/workbook.xml)',
    );
  }
  const workbook = asNode(parseXml('xl/workbook.xml', workbookBytes).workbook);
  const sheets = asList(asNode(workbook.sheets).sheet);
  const first = sheets[0];
  if (!first) throw new SheetError('NO_TABLE', 'the workbook has no worksheet');
  const sheetNames = sheets.map((s) => attr(s, 'name') ?? '');
  const relId = attr(first, 'id');
  const relsBytes = part('xl/_rels/workbook.xml.rels');
  let target = 'worksheets/sheet1.xml';
  if (relsBytes) {
    const rels = asList(asNode(parseXml('xl/_rels/workbook.xml.rels', relsBytes).Relationships).Relationship);
    const rel = rels.find((r) => attr(r, 'Id') === relId);
    if (rel) target = attr(rel, 'Target') ?? target;
  }
  const sheetPath = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const sheetBytes = part(sheetPath);
  if (!sheetBytes) throw new SheetError('PARSE_FAILED', `the first worksheet's part ${sheetPath} is missing`);

  // memory guard before building a tree: count the rows in the raw XML
  const xml = new TextDecoder().decode(sheetBytes);
  let rowElements = 0;
  const rowTag = /<(?:[A-Za-z_][\w.-]*:)?row[\s>/]/g;
  while (rowTag.exec(xml)) rowElements++;
  if (rowElements > limits.maxRows + 1 + SUMMARY_ROW_SLACK) {
    throw new SheetError(
      'TOO_MANY_ROWS',
      `the worksheet has ${rowElements} rows; the limit is ${limits.maxRows} data rows`,
    );
  }
  const shared = readSharedStrings(part('xl/sharedStrings.xml'));
  const sheetDoc = parseXml(sheetPath, sheetBytes);
  return readCells(sheetDoc, shared, sheetNames[0] ?? 'Sheet1', sheetNames, limits);
}

/** Rows beyond the table's limit that a worksheet may carry (blank rows, totals) before it is refused unparsed. */
const SUMMARY_ROW_SLACK = 1000;

function stringItem(si: XmlNode): string {
  if (si.t !== undefined) return text(si.t);
  return asList(si.r)
    .map((r) => text(r.t))
    .join('');
}

function readSharedStrings(bytes: Uint8Array | undefined): string[] {
  if (!bytes) return [];
  const sst = asNode(parseXml('xl/sharedStrings.xml', bytes).sst);
  return asList(sst.si).map(stringItem);
}

function readCells(
  doc: XmlNode,
  shared: string[],
  name: string,
  sheetNames: string[],
  limits: SheetLimits,
): Worksheet {
  const data = asNode(asNode(doc.worksheet).sheetData);
  const cells = new Map<string, SheetCell>();
  let maxRow = 0;
  let maxCol = 0;
  let rowNumber = 0;
  for (const row of asList(data.row)) {
    const r = attr(row, 'r');
    rowNumber = r !== undefined && /^\d+$/.test(r) ? Number(r) : rowNumber + 1;
    let colNumber = 0;
    for (const c of asList(row.c)) {
      const ref = attr(c, 'r');
      const m = ref ? /^([A-Z]{1,3})(\d+)$/i.exec(ref) : null;
      colNumber = m ? columnNumber(m[1]!) : colNumber + 1;
      const cellRow = m ? Number(m[2]) : rowNumber;
      if (colNumber > limits.maxColumns) {
        throw new SheetError(
          'TOO_MANY_COLUMNS',
          `cell ${cellName(cellRow, colNumber)} lies past the limit of ${limits.maxColumns} columns`,
        );
      }
      const cell = readCell(c, shared, cellRow, colNumber);
      if (cell.value === null && !cell.formula) continue;
      cells.set(cellKey(cellRow, colNumber), cell);
      maxRow = Math.max(maxRow, cellRow);
      maxCol = Math.max(maxCol, colNumber);
    }
  }
  return { name, sheetNames, cells, maxRow, maxCol };
}

function readCell(c: XmlNode, shared: string[], row: number, col: number): SheetCell {
  const type = attr(c, 't') ?? 'n';
  const raw = c.v === undefined ? undefined : text(c.v);
  let value: CellValue = null;
  switch (type) {
    case 's': {
      const i = Number(raw);
      value = Number.isInteger(i) && shared[i] !== undefined ? shared[i] : null;
      if (value === null && raw !== undefined) {
        throw new SheetError(
          'PARSE_FAILED',
          `${cellName(row, col)} names shared string ${raw}, which does not exist`,
        );
      }
      break;
    }
    case 'inlineStr':
      value = c.is === undefined ? '' : stringItem(asNode(c.is));
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
  if (c.f !== undefined) {
    const f = asNode(c.f);
    const t = attr(f, 't');
    const body = text(c.f);
    const formula: FormulaInfo = { array: t === 'array' };
    if (body !== '') formula.text = body.startsWith('=') ? body.slice(1) : body;
    if (t === 'shared') formula.shared = attr(f, 'si') ?? '';
    if (formula.text !== undefined || formula.shared !== undefined) cell.formula = formula;
  }
  return cell;
}
