/**
 * What kind of value a CSV cell holds (number, date, boolean, text, empty) and its format: the
 * number of decimals, or a date's shape. Compare reads cells as text, as a user's sample is.
 */

import { isMissingCell } from '../fit/missing.js';

export type ValueKind = 'empty' | 'number' | 'date' | 'boolean' | 'text';

// Java's Double.toString (NaN, Infinity) and plain decimal or exponent forms
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:NaN|Infinity)$/;
const DATE_YMD =
  /^\d{4}([-/.])\d{1,2}\1\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_DMY = /^\d{1,2}([-/.])\d{1,2}\1\d{2,4}(?: \d{1,2}:\d{2}(?::\d{2})?)?$/;
const TIME = /^\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
const BOOLEAN = /^(?:true|false)$/i;

export function kindOf(cell: string): ValueKind {
  const text = cell.trim();
  // the vocabulary fit uses (NA, null, NaN, -…): both read a sample alike
  if (isMissingCell(text)) return 'empty';
  if (NUMBER.test(text)) return 'number';
  if (DATE_YMD.test(text) || DATE_DMY.test(text) || TIME.test(text)) return 'date';
  if (BOOLEAN.test(text)) return 'boolean';
  return 'text';
}

/** Digits after the decimal point (before any exponent); 0 for an integer. */
export function decimalsOf(cell: string): number {
  const text = cell.trim();
  const dot = text.indexOf('.');
  if (dot < 0) return 0;
  const exp = text.search(/[eE]/);
  return (exp < 0 ? text.length : exp) - dot - 1;
}

/**
 * A date's shape: runs of one or two digits read as `99` (so 1/5/2024 and 12/15/2024 agree),
 * longer runs keep their length: `2024-01-05` → `9999-99-99`.
 */
export function dateShape(cell: string): string {
  return cell.trim().replace(/\d+/g, (run) => (run.length <= 2 ? '99' : '9'.repeat(run.length)));
}

/**
 * A date's position on a line (milliseconds) when its shape reads one way only: year first
 * (ISO and yyyy/mm/dd). Day-first and month-first dates cannot be told apart, so they get none.
 */
export function dateValue(cell: string): number | undefined {
  const text = cell.trim();
  const match = DATE_YMD.exec(text);
  if (match === null) return undefined;
  const iso = text.replace(/^(\d{4})[/.](\d{1,2})[/.](\d{1,2})/, '$1-$2-$3').replace(' ', 'T');
  const [date, time] = iso.split('T') as [string, string | undefined];
  const [y, m, d] = date.split('-');
  const padded = `${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`;
  // a time with no offset is read as UTC, so the figure does not depend on the machine's zone
  const zoned = time === undefined ? '00:00:00Z' : /(?:Z|[+-]\d{2}:?\d{2})$/.test(time) ? time : `${time}Z`;
  const value = Date.parse(`${padded}T${zoned}`);
  return Number.isFinite(value) ? value : undefined;
}
