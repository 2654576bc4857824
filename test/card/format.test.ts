// The card's number formatting (web/src/format.ts): what inputs show and accept, and which format
// a value takes from the views that show it. Runs in Node, whose Intl gives en-US here.
import { describe, expect, it } from 'vitest';
import {
  fieldNumber,
  formatOf,
  formatOfValue,
  formatValue,
  parseNumber,
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

describe('card number formatting', () => {
  it('reads what a person types, grouped or not, and refuses what is not a number', () => {
    expect(parseNumber('24,000')).toBe(24000);
    expect(parseNumber(' 1,234.5 ')).toBe(1234.5);
    expect(parseNumber('-7.25')).toBe(-7.25);
    expect(parseNumber('$5,000')).toBe(5000);
    expect(parseNumber('1e3')).toBe(1000);
    for (const bad of ['', 'abc', '1.2.3', '--4', '12abc34']) expect(parseNumber(bad), bad).toBeUndefined();
  });

  it('shows numbers in fields grouped, currency to the cent at most', () => {
    expect(fieldNumber(24000, {})).toBe('24,000');
    expect(fieldNumber(1234.5678, { format: 'currency' })).toBe('1,234.57');
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
