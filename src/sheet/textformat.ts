/**
 * TEXT(value, format) with a constant format, compiled into JSONata at conversion time. Two kinds
 * of format are read: dates (`d dd ddd dddd m mm mmm mmmm mmmmm yy yyyy`, any case) and plain
 * numbers (`0`, `00`, `0.00`, `#,##0.00`, `0%`, `0.0%`, with literal text around them). Anything else
 * (times, sections `;`, colours, fractions, exponents, `General`) is rejected by name, so a format
 * we do not follow never reaches a spec.
 */
import { Rejection } from './errors.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** The serial after 31 December 9999, the last date a spreadsheet shows. */
const LAST_DAY = 2958466;

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Token = { kind: 'lit'; text: string } | { kind: 'date'; code: string } | { kind: 'num'; text: string };

/** Characters Excel shows as themselves without quoting. */
const PLAIN = new Set([' ', '-', '/', ',', '.', ':', '(', ')', '$', '+', "'", '€', '£']);

function unsupported(format: string, why: string): Rejection {
  return new Rejection('UNSUPPORTED_FUNCTION', `TEXT with the format "${format}" is not compiled: ${why}`);
}

function tokens(format: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < format.length;) {
    const ch = format[i]!;
    const lower = ch.toLowerCase();
    if (ch === '"') {
      const end = format.indexOf('"', i + 1);
      if (end < 0) throw unsupported(format, 'an unclosed quote');
      out.push({ kind: 'lit', text: format.slice(i + 1, end) });
      i = end + 1;
    } else if (ch === '\\' && i + 1 < format.length) {
      out.push({ kind: 'lit', text: format[i + 1]! });
      i += 2;
    } else if (lower === 'd' || lower === 'm' || lower === 'y') {
      let j = i;
      while (j < format.length && format[j]!.toLowerCase() === lower) j++;
      out.push({ kind: 'date', code: lower.repeat(j - i) });
      i = j;
    } else if ('0#.,%'.includes(ch)) {
      let j = i;
      while (j < format.length && '0#.,%'.includes(format[j]!)) j++;
      out.push({ kind: 'num', text: format.slice(i, j) });
      i = j;
    } else if (PLAIN.has(ch)) {
      out.push({ kind: 'lit', text: ch });
      i++;
    } else {
      throw unsupported(format, `'${ch}' is not read`);
    }
  }
  return out;
}

export interface TextContext {
  /** The helper's name as the spec calls it (`$xl_round`), registering it in the library. */
  helper(name: string): string;
  /** A fresh variable name (`$e3`). */
  fresh(): string;
}

/** JSONata for TEXT(value, format); `value` is the value's code, already a number. */
export function compileText(format: string, value: string, ctx: TextContext): string {
  const toks = tokens(format);
  const dates = toks.filter((t) => t.kind === 'date');
  const nums = toks.filter((t) => t.kind === 'num');
  // "." and "," between date parts are literal text ("d.m.yyyy"), so a date format takes them as such
  if (dates.length > 0) return dateFormat(format, toks, value, ctx);
  if (nums.length !== 1) throw unsupported(format, 'neither a date nor one number');
  return numberFormat(format, toks, value, ctx);
}

const literal = (s: string): string => JSON.stringify(s);

function dateFormat(format: string, toks: Token[], value: string, ctx: TextContext): string {
  const v = ctx.fresh();
  const p = ctx.fresh();
  const parts = toks.map((t): string => {
    if (t.kind === 'lit') return literal(t.text);
    if (t.kind === 'num') {
      if (/^[.,]+$/.test(t.text)) return literal(t.text);
      throw unsupported(format, 'digits and dates mixed');
    }
    return datePart(format, t.code, v, p, ctx);
  });
  // a serial before 1900 or after 9999 is an error in a spreadsheet (#VALUE!); here it is no value
  return `(${v} := ${value}; ${v} < 0 or ${v} >= ${LAST_DAY} ? $nothing : (${p} := ${ctx.helper('xl_ymd')}(${v}); ${parts.join(' & ')}))`;
}

function datePart(format: string, code: string, v: string, p: string, ctx: TextContext): string {
  const pad2 = (x: string): string => `$formatNumber(${x}, "00")`;
  const month = `${JSON.stringify(MONTHS)}[${p}.m - 1]`;
  const day = `${JSON.stringify(DAYS)}[${ctx.helper('xl_weekday')}(${v}, 1) - 1]`;
  switch (code) {
    case 'yy':
      return pad2(`${p}.y % 100`);
    case 'yyy':
    case 'yyyy':
      return `$string(${p}.y)`;
    case 'y':
      return pad2(`${p}.y % 100`);
    case 'm':
      return `$string(${p}.m)`;
    case 'mm':
      return pad2(`${p}.m`);
    case 'mmm':
      return `$substring(${month}, 0, 3)`;
    case 'mmmm':
      return month;
    case 'mmmmm':
      return `$substring(${month}, 0, 1)`;
    case 'd':
      return `$string(${p}.d)`;
    case 'dd':
      return pad2(`${p}.d`);
    case 'ddd':
      return `$substring(${day}, 0, 3)`;
    case 'dddd':
      return day;
    default:
      throw unsupported(format, `'${code}' is not read`);
  }
}

function numberFormat(format: string, toks: Token[], value: string, ctx: TextContext): string {
  const pic = toks.find((t) => t.kind === 'num')!.text;
  // one integer part ending in 0 (grouped or not), optional decimals of 0s, optional %
  const m = /^((?:#,##|#,#|#,)?0+|#,##0+|0+)(\.0+)?(%?)$/.exec(pic);
  if (!m) throw unsupported(format, `the number picture '${pic}' is not read`);
  const decimals = m[2] ? m[2].length - 1 : 0;
  const pct = m[3] === '%';
  const grouped = m[1]!.includes(',');
  const v = ctx.fresh();
  // Excel rounds half away from zero; $formatNumber would round half to even, so round first
  const scaled = pct ? `${v} * 100` : v;
  const rounded = `${ctx.helper('xl_fmtround')}(${scaled}, ${decimals})`;
  // the integer part's zeros are its least digits ("00" writes 1 as "01"); grouped, at most three
  const zeros = m[1]!.replace(/[^0]/g, '').length;
  if (grouped && zeros > 3) throw unsupported(format, `the number picture '${pic}' is not read`);
  const whole = grouped ? `#,${'#'.repeat(3 - zeros)}${'0'.repeat(zeros)}` : '0'.repeat(zeros);
  const body = `${whole}${decimals ? `.${'0'.repeat(decimals)}` : ''}`;
  const r = ctx.fresh();
  const digits = `$formatNumber($abs(${r}), ${literal(body)})`;
  const parts = toks.map((t) => (t.kind === 'lit' ? literal(t.text) : `${digits}${pct ? ' & "%"' : ''}`));
  // the sign goes in front of the whole text, as Excel writes "-$1.50" for "$0.00"
  return `(${v} := ${value}; ${r} := ${rounded}; (${r} < 0 ? "-" : "") & ${parts.join(' & ')})`;
}
