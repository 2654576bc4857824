// The card's number formatting (web/src/format.ts): what inputs show and accept, and which format
// a value takes from the views that show it. Runs in Node, whose Intl gives en-US here.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  currencySymbol,
  fieldNumber,
  formatOf,
  formatOfValue,
  formatValue,
  isYearField,
  parseNumber,
  plainNumber,
  setHostLocale,
  setViewNumbers,
  storedDecimals,
  tickValue,
} from '../../web/src/format.js';
import type { CardPayload } from '../../web/src/model.js';

const card = (components: CardPayload['views'][number]['components']): CardPayload => ({
  mode: 'stateless',
  modelId: 'm',
  version: '1',
  specHash: 'h',
  state: {},
  meta: {},
  flags: [],
  views: [{ viewId: 'v', layout: 'vertical', components }],
  graph: { nodes: [], edges: [] },
});

// every test starts from the platform's locale (en-US here), no host or view settings
const reset = (): void => {
  setHostLocale(undefined);
  setViewNumbers(undefined);
};

describe('card number formatting', () => {
  beforeEach(reset);
  afterEach(reset);

  it('reads what a person types, grouped or not, and refuses what is not a number', () => {
    expect(parseNumber('24,000')).toBe(24000);
    expect(parseNumber(' 1,234.5 ')).toBe(1234.5);
    expect(parseNumber('-7.25')).toBe(-7.25);
    expect(parseNumber('$5,000')).toBe(5000);
    expect(parseNumber('1e3')).toBe(1000);
    for (const bad of ['', 'abc', '1.2.3', '--4', '12abc34']) expect(parseNumber(bad), bad).toBeUndefined();
  });

  it('shows numbers in fields grouped, with every decimal the stored value has', () => {
    expect(fieldNumber(24000, {})).toBe('24,000');
    expect(fieldNumber(1234.5678, { format: 'currency' })).toBe('1,234.5678');
    expect(fieldNumber(1234.5, { format: 'currency' })).toBe('1,234.50');
    expect(fieldNumber(24000, { format: 'currency' })).toBe('24,000');
    // no rounding to 6 decimals: what the field shows is what the model holds
    expect(fieldNumber(0.123456789, {})).toBe('0.123456789');
    expect(fieldNumber(1e-7, {})).toBe('0.0000001');
    expect(fieldNumber(-12345.000001, {})).toBe('-12,345.000001');
    expect(parseNumber(fieldNumber(0.123456789, {}))).toBe(0.123456789);
    expect(fieldNumber(null, {})).toBe('');
    expect(formatValue(99999, 'currency', 'USD')).toBe('$99,999.00');
    expect(formatValue(7.2, 'percent')).toBe('7.2%');
    expect(formatValue(5, 'currency', 'NOT-A-CODE')).toBe('5 NOT-A-CODE');
    expect(tickValue(15000, { format: 'currency', currency: 'USD' })).toBe('$15,000');
    expect(tickValue(2.5, { format: 'currency', currency: 'USD' })).toBe('$2.50');
  });

  it('takes a value its format from the component or table column that shows it', () => {
    const c = card([
      { id: 'price', type: 'currencyField', bind: '$.price', currency: 'EUR' },
      { id: 'rate', type: 'percentField', bind: '$.rate' },
      { id: 'tile', type: 'statTile', bind: '$.total', format: 'currency', currency: 'USD' },
      {
        id: 'rows',
        type: 'dataTable',
        bind: '$.rows',
        tableColumns: [{ field: 'balance', format: 'currency', currency: 'GBP' }, { field: 'year' }],
      },
    ]);
    expect(formatOf(c, '$.price')).toEqual({ format: 'currency', currency: 'EUR' });
    expect(formatOf(c, '$.rate')).toEqual({ format: 'percent' });
    expect(formatOf(c, '$.total')).toEqual({ format: 'currency', currency: 'USD' });
    expect(formatOf(c, '$.rows[3].balance')).toEqual({ format: 'currency', currency: 'GBP' });
    expect(formatOf(c, '$.rows[3].year')).toEqual({});
    expect(formatOf(c, '$.unshown')).toEqual({});
  });

  it('gives a computed value the format its inputs share, and none when they differ', () => {
    const c = card([
      { id: 'price', type: 'currencyField', bind: '$.price', currency: 'USD' },
      { id: 'deposit', type: 'currencyField', bind: '$.deposit', currency: 'USD' },
      { id: 'rate', type: 'percentField', bind: '$.rate' },
    ]);
    c.graph = {
      nodes: [
        { key: '$.financed', kind: 'DERIVED', label: 'Financed', expression: 'price - deposit' },
        { key: '$.mixed', kind: 'DERIVED', label: 'Mixed', expression: 'price * rate' },
      ],
      edges: [
        { from: '$.price', to: '$.financed' },
        { from: '$.deposit', to: '$.financed' },
        { from: '$.price', to: '$.mixed' },
        { from: '$.rate', to: '$.mixed' },
      ],
    };
    expect(formatOfValue(c, '$.financed')).toEqual({ format: 'currency', currency: 'USD' });
    expect(formatOfValue(c, '$.mixed')).toEqual({});
  });
});

describe('percent keeps its meaning: the stored number with a sign', () => {
  beforeEach(reset);
  it('shows 9.35 as 9.35% and a fraction as itself (0.0935 is 0.09%)', () => {
    expect(formatValue(9.35, 'percent')).toBe('9.35%');
    expect(formatValue(0.0935, 'percent')).toBe('0.09%');
    // a display value scaled by 100 (the converter's, or a spec's rate * 100) shows as Excel does
    expect(formatValue(0.0935 * 100, 'percent')).toBe('9.35%');
  });
});

describe('years', () => {
  beforeEach(reset);
  it('knows a year field by the word "year" in its name, not "years" or "yearly"', () => {
    for (const yes of ['year', 'Year', 'fiscalYear', 'start_year', '$.rows[3].year', '$.plan[*].taxYear'])
      expect(isYearField(yes), yes).toBe(true);
    for (const no of ['years', 'yearly', 'yearlyRevenue', 'amount', undefined, '$.loan.termYears'])
      expect(isYearField(no), String(no)).toBe(false);
  });

  it('shows whole years as written, other numbers in such a field grouped', () => {
    expect(formatValue(2025, undefined, undefined, 'year')).toBe('2025');
    expect(formatValue(2025, undefined, undefined, '$.schedule[4].fiscalYear')).toBe('2025');
    expect(formatValue(2025, undefined, undefined, 'amount')).toBe('2,025');
    expect(formatValue(20250, undefined, undefined, 'year')).toBe('20,250');
    expect(formatValue(2025.5, undefined, undefined, 'year')).toBe('2,025.5');
    // a declared format wins; "year" is a format of its own
    expect(formatValue(2025, 'currency', 'USD', 'year')).toBe('$2,025.00');
    expect(formatValue(12345, 'year', undefined, 'anything')).toBe('12345');
    expect(tickValue(2030, {}, 'year')).toBe('2030');
    expect(fieldNumber(2025, { format: 'year' })).toBe('2025');
  });
});

describe('locale and currency', () => {
  beforeEach(reset);
  afterEach(reset);

  it('follows the host locale, and the view definition over the host', () => {
    expect(formatValue(1234567.891)).toBe('1,234,567.891');
    setHostLocale('de-DE');
    expect(formatValue(1234567.891)).toBe('1.234.567,891');
    expect(formatValue(9.35, 'percent')).toBe('9,35%');
    expect(plainNumber(12000)).toBe('12.000');
    setViewNumbers({ locale: 'en-IN' });
    expect(formatValue(1234567.891)).toBe('12,34,567.891');
    setViewNumbers(undefined);
    expect(formatValue(1234567.891)).toBe('1.234.567,891');
  });

  it('reads what a person types in the display locale', () => {
    setHostLocale('de-DE');
    expect(parseNumber('24.000')).toBe(24000);
    expect(parseNumber('1.234,5')).toBe(1234.5);
    expect(fieldNumber(1234.5, {})).toBe('1.234,5');
    setHostLocale('fr-FR');
    // French groups with a narrow no-break space
    expect(fieldNumber(1234.5, {})).toBe('1\u202f234,5');
    expect(parseNumber('1\u202f234,5')).toBe(1234.5);
    expect(parseNumber('1 234,5')).toBe(1234.5);
  });

  it('ignores a locale that is no language tag and a currency that is no code', () => {
    setHostLocale('not a locale!');
    expect(formatValue(1234.5)).toBe('1,234.5');
    setViewNumbers({ locale: 42, currency: 'euros' });
    expect(formatValue(5, 'currency')).toBe('$5.00');
  });

  it("gives currency fields naming none the view's currency", () => {
    expect(formatValue(5, 'currency')).toBe('$5.00');
    setViewNumbers({ currency: 'EUR', locale: 'de-DE' });
    expect(formatValue(1234.5, 'currency')).toBe('1.234,50\u00a0€');
    expect(formatValue(1234.5, 'currency', 'GBP')).toBe('1.234,50\u00a0£');
    expect(currencySymbol(undefined)).toBe('€');
    expect(tickValue(15000, { format: 'currency' })).toBe('15.000\u00a0€');
  });

  it('counts the decimals of a stored number, exponent forms included', () => {
    expect(storedDecimals(1)).toBe(0);
    expect(storedDecimals(0.0935)).toBe(4);
    expect(storedDecimals(1e-7)).toBe(7);
    expect(storedDecimals(1.5e-10)).toBe(11);
    expect(storedDecimals(1e21)).toBe(0);
    expect(storedDecimals(-2.25)).toBe(2);
  });
});
