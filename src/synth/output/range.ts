/**
 * The text around the rows of an output, so that pieces join to exactly what `renderChunks`
 * writes: what precedes the first row and what follows the last. The rows between come from
 * `renderRangeBytes` (bytes.ts), in worker threads or on one.
 */
import type { OutputFormat } from './format.js';

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
