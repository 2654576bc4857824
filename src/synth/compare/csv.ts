/**
 * A sample's CSV text as a Table (csv-parse: RFC 4180 quoting; a byte-order mark, blank lines and
 * lines starting with `#` dropped).
 */
import { parse } from 'csv-parse/sync';
import { CompareError } from './errors.js';
import type { Table } from './types.js';
import { kindOf } from './values.js';

/**
 * Whether the first row names the columns: `auto` takes it as a header unless one of its cells
 * is a number or a date (a name rarely is; data often is). `dim0,dim1…` is always a header.
 */
export type HeaderChoice = 'auto' | 'yes' | 'no';

export function parseSampleCsv(text: string, header: HeaderChoice = 'auto', maxRows = Infinity): Table {
  let rows: string[][];
  try {
    rows = parse(text, {
      bom: true,
      // a line starting with # is a comment (grind's recordings start with one); # inside a cell is data
      comment: '#',
      comment_no_infix: true,
      record_delimiter: ['\r\n', '\n'],
      skip_empty_lines: true,
    });
  } catch (err) {
    const why = (err as { code?: unknown }).code;
    const line = (err as { lines?: unknown }).lines;
    const where = typeof line === 'number' ? ` near line ${line}` : '';
    throw new CompareError(
      'COMPARE_INPUT',
      why === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
        ? `the sample's rows differ in width${where}`
        : `the sample is not readable CSV${where}: ${why === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted cell is never closed' : 'its quoting cannot be read'}`,
    );
  }
  const first = rows[0];
  if (first === undefined) throw new CompareError('COMPARE_INPUT', 'the sample is empty');
  const looksLikeData = first.some((c) => {
    const kind = kindOf(c);
    return kind === 'number' || kind === 'date';
  });
  const hasHeader = header === 'yes' || (header === 'auto' && !looksLikeData);
  const body = hasHeader ? rows.slice(1) : rows;
  if (body.length > maxRows)
    throw new CompareError('COMPARE_LIMIT', `the sample has more than ${maxRows} rows`);
  return { header: hasHeader ? first : first.map((_, i) => `dim${i}`), rows: body };
}
