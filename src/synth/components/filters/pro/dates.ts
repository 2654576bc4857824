/**
 * Date, BusinessDay and Time: a year (or hour) from the input, the rest drawn (§3.3, verified for
 * Date and Time). Their composites print ISO text by default and carry a numeric value: epoch
 * seconds at UTC midnight, or seconds since midnight.
 */
import type { Composite, RuntimeNode } from '../../../engine/row.js';
import { Row } from '../../../engine/row.js';
import { SynthError, plainMessage } from '../../../errors.js';
import type { BuildContext, ComponentImpl } from '../../component.js';
import { civil, epochDay, federalHolidays, formatPattern, isLeap } from '../../calendar.js';
import { composite, filterNode, pad, proImpl, singleInput } from '../../pro-nodes.js';

/** Most day draws before a Date gives up (§11). */
export const DATE_ATTEMPTS = 10_000;

/** A Date composite for an epoch day, printed with `pattern` (ISO when undefined). */
export function dateComposite(day: number, pattern: string | undefined): Composite {
  const c = civil(day);
  const iso = `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}`;
  const text = pattern === undefined ? iso : formatPattern(pattern, c);
  return composite(
    'Date',
    { year: String(c.year), month: pad(c.month, 2), day: pad(c.day, 2), dayOfWeek: String(c.weekday), iso },
    text,
    day * 86_400,
  );
}

/** The `format` attribute, checked once at set-up by formatting a sample date. */
function datePattern(ctx: BuildContext, sample: Parameters<typeof formatPattern>[1]): string | undefined {
  if (!ctx.params.has('format')) return undefined;
  const pattern = ctx.params.text('format')!;
  try {
    formatPattern(pattern, sample);
  } catch (err) {
    ctx.params.reject(plainMessage(err, 'the format pattern cannot be used'));
  }
  return pattern;
}

/** Parses `yyyy-MM-dd` to an epoch day. */
function parseIsoDate(ctx: BuildContext, name: string): number {
  const t = ctx.params.text(name)?.trim() ?? '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const day = m === null ? NaN : epochDay(Number(m[1]), Number(m[2]), Number(m[3]));
  if (m === null || civil(day).month !== Number(m[2]) || civil(day).day !== Number(m[3]))
    return ctx.params.reject(`${name} "${t}" is not a yyyy-MM-dd date`);
  return day;
}

/** Whole years between two epoch days, as `Period.between` counts them. */
function yearsBetween(from: number, to: number): number {
  const a = civil(from);
  const b = civil(to);
  let years = b.year - a.year;
  if (b.month < a.month || (b.month === a.month && b.day < a.day)) years--;
  return years;
}

/** A year-driven day generator: draws days of the input's year until `accept` holds. */
function yearDays(ctx: BuildContext, accept: (day: number, year: number) => boolean): RuntimeNode {
  const input = singleInput(ctx);
  const pattern = datePattern(ctx, { year: 2026, month: 1, day: 2, weekday: 5 });
  const scratch = new Row(input.dimension);
  const { rng } = ctx;
  return filterNode(ctx, 1, (out, offset) => {
    input.next(scratch, 0);
    const year = Math.trunc(scratch.num(0));
    if (!Number.isFinite(year))
      throw new SynthError('SYNTH_RUNTIME', `${ctx.type} "${ctx.name}": year input is not a number`);
    const first = epochDay(year, 1, 1);
    const days = isLeap(year) ? 366 : 365;
    for (let attempt = 0; attempt < DATE_ATTEMPTS; attempt++) {
      const day = first + rng.nextIntBetween(1, days + 1) - 1;
      if (accept(day, year)) {
        out.setComposite(offset, dateComposite(day, pattern));
        return;
      }
    }
    throw new SynthError(
      'SYNTH_RUNTIME',
      `${ctx.type} "${ctx.name}": no acceptable day in ${year} after ${DATE_ATTEMPTS} draws`,
    );
  });
}

export const DATE_FILTERS: ComponentImpl[] = [
  proImpl('Date', (ctx) => {
    const minAge = ctx.params.int('minAge');
    if (minAge < 0) ctx.params.reject('minAge must be >= 0');
    if (minAge > 0 && !ctx.params.has('asOf')) ctx.params.reject('asOf is required when minAge > 0');
    const asOf = ctx.params.has('asOf') ? parseIsoDate(ctx, 'asOf') : undefined;
    // Only the day is redrawn; the year stays the one the input gave.
    return yearDays(ctx, (day) => asOf === undefined || minAge === 0 || yearsBetween(day, asOf) >= minAge);
  }),
  proImpl('BusinessDay', (ctx) => {
    const cache = new Map<number, Set<number>>();
    return yearDays(ctx, (day, year) => {
      if (civil(day).weekday >= 6) return false;
      let holidays = cache.get(year);
      if (holidays === undefined) cache.set(year, (holidays = federalHolidays(year)));
      return !holidays.has(day);
    });
  }),
  proImpl('Time', (ctx) => {
    const input = singleInput(ctx);
    const pattern = ctx.params.has('format') ? ctx.params.text('format')! : undefined;
    if (pattern !== undefined) {
      try {
        formatPattern(pattern, { hour: 13, minute: 4, second: 5 });
      } catch (err) {
        ctx.params.reject(plainMessage(err, 'the format pattern cannot be used'));
      }
    }
    const scratch = new Row(input.dimension);
    const { rng } = ctx;
    return filterNode(ctx, 1, (out, offset) => {
      input.next(scratch, 0);
      const h = Math.trunc(scratch.num(0));
      if (!(h >= 0 && h <= 23))
        throw new SynthError('SYNTH_RUNTIME', `Time "${ctx.name}": hour ${scratch.num(0)} is outside 0-23`);
      const minute = rng.nextIntBetween(0, 60);
      const second = rng.nextIntBetween(0, 60);
      const iso = `${pad(h, 2)}:${pad(minute, 2)}:${pad(second, 2)}`;
      const text = pattern === undefined ? iso : formatPattern(pattern, { hour: h, minute, second });
      out.setComposite(
        offset,
        composite(
          'Time',
          { hour: pad(h, 2), minute: pad(minute, 2), second: pad(second, 2), iso },
          text,
          h * 3600 + minute * 60 + second,
        ),
      );
    });
  }),
];
