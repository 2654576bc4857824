/**
 * The small parts of an .xlsx read whole: the element lists of workbook.xml and the relationship
 * parts, each sheet's Excel Tables (table parts) and the workbook's defined names.
 */
import { scanXml } from './xml.js';

const decoder = new TextDecoder();

export function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** The attributes of the `element`s inside `parent` elements of a small part (workbook.xml, its rels). */
export function elementsOf(
  part: string,
  bytes: Uint8Array,
  element: string,
  parent: string,
): Record<string, string | undefined>[] {
  const found: Record<string, string | undefined>[] = [];
  scanXml(part, decoder.decode(bytes), {
    open: (name, attrs, within) => {
      if (name === element && within === parent) found.push(attrs());
    },
    close: () => {},
    wantsText: () => false,
    text: () => {},
  });
  return found;
}

/** An Excel Table (a table part of a worksheet): its name, its cells, its columns. */
export interface ExcelTable {
  /** The name formulas use (`displayName`), e.g. `Table1` or `tbSales`. */
  name: string;
  /** First and last row and column of the whole table, header and totals rows included. */
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** Header rows (0 or 1) and totals rows (0 or 1) inside that block. */
  headerRows: number;
  totalsRows: number;
  columns: string[];
}

/** A defined name: `TaxRate` → `Inputs!$B$2`, a formula or a constant; `sheet` when local to one. */
export interface DefinedName {
  name: string;
  text: string;
  /** Index of the sheet the name is local to (`localSheetId`). */
  sheet?: number;
}

/** The Excel Tables of a worksheet, from its table parts. */
export function readTables(sheetPath: string, part: (name: string) => Uint8Array | undefined): ExcelTable[] {
  const slash = sheetPath.lastIndexOf('/');
  const dir = sheetPath.slice(0, slash + 1);
  const relsPath = `${dir}_rels/${sheetPath.slice(slash + 1)}.rels`;
  const relsBytes = part(relsPath);
  if (!relsBytes) return [];
  const tables: ExcelTable[] = [];
  for (const rel of elementsOf(relsPath, relsBytes, 'Relationship', 'Relationships')) {
    if (rel.Type === undefined || !/\/table$/.test(rel.Type) || rel.Target === undefined) continue;
    if (rel.TargetMode === 'External') continue;
    const path = resolvePart(dir, rel.Target);
    const bytes = part(path);
    if (!bytes) continue;
    const table = readTable(path, bytes);
    if (table) tables.push(table);
  }
  return tables;
}

/**
 * An OOXML escaped string (ST_Xstring): `_xHHHH_` stands for the character HHHH. Excel writes a
 * line break in a table column's name as `_x000a_` (an attribute cannot keep it), and a literal
 * `_x` as `_x005f_x`.
 */
export function decodeXstring(s: string): string {
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function readTable(path: string, bytes: Uint8Array): ExcelTable | undefined {
  let head: Record<string, string> | undefined;
  const columns: string[] = [];
  scanXml(path, decoder.decode(bytes), {
    open: (name, attrs, parent) => {
      if (name === 'table' && parent === undefined) head = attrs();
      else if (name === 'tableColumn' && parent === 'tableColumns')
        columns.push(decodeXstring(attrs().name ?? ''));
    },
    close: () => {},
    wantsText: () => false,
    text: () => {},
  });
  const m = head?.ref ? /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/i.exec(head.ref) : null;
  const name = head?.displayName ?? head?.name;
  if (!m || !name) return undefined;
  const whole = (v: string | undefined, fallback: number): number =>
    v !== undefined && /^\d+$/.test(v) ? Number(v) : fallback;
  return {
    name,
    top: Number(m[2]),
    bottom: Number(m[4]),
    left: columnNumber(m[1]!),
    right: columnNumber(m[3]!),
    headerRows: Math.min(1, whole(head!.headerRowCount, 1)),
    totalsRows: Math.min(1, whole(head!.totalsRowCount, 0)),
    columns,
  };
}

/** `<definedName>`s of workbook.xml, with their text; Excel's own (`_xlnm.Print_Area`, …) left out. */
export function definedNames(bytes: Uint8Array): DefinedName[] {
  const names: DefinedName[] = [];
  let current: DefinedName | undefined;
  scanXml('xl/workbook.xml', decoder.decode(bytes), {
    open: (name, attrs, parent) => {
      if (name !== 'definedName' || parent !== 'definedNames') return;
      const a = attrs();
      if (a.name === undefined || a.name.startsWith('_xlnm.')) return;
      current = { name: a.name, text: '' };
      if (a.localSheetId !== undefined && /^\d+$/.test(a.localSheetId))
        current.sheet = Number(a.localSheetId);
    },
    close: (name) => {
      if (name === 'definedName' && current) {
        names.push(current);
        current = undefined;
      }
    },
    wantsText: () => current !== undefined,
    text: (t) => {
      if (current) current.text += t;
    },
  });
  return names;
}

/** A relationship target made a part name: relative to `base`, or absolute from the root. */
export function resolvePart(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = `${base}${target}`.split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}
