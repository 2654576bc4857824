/**
 * Output in pieces that join to exactly what `renderChunks` writes: the text before the first
 * row, rows [from, to) of a run, and the text after the last row. Parallel generation renders
 * ranges in worker threads; sinks and partitions can use the same pieces.
 */
import type { GraphRun } from '../engine/graph-run.js';
import type { OutputFormat } from './format.js';
import { renderRow } from './format.js';

/** What precedes row 0: the CSV header row (when asked for) or the JSON array's bracket. */
export function outputStart(format: OutputFormat, header: boolean, names: readonly string[]): string {
  if (format === 'csv' && header) return names.join(',') + '\n';
  return format === 'json' ? '[' : '';
}

/** What follows the last of `count` rows. */
export function outputEnd(format: OutputFormat, count: number): string {
  if (format !== 'json') return '';
  return count === 0 ? ']\n' : '\n]\n';
}

/**
 * The text of the next `to - from` observations of `run`, rendered as rows [from, to) of an
 * output (row 0 of a JSON array has no comma before it). The run is advanced by that many rows.
 * With `rowEnds`, the UTF-16 length of the text so far is written after each row (its end).
 */
export function renderRange(
  run: GraphRun,
  from: number,
  to: number,
  format: OutputFormat,
  names: readonly string[],
  rowEnds?: Uint32Array,
): string {
  const dim = run.dimension;
  let buf = '';
  for (let i = from; i < to; i++) {
    const text = renderRow(run.next(), dim, format, names);
    if (format === 'json') buf += (i === 0 ? '\n' : ',\n') + text;
    else if (format === 'ndjson') buf += text + '\n';
    else buf += text;
    if (rowEnds !== undefined) rowEnds[i - from] = buf.length;
  }
  return buf;
}
