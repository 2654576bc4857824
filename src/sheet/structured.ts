/**
 * Structured references to Excel Tables, as the file stores them: `Table1[Qty]`,
 * `Table1[[#This Row],[Qty]]`, `Table1[@Qty]`, `[@[Unit price]]`, `Table1[#Totals]`,
 * `Table1[[#Totals],[Qty]]`, `Table1[[Jan]:[Mar]]`, `Table1[]`. Inside brackets `'` escapes the
 * next character (`'[`, `']`, `'#`, `''`).
 */
import { Rejection } from './errors.js';

export type StructuredArea = 'data' | 'thisRow' | 'totals' | 'headers' | 'all';

export interface StructuredRef {
  kind: 'structured';
  /** The table's name; absent for `[@Qty]` written inside the table itself. */
  table?: string;
  area: StructuredArea;
  /** First and last column named (one column: both the same); absent for every column. */
  from?: string;
  to?: string;
  /** As written, for messages and for comparing filled-down formulas. */
  text: string;
}

const syntax = (message: string): never => {
  throw new Rejection('UNSUPPORTED_SYNTAX', message);
};

/** The end (exclusive) of the bracketed part starting at `src[at] === '['`, escapes honoured. */
function closing(src: string, at: number): number {
  let depth = 0;
  for (let i = at; i < src.length; i++) {
    const ch = src[i];
    if (ch === "'") {
      i++;
      continue;
    }
    if (ch === '[') depth++;
    else if (ch === ']' && --depth === 0) return i + 1;
  }
  return syntax(`a structured reference is not closed: '${src.slice(at, at + 24)}'`);
}

const TABLE_NAME = /[A-Za-z_\\][\w.]*(?=\[)/y;

/**
 * A structured reference starting at `at`, or undefined. `[1]Sheet!A1` (a link to another
 * workbook) is not one.
 */
export function scanStructured(src: string, at: number): { ref: StructuredRef; end: number } | undefined {
  TABLE_NAME.lastIndex = at;
  const named = TABLE_NAME.exec(src);
  const open = named ? at + named[0].length : at;
  if (src[open] !== '[') return undefined;
  if (!named && /^\[\d+\][A-Za-z_'\\]/.test(src.slice(open, open + 24))) return undefined;
  const end = closing(src, open);
  const ref = parseInner(src.slice(open + 1, end - 1));
  if (named) ref.table = named[0];
  ref.text = src.slice(at, end);
  return { ref, end };
}

/**
 * A column name as written, escapes undone. Spaces and line breaks are part of the name: a header
 * `Amount ` is written `Tbl[Amount ]` (tableColumn matches a name that differs only in spacing).
 */
const unescape = (s: string): string => s.replace(/'(.)/gs, '$1');

const SPECIAL: Record<string, StructuredArea> = {
  '#this row': 'thisRow',
  '#totals': 'totals',
  '#headers': 'headers',
  '#all': 'all',
  '#data': 'data',
};

function special(item: string): StructuredArea {
  const area = SPECIAL[item.toLowerCase().replace(/\s+/g, ' ').trim()];
  return area ?? syntax(`'${item}' is not a structured reference specifier`);
}

/** The inside of the outer brackets. */
function parseInner(inner: string): StructuredRef {
  const ref: StructuredRef = { kind: 'structured', area: 'data', text: '' };
  let body = inner;
  if (body.trimStart().startsWith('@')) {
    ref.area = 'thisRow';
    body = body.trimStart().slice(1);
    if (body.trim() === '') return ref;
  }
  const trimmed = body.trim();
  if (!trimmed.startsWith('[')) {
    if (trimmed.startsWith('#')) ref.area = special(trimmed);
    // a bare column name keeps its spaces (`Tbl[Amount ]`)
    else if (trimmed !== '') ref.from = ref.to = unescape(body);
    return ref;
  }
  body = trimmed;
  // a list of bracketed items: specifiers, then a column or a column range
  const items: { text: string; sep: string }[] = [];
  for (let i = 0; i < body.length;) {
    const ch = body[i]!;
    if (ch === ' ') {
      i++;
      continue;
    }
    if (ch !== '[') return syntax(`unexpected '${ch}' in the structured reference [${inner}]`);
    const end = closing(body, i);
    items.push({ text: body.slice(i + 1, end - 1), sep: '' });
    i = end;
    while (body[i] === ' ') i++;
    if (i < body.length) {
      const sep = body[i]!;
      if (sep !== ',' && sep !== ':')
        return syntax(`unexpected '${sep}' in the structured reference [${inner}]`);
      items[items.length - 1]!.sep = sep;
      i++;
    }
  }
  const columns: string[] = [];
  for (const item of items) {
    if (item.text.startsWith('#')) {
      const area = special(item.text);
      // [#Data],[#Totals] and the like: more than one area is read as the whole table
      ref.area = ref.area === 'data' || ref.area === area ? area : 'all';
    } else columns.push(unescape(item.text));
  }
  if (columns.length > 2) syntax(`the structured reference [${inner}] names more than two columns`);
  if (columns.length > 0) {
    ref.from = columns[0];
    ref.to = columns[columns.length - 1];
  }
  return ref;
}
