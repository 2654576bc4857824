/** Number and value formatting for display (presentation only; the server keeps plain numbers). */
import type { Json } from './model';

export function formatValue(value: Json | undefined, format?: unknown, currency?: unknown): string {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'number') {
    if (format === 'currency')
      return new Intl.NumberFormat(undefined, {
        style: 'currency',
        currency: typeof currency === 'string' ? currency : 'USD',
      }).format(value);
    if (format === 'percent')
      return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(value)}%`;
    return new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 }).format(value);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Short JSON for the "why" popover. */
export function brief(value: unknown): string {
  const text = typeof value === 'number' ? formatValue(value) : JSON.stringify(value ?? null);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
