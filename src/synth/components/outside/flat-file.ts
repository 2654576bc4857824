/**
 * FlatFile (§4.2, §11): a delimited text table read during the load phase through the file port,
 * after the path policy (src/synth/access/paths.ts). `#` lines and blank lines are skipped,
 * cells may be quoted (`"a, b"`, `""` for a quote), `skipHeader` turns the first data line into
 * column names usable by `weightColumn` and `textColumns`.
 */
import { resolveModelFile } from '../../access/paths.js';
import type { ComponentImpl, LoadContext } from '../component.js';
import { descriptorOf } from '../component.js';
import type { TypedCell } from './table-node.js';
import { columnIndex, tableNode, typeCell } from './table-node.js';

/** What the load phase hands to `create`. */
interface FlatFileData {
  readonly path: string;
  readonly text: string;
}

/** Reads a file a model names, after the path policy; for any component that reads files. */
export function readModelFile(ctx: LoadContext, written: string): FlatFileData {
  const what = `${ctx.type} "${ctx.name}"`;
  const path = resolveModelFile(written, ctx.origin, ctx.access.fileScope(what), what);
  return { path, text: ctx.access.ports.files!.readText(path) };
}

/** The delimiter parameter: one character, with `\t` / `tab` meaning a tab. */
export function delimiterOf(text: string | undefined): string | undefined {
  const t = text ?? ',';
  if (t === '\\t' || t.toLowerCase() === 'tab' || t === '\t') return '\t';
  return t.length === 1 ? t : undefined;
}

/** Splits delimited text into rows of cells; `#` comment lines and blank lines are dropped. */
export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  for (const raw of text.replace(/^\uFEFF/, '').split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const cells: string[] = [];
    let cur = '';
    let quoted = false;
    let wasQuoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') {
          cur += '"';
          i++;
        } else if (c === '"') quoted = false;
        else cur += c;
      } else if (c === '"' && cur.trim() === '' && !wasQuoted) {
        quoted = true;
        wasQuoted = true;
        cur = '';
      } else if (c === delimiter) {
        cells.push(cur);
        cur = '';
        wasQuoted = false;
      } else if (!(wasQuoted && c.trim() === '')) cur += c;
    }
    cells.push(cur);
    rows.push(cells);
  }
  return rows;
}

export const FLAT_FILE: ComponentImpl = {
  descriptor: descriptorOf('FlatFile'),
  inputAttributes: [],
  load(ctx: LoadContext): FlatFileData {
    return readModelFile(ctx, ctx.params.text('file') ?? '');
  },
  create(ctx) {
    const data = ctx.outside as FlatFileData | undefined;
    if (data === undefined) return ctx.params.reject('the file was not loaded (no load phase ran)');
    const p = ctx.params;
    const delimiter = delimiterOf(p.text('delimiter'));
    if (delimiter === undefined) return p.reject(`delimiter "${p.text('delimiter')}" must be one character`);
    const lines = parseDelimited(data.text, delimiter);
    const header = p.bool('skipHeader') ? lines.shift() : undefined;
    const text = new Set<number>();
    for (const spec of (p.text('textColumns') ?? '').split(/[\s,;]+/).filter((s) => s !== ''))
      text.add(columnIndex(ctx, spec, header, 'textColumns'));
    if (p.text('mode') === 'weighted') {
      const w = columnIndex(ctx, p.text('weightColumn') ?? '0', header, 'weightColumn');
      if (text.has(w)) p.reject(`textColumns includes the weight column ${w}`);
    }
    const rows: TypedCell[][] = lines.map((cells) => cells.map((c, i) => typeCell(c, text.has(i))));
    return tableNode(ctx, rows, header);
  },
};
