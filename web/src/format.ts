/**
 * Number and value formatting for display (presentation only; the server keeps plain numbers).
 * Every number goes through the platform's `Intl.NumberFormat`, driven by one locale: the view
 * definition's `locale`, else the host's (MCP Apps host context), else the browser's.
 */
import { concretize, generalize, nodeFor, type CardPayload, type Component, type Json } from './model.js';

/** How a number is shown: the schema/view `format` (currency, percent, year) and its currency. */
export interface NumberFormat {
  format?: unknown;
  currency?: unknown;
}

/** Where the formatting locale and the default currency come from. */
export interface NumberSettings {
  locale?: string | undefined;
  currency?: string | undefined;
}

let hostSettings: NumberSettings = {};
let viewSettings: NumberSettings = {};
let version = 0;
const listeners = new Set<() => void>();

/** A well-formed BCP 47 tag the platform knows, canonicalized; undefined otherwise. */
function validLocale(tag: unknown): string | undefined {
  if (typeof tag !== 'string' || tag.trim() === '') return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag.trim());
    return canonical !== undefined && Intl.NumberFormat.supportedLocalesOf(canonical).length > 0
      ? canonical
      : undefined;
  } catch {
    return undefined;
  }
}

/** An ISO 4217 code (three letters); undefined otherwise. */
function validCurrency(code: unknown): string | undefined {
  return typeof code === 'string' && /^[A-Za-z]{3}$/.test(code) ? code.toUpperCase() : undefined;
}

function changed(): void {
  version++;
  for (const l of listeners) l();
}

/** The host's locale (the MCP Apps host context's `locale`); ignored when not a valid tag. */
export function setHostLocale(locale: unknown): void {
  const next = validLocale(locale);
  if (next === hostSettings.locale) return;
  hostSettings = { locale: next };
  changed();
}

/**
 * The shown view's `locale` and `currency` (its own or its viewDefinition's); they win over the
 * host's. Called while rendering, before the view's components, so it tells no listener.
 */
export function setViewNumbers(settings: { locale?: unknown; currency?: unknown } | undefined): void {
  viewSettings = { locale: validLocale(settings?.locale), currency: validCurrency(settings?.currency) };
}

/** For `useSyncExternalStore`: re-render when the host's locale changes (a host switching language). */
export function subscribeNumbers(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export const numbersVersion = (): number => version;

/** The locale numbers are formatted in (undefined: the browser's own). */
export function displayLocale(): string | undefined {
  return viewSettings.locale ?? hostSettings.locale;
}

const defaultCurrency = (): string => viewSettings.currency ?? 'USD';

const formatters = new Map<string, Intl.NumberFormat>();
/** A cached formatter for the display locale (creating one costs more than formatting with it). */
function formatter(options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const locale = displayLocale();
  const key = `${locale ?? ''}|${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}

/**
 * A year is shown as written (2025, not 2,025): a value under `format: "year"`, or a whole number
 * from 1000 to 9999 in a field whose name has the word "year" (`year`, `fiscalYear`, `start_year`;
 * not `years` or `yearly`).
 */
export function isYearField(field: string | undefined): boolean {
  if (!field) return false;
  const name =
    field
      .replace(/\[\d+\]|\[\*\]/g, '')
      .split('.')
      .pop() ?? '';
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase());
  return words.includes('year');
}
const looksLikeYear = (value: number): boolean => Number.isInteger(value) && value >= 1000 && value <= 9999;

function currencyText(value: number, currency: unknown, extra: Intl.NumberFormatOptions = {}): string {
  const code = validCurrency(currency) ?? (currency === undefined ? defaultCurrency() : undefined);
  if (code !== undefined)
    try {
      return formatter({ style: 'currency', currency: code, ...extra }).format(value);
    } catch {
      // a well-formed code the platform does not know: shown beside the number below
    }
  return `${formatter({ maximumFractionDigits: 2 }).format(value)} ${String(currency)}`;
}

/**
 * A value as text. `percent` keeps Valem's meaning: the stored number with a sign, not rescaled
 * (a spec stores 9.35 for 9.35 %; a fraction is shown ×100 by its own display expression).
 * `field` is the name or address the value sits at (for the year rule).
 */
export function formatValue(
  value: Json | undefined,
  format?: unknown,
  currency?: unknown,
  field?: string,
): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'number') {
    if (format === 'currency') return currencyText(value, currency);
    if (format === 'percent') return `${formatter({ maximumFractionDigits: 2 }).format(value)}%`;
    if (
      (format === 'year' && Number.isInteger(value)) ||
      (format === undefined && looksLikeYear(value) && isYearField(field))
    )
      return String(value);
    return formatter({ maximumFractionDigits: 6 }).format(value);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The sign a currency input shows before its number ($, €, CHF), in the display locale. */
export function currencySymbol(currency: unknown): string {
  try {
    const parts = formatter({ style: 'currency', currency: validCurrency(currency) ?? defaultCurrency() });
    return parts.formatToParts(0).find((p) => p.type === 'currency')?.value ?? '';
  } catch {
    return '';
  }
}

/** A plain number (a count, a share) in the display locale: grouped, at most `decimals` decimals. */
export function plainNumber(value: number, decimals = 0): string {
  return formatter({ maximumFractionDigits: decimals }).format(value);
}

/** An axis tick: as formatValue, but whole amounts of money without cents ($15,000, not $15,000.00). */
export function tickValue(value: number, how: NumberFormat, field?: string): string {
  if (how.format !== 'currency' || !Number.isInteger(value))
    return formatValue(value, how.format, how.currency, field);
  return currencyText(value, how.currency, { maximumFractionDigits: 0 });
}

/** Short text for the "why" popover, formatted like the field it names. */
export function brief(value: unknown, how: NumberFormat = {}, field?: string): string {
  const text =
    typeof value === 'number'
      ? formatValue(value, how.format, how.currency, field)
      : JSON.stringify(value ?? null);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A component's own number format: declared, or implied by its type (currency and percent fields). */
export function formatOfComponent(c: Component): NumberFormat {
  if (c.format !== undefined) return { format: c.format, currency: c.currency };
  if (c.type === 'currencyField') return { format: 'currency', currency: c.currency };
  if (c.type === 'percentField') return { format: 'percent' };
  return {};
}

/**
 * The format the card's views give an address: the component bound to it (or to its row rule),
 * else a table column over it. Unformatted when no view says.
 */
export function formatOf(card: CardPayload, address: string): NumberFormat {
  const wanted = new Set([address, generalize(address)]);
  let found: NumberFormat | undefined;
  const walk = (list: Component[] | undefined): void => {
    for (const c of list ?? []) {
      if (found) return;
      if (c.bind && wanted.has(generalize(c.bind))) {
        const own = formatOfComponent(c);
        if (own.format !== undefined) found = own;
      }
      if (c.bind && Array.isArray(c.tableColumns))
        for (const col of c.tableColumns as Record<string, unknown>[])
          if (
            !found &&
            wanted.has(generalize(`${c.bind}[*].${String(col.field)}`)) &&
            col.format !== undefined
          )
            found = { format: col.format, currency: col.currency };
      walk(c.components);
      for (const r of c.rows ?? []) walk(r.components);
    }
  };
  for (const v of card.views) walk(v.components);
  return found ?? {};
}

/**
 * The format of a value the views do not show: a computed value whose inputs all share one format
 * takes it (amount financed = price − deposit is money like both).
 */
export function formatOfValue(card: CardPayload, address: string): NumberFormat {
  const own = formatOf(card, address);
  if (own.format !== undefined) return own;
  const node = nodeFor(card.graph, address);
  if (!node || node.kind !== 'DERIVED') return own;
  const inputs = card.graph.edges
    .filter((e) => e.to === node.key)
    .map((e) => formatOf(card, concretize(e.from, address)));
  const first = inputs[0];
  return first?.format !== undefined &&
    inputs.every((f) => f.format === first.format && f.currency === first.currency)
    ? first
    : own;
}

/** The display locale's grouping and decimal marks (what a person types and reads). */
function marks(): { group: string; decimal: string } {
  const parts = formatter({}).formatToParts(11111.5);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

/** How many decimals a number's shortest exact text has (0.0935 → 4, 1e-7 → 7, 1.5e-10 → 11). */
export function storedDecimals(value: number): number {
  const m = /^-?\d+(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!m) return 0;
  const decimals = (m[1]?.length ?? 0) - Number(m[2] ?? 0);
  return Math.min(100, Math.max(0, decimals));
}

/**
 * A number as an input shows it while not being edited: grouped, no currency sign (the field has
 * it), with every decimal the stored value has (a field never rounds what it holds); money with
 * at least its cents.
 */
export function fieldNumber(value: Json | undefined, how: NumberFormat): string {
  if (typeof value !== 'number') return value === undefined || value === null ? '' : String(value);
  const digits = storedDecimals(value);
  if (how.format === 'year' && Number.isInteger(value)) return String(value);
  return formatter(
    how.format === 'currency'
      ? { minimumFractionDigits: digits === 0 ? 0 : 2, maximumFractionDigits: Math.max(2, digits) }
      : { maximumFractionDigits: digits },
  ).format(value);
}

/**
 * What a person typed, as a number: grouping marks and spaces dropped, the display locale's
 * decimal mark read.
 */
export function parseNumber(text: string): number | undefined {
  const { group, decimal } = marks();
  // white space goes first, which also takes a space used for grouping (fr-FR, sv-SE)
  const compact = text.trim().replace(/\s/g, '');
  const ungrouped = /^\s$/.test(group) ? compact : compact.split(group).join('');
  const plain = ungrouped.replace(decimal, '.').replace(/^[^\d.+-]+|[^\d.eE+-]+$/g, '');
  if (plain === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(plain)) return undefined;
  const n = Number(plain);
  return Number.isFinite(n) ? n : undefined;
}
