/**
 * `validate_spec`'s number-format hints for views. `format: "percent"` (and `percentField`) shows
 * the stored number with a % sign, not rescaled, as Valem's catalogue does: a spec stores 9.35 for
 * 9.35 %. A field bound to it whose schema bounds or test values all lie in [−1, 1] most likely
 * holds a fraction (0.0935), which would show as "0.09%". Also checks the viewDefinition's
 * `locale` and `currency`. Warnings only, each with a stable code.
 */
import { parseAddress, WILDCARD, type Path } from './address.js';
import { isObject } from './json.js';
import { schemaAt } from './schema.js';
import type { ModelSpec } from './spec.js';
import type { Report } from './validator-report.js';

/** A field shown as percent that holds fractions (0.0935 for 9.35 %). */
export const PERCENT_LOOKS_LIKE_FRACTION = 'PERCENT_LOOKS_LIKE_FRACTION';
/** A viewDefinition or view `locale` that is no BCP 47 tag the platform knows. */
export const VIEW_LOCALE_UNKNOWN = 'VIEW_LOCALE_UNKNOWN';
/** A `currency` that is not a three-letter ISO 4217 code. */
export const VIEW_CURRENCY_INVALID = 'VIEW_CURRENCY_INVALID';

/** Every warning code this module gives (docs/model-spec.md lists them). */
export const FORMAT_WARNING_CODES = [
  PERCENT_LOOKS_LIKE_FRACTION,
  VIEW_LOCALE_UNKNOWN,
  VIEW_CURRENCY_INVALID,
] as const;

const generalized = (path: Path): string =>
  path.map((s) => (typeof s === 'number' || s === WILDCARD ? '*' : s)).join('\u0000');

function knownLocale(tag: string): boolean {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical !== undefined && Intl.NumberFormat.supportedLocalesOf(canonical).length > 0;
  } catch {
    return false;
  }
}

/** The viewDefinition's and each view's `locale` and `currency`. */
export function checkViewNumbers(def: Record<string, unknown>, report: Report): void {
  const check = (holder: Record<string, unknown>, loc: string): void => {
    const { locale, currency } = holder;
    if (locale !== undefined && (typeof locale !== 'string' || !knownLocale(locale)))
      report.warn(
        `${loc}.locale`,
        `locale ${JSON.stringify(locale)} is not a language tag the card knows (write one like "en-US" or "de-DE"); numbers follow the host's locale instead`,
        VIEW_LOCALE_UNKNOWN,
      );
    if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency)))
      report.warn(
        `${loc}.currency`,
        `currency ${JSON.stringify(currency)} is not a three-letter ISO 4217 code (USD, EUR, GBP)`,
        VIEW_CURRENCY_INVALID,
      );
  };
  check(def, 'viewDefinition');
  if (Array.isArray(def.views))
    def.views.forEach((v, i) => {
      if (isObject(v)) check(v, `viewDefinition.views[${i}]`);
    });
}

/** A percent-formatted component's bound address (or a percent table column's row address). */
export function checkPercentBinds(
  spec: ModelSpec,
  component: Record<string, unknown>,
  loc: string,
  report: Report,
): void {
  const bind = component.bind;
  if (typeof bind !== 'string') return;
  // a display expression of its own (`$round(rate * 100, 4)`) is what is shown, not the bound value
  if (typeof component.value === 'string' && component.value.includes('$')) return;
  const percent =
    component.format === 'percent' || (component.format === undefined && component.type === 'percentField');
  if (percent) checkPercentAddress(spec, bind, loc, report);
  if (Array.isArray(component.tableColumns))
    component.tableColumns.forEach((col, k) => {
      if (isObject(col) && col.format === 'percent' && typeof col.field === 'string')
        checkPercentAddress(spec, `${bind}[*].${col.field}`, `${loc}.tableColumns[${k}]`, report);
    });
}

function checkPercentAddress(spec: ModelSpec, address: string, loc: string, report: Report): void {
  const parsed = parseAddress(address);
  if (!parsed.ok) return;
  const evidence = fractionEvidence(spec, parsed.path);
  if (evidence === undefined) return;
  report.warn(
    loc,
    `'${address}' is shown as percent, which adds a % sign to the stored number without scaling it (9.35 shows "9.35%"), but its ${evidence} lie in [-1, 1], so it looks like a fraction (0.0935 would show "0.09%"). Store whole percents (9.35; divide by 100 in the rules), or show a display value scaled by 100 ("value": "$round(${lastName(parsed.path)} * 100, 4)")`,
    PERCENT_LOOKS_LIKE_FRACTION,
  );
}

const lastName = (path: Path): string => {
  const last = path.filter((s) => typeof s === 'string' && s !== WILDCARD).at(-1);
  return typeof last === 'string' ? last : 'value';
};

/** What says the field holds fractions: its schema bounds, or its values in the tests; else undefined. */
function fractionEvidence(spec: ModelSpec, path: Path): string | undefined {
  const node = schemaAt(spec.schema, path);
  const lo = bound(node.minimum, node.exclusiveMinimum);
  const hi = bound(node.maximum, node.exclusiveMaximum);
  if (lo !== undefined && hi !== undefined && lo >= -1 && hi <= 1 && hi > lo) return 'schema bounds';
  const wanted = generalized(path);
  const values: number[] = [];
  for (const test of spec.tests)
    for (const side of [test.given, test.expect])
      for (const [address, value] of Object.entries(side)) {
        if (typeof value !== 'number') continue;
        const at = parseAddress(address);
        if (at.ok && generalized(at.path) === wanted) values.push(value);
      }
  // whole numbers in [-1, 1] (0 %, 1 %) say nothing; a fraction among them does
  if (values.length > 0 && values.every((v) => v >= -1 && v <= 1) && values.some((v) => !Number.isInteger(v)))
    return 'test values';
  return undefined;
}

function bound(inclusive: unknown, exclusive: unknown): number | undefined {
  if (typeof inclusive === 'number') return inclusive;
  return typeof exclusive === 'number' ? exclusive : undefined;
}
