/** Calendar arithmetic for Date, BusinessDay and Time: UTC days, US federal holidays, patterns. */

/** True for Gregorian leap years. */
export function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days since 1970-01-01 of a calendar date (month 1-12). */
export function epochDay(year: number, month: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, years 0-99 stay themselves
  return Math.round(d.getTime() / 86_400_000);
}

/** Year, month (1-12), day and ISO weekday (1 = Monday) of an epoch day. */
export function civil(epoch: number): { year: number; month: number; day: number; weekday: number } {
  const d = new Date(epoch * 86_400_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: ((d.getUTCDay() + 6) % 7) + 1,
  };
}

/** The n-th given weekday (1 = Monday) of a month; n = -1 for the last one. */
function nthWeekday(year: number, month: number, weekday: number, n: number): number {
  if (n > 0) {
    const first = epochDay(year, month, 1);
    const shift = (weekday - civil(first).weekday + 7) % 7;
    return first + shift + 7 * (n - 1);
  }
  const last = epochDay(year, month + 1, 1) - 1;
  return last - ((civil(last).weekday - weekday + 7) % 7);
}

/** A fixed-date holiday moved to its observed weekday (Saturday -> Friday, Sunday -> Monday). */
function observed(day: number): number {
  const wd = civil(day).weekday;
  return wd === 6 ? day - 1 : wd === 7 ? day + 1 : day;
}

/** Observed US federal holidays falling in `year` (Juneteenth from 2021, when it was created). */
export function federalHolidays(year: number): Set<number> {
  const days = [
    observed(epochDay(year, 1, 1)),
    observed(epochDay(year + 1, 1, 1)), // may be observed on Dec 31 of this year
    nthWeekday(year, 1, 1, 3), // Martin Luther King Jr. Day
    nthWeekday(year, 2, 1, 3), // Washington's Birthday
    nthWeekday(year, 5, 1, -1), // Memorial Day
    observed(epochDay(year, 7, 4)),
    nthWeekday(year, 9, 1, 1), // Labor Day
    nthWeekday(year, 10, 1, 2), // Columbus Day
    observed(epochDay(year, 11, 11)),
    nthWeekday(year, 11, 4, 4), // Thanksgiving
    observed(epochDay(year, 12, 25)),
  ];
  if (year >= 2021) days.push(observed(epochDay(year, 6, 19)));
  return new Set(days.filter((d) => civil(d).year === year));
}

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
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The values a pattern can print. */
export interface Moment {
  year?: number;
  month?: number;
  day?: number;
  weekday?: number;
  hour?: number;
  minute?: number;
  second?: number;
}

/**
 * Formats a moment with a `java.time` style pattern: y, M (MMM/MMMM names), d, E (EEE/EEEE), H, h,
 * m, s, a, and quoted literals (`''` is a quote). Other letters are refused.
 * @throws Error on a letter the pattern language does not know or a field the moment lacks
 */
export function formatPattern(pattern: string, m: Moment): string {
  let out = '';
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        out += "'";
        i += 2;
        continue;
      }
      if (end < 0) throw new Error(`unclosed quote in pattern "${pattern}"`);
      out += pattern.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      out += c;
      i++;
      continue;
    }
    let n = 1;
    while (pattern[i + n] === c) n++;
    i += n;
    const need = (v: number | undefined): number => {
      if (v === undefined) throw new Error(`pattern letter "${c}" does not apply here`);
      return v;
    };
    const num = (v: number | undefined): string => String(need(v)).padStart(n, '0');
    switch (c) {
      case 'y':
      case 'u':
        out += n === 2 ? String(need(m.year) % 100).padStart(2, '0') : num(m.year);
        break;
      case 'M':
      case 'L':
        out +=
          n >= 4
            ? MONTHS[need(m.month) - 1]
            : n === 3
              ? MONTHS[need(m.month) - 1]!.slice(0, 3)
              : num(m.month);
        break;
      case 'd':
        out += num(m.day);
        break;
      case 'E':
        out += n >= 4 ? DAYS[need(m.weekday) - 1] : DAYS[need(m.weekday) - 1]!.slice(0, 3);
        break;
      case 'H':
        out += num(m.hour);
        break;
      case 'h':
        out += String(((need(m.hour) + 11) % 12) + 1).padStart(n, '0');
        break;
      case 'm':
        out += num(m.minute);
        break;
      case 's':
        out += num(m.second);
        break;
      case 'a':
        out += need(m.hour) < 12 ? 'AM' : 'PM';
        break;
      default:
        throw new Error(`pattern letter "${c}" is not supported`);
    }
  }
  return out;
}
