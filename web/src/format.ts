/** Number and value formatting for display (presentation only; the server keeps plain numbers). */
import { concretize, generalize, nodeFor, type CardPayload, type Component, type Json } from './model.js';

/** How a number is shown: the schema/view `format` (currency, percent) and its currency. */
export interface NumberFormat {
  format?: unknown;
  currency?: unknown;
}

export function formatValue(value: Json | undefined, format?: unknown, currency?: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'number') {
    if (format === 'currency') {
      try {
        return new Intl.NumberFormat(undefined, {
          style: 'currency',
          currency: typeof currency === 'string' ? currency : 'USD',
        }).format(value);
      } catch {
        // an unknown currency code: the number with its code beside it
        return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(value)} ${String(currency)}`;
      }
    }
    if (format === 'percent')
      return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(value)}%`;
    return new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 }).format(value);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** An axis tick: as formatValue, but whole amounts of money without cents ($15,000, not $15,000.00). */
export function tickValue(value: number, how: NumberFormat): string {
  if (how.format !== 'currency' || !Number.isInteger(value))
    return formatValue(value, how.format, how.currency);
  try {
    return new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency: typeof how.currency === 'string' ? how.currency : 'USD',
      maximumFractionDigits: 0,
    }).format(value);
  } catch {
    return formatValue(value, how.format, how.currency);
  }
}

/** Short text for the "why" popover, formatted like the field it names. */
export function brief(value: unknown, how: NumberFormat = {}): string {
  const text =
    typeof value === 'number' ? formatValue(value, how.format, how.currency) : JSON.stringify(value ?? null);
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

/** The locale's grouping and decimal marks (what a person types and reads). */
function marks(): { group: string; decimal: string } {
  const parts = new Intl.NumberFormat().formatToParts(11111.5);
  return {
    group: parts.find((p) => p.type === 'group')?.value ?? ',',
    decimal: parts.find((p) => p.type === 'decimal')?.value ?? '.',
  };
}

/** A number as an input shows it while not being edited: grouped, no currency sign (the field has it). */
export function fieldNumber(value: Json | undefined, how: NumberFormat): string {
  if (typeof value !== 'number') return value === undefined || value === null ? '' : String(value);
  const digits = how.format === 'currency' ? 2 : 6;
  return new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value);
}

/** What a person typed, as a number: grouping marks and spaces dropped, the locale's decimal mark read. */
export function parseNumber(text: string): number | undefined {
  const { group, decimal } = marks();
  const plain = text
    .trim()
    .replace(/\s/g, '')
    .split(group)
    .join('')
    .replace(decimal, '.')
    .replace(/^[^\d.+-]+|[^\d.eE+-]+$/g, '');
  if (plain === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(plain)) return undefined;
  const n = Number(plain);
  return Number.isFinite(n) ? n : undefined;
}
