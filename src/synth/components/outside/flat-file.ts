/**
 * FlatFile (§4.2, §11): a delimited text table read during the load phase through the file port,
 * after the path policy (src/synth/access/paths.ts), parsed by csv-parse. `#` lines and blank
 * lines are skipped, cells may be quoted (`"a, b"`, `""` for a quote, line breaks inside quotes),
 * `skipHeader` turns the first data line into column names usable by `weightColumn` and
 * `textColumns`.
 */
import { parse } from 'csv-parse/sync';
import { resolveModelFile } from '../../access/paths.js';
import { SynthError } from '../../errors.js';
import type { ComponentImpl, LoadContext } from '../component.js';
import { descriptorOf } from '../component.js';
import type { TypedCell } from './table-node.js';
import { columnIndex, tableNode, typeCell } from './table-node.js';

/** What the load phase hands to `create`. */
interface FlatFileData {
  readonly path: string;
  readonly text: string;
}

/** Our words for the read failures a table can meet; anything else is "could not be read". */
const READ_FAILURES: ReadonlyMap<string, string> = new Map([
  ['ENOENT', 'it does not exist'],
  ['EISDIR', 'it is a folder, not a file'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'permission denied'],
]);

/**
 * Reads a file a model names, after the path policy; for any component that reads files. A read
 * that fails is a load error naming the table's path (not the model's).
 */
export function readModelFile(ctx: LoadContext, written: string): FlatFileData {
  const what = `${ctx.type} "${ctx.name}"`;
  const path = resolveModelFile(written, ctx.origin, ctx.access.fileScope(what), what);
  try {
    return { path, text: ctx.access.ports.files!.readText(path) };
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    const why = (typeof code === 'string' && READ_FAILURES.get(code)) || 'it could not be read';
    throw new SynthError('SYNTH_LOAD', `${what}: cannot read the table ${path}: ${why}`);
  }
}

/** The delimiter parameter: one character, with `\t` / `tab` meaning a tab. */
export function delimiterOf(text: string | undefined): string | undefined {
  const t = text ?? ',';
  if (t === '\\t' || t.toLowerCase() === 'tab' || t === '\t') return '\t';
  return t.length === 1 ? t : undefined;
}

/**
 * Splits delimited text into rows of cells with csv-parse (RFC 4180 quoting, so a quoted cell may
 * hold delimiters, `""` and line breaks). `#` comment lines (also indented ones), blank lines and
 * a byte-order mark are dropped; rows may differ in width.
 * @param source the table's path, for messages
 * @throws SynthError SYNTH_LOAD when the text is not a table (an unclosed quote)
 */
export function parseDelimited(text: string, delimiter: string, source = 'the table'): string[][] {
  let records: { record: string[]; raw: string }[];
  try {
    records = parse(text, {
      delimiter,
      bom: true,
      comment: '#',
      comment_no_infix: true,
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
      raw: true,
    }) as unknown as { record: string[]; raw: string }[];
  } catch (err) {
    // with quotes and row widths relaxed, a quote left open is the failure a table meets
    const why =
      (err as { code?: unknown }).code === 'CSV_QUOTE_NOT_CLOSED'
        ? 'a quoted cell is never closed'
        : 'its quoting cannot be read';
    throw new SynthError('SYNTH_LOAD', `${source} is not a readable table: ${why}`);
  }
  // whitespace-only lines and indented comments are not rows either; a record's raw text starts
  // with the comment and blank lines skipped before it (CRLF shows there as a bare CR), which are
  // not its own
  return records
    .filter(({ raw }) => {
      const own = raw
        .replace(/^\uFEFF/, '')
        .replace(/^(?:(?:#[^\r\n]*)?(?:\r\n|\r|\n))*/, '')
        .trimStart();
      return own !== '' && !own.startsWith('#');
    })
    .map(({ record }) => record);
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
    const lines = parseDelimited(data.text, delimiter, `${ctx.type} "${ctx.name}": the table ${data.path}`);
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
