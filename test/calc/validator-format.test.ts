// validate_spec's number-format hints (issue 42 point 4): `percent` shows the stored number with a
// sign, so a percent-bound field that holds fractions is warned about with a stable code; the
// viewDefinition's locale and currency are checked.
import { describe, expect, it } from 'vitest';
import { validateSpec } from '../../src/calc/validator.js';

const rateSpec = (rate: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'rates',
  schema: { type: 'object', properties: { rate: { type: 'number', ...rate }, amount: { type: 'number' } } },
  derivations: [{ path: '$.interest', expr: 'amount * rate' }],
  viewDefinition: {
    views: [
      {
        id: 'main',
        components: [
          { id: 'rate', type: 'percentField', bind: '$.rate' },
          { id: 'interest', type: 'statTile', bind: '$.interest' },
        ],
      },
    ],
  },
  ...extra,
});

const codes = async (spec: unknown): Promise<(string | undefined)[]> =>
  (await validateSpec(spec)).warnings.map((w) => w.code);

describe('percent hints', () => {
  it('warns when a percent field is bounded within [-1, 1]', async () => {
    const result = await validateSpec(rateSpec({ minimum: 0, maximum: 1 }));
    expect(result.valid).toBe(true);
    const w = result.warnings.find((x) => x.code === 'PERCENT_LOOKS_LIKE_FRACTION');
    expect(w?.location).toBe('viewDefinition.views[0].components[0]');
    expect(w?.message).toMatch(/schema bounds lie in \[-1, 1\]/);
    expect(w?.message).toMatch(/\$round\(rate \* 100, 4\)/);
  });

  it('warns when the tests give or expect fractions at a percent-formatted address', async () => {
    const spec = rateSpec(
      {},
      { tests: [{ given: { '$.rate': 0.0935, '$.amount': 100 }, expect: { '$.interest': 9.35 } }] },
    );
    expect(await codes(spec)).toContain('PERCENT_LOOKS_LIKE_FRACTION');
  });

  it('checks table columns shown as percent', async () => {
    const spec = {
      id: 'tab',
      schema: {
        type: 'object',
        properties: {
          rows: {
            type: 'array',
            items: { type: 'object', properties: { share: { type: 'number', minimum: 0, maximum: 1 } } },
          },
        },
      },
      viewDefinition: {
        views: [
          {
            id: 'main',
            components: [
              {
                id: 't',
                type: 'dataTable',
                bind: '$.rows',
                tableColumns: [{ field: 'share', format: 'percent' }],
              },
            ],
          },
        ],
      },
    };
    const result = await validateSpec(spec);
    expect(result.warnings.map((w) => [w.code, w.location])).toContainEqual([
      'PERCENT_LOOKS_LIKE_FRACTION',
      'viewDefinition.views[0].components[0].tableColumns[0]',
    ]);
  });

  it('stays quiet for whole percents (Valem meaning) and for bounds of 0..100', async () => {
    expect(await codes(rateSpec({ minimum: 0, maximum: 100 }))).not.toContain('PERCENT_LOOKS_LIKE_FRACTION');
    const tested = rateSpec(
      {},
      { tests: [{ given: { '$.rate': 9.35, '$.amount': 100 }, expect: { '$.interest': 935 } }] },
    );
    expect(await codes(tested)).toEqual([]);
    // 0 % and 1 % are whole percents, not evidence of a fraction
    const edges = rateSpec(
      {},
      { tests: [{ given: { '$.rate': 1, '$.amount': 1 }, expect: { '$.interest': 1 } }] },
    );
    expect(await codes(edges)).toEqual([]);
  });
});

describe('view locale and currency', () => {
  it('accepts language tags and ISO codes, warns on others', async () => {
    const good = rateSpec({ minimum: 0, maximum: 100 });
    Object.assign(good.viewDefinition, { locale: 'de-DE', currency: 'EUR' });
    expect((await validateSpec(good)).warnings).toEqual([]);
    const bad = rateSpec({ minimum: 0, maximum: 100 });
    Object.assign(bad.viewDefinition, { locale: 'not a locale', currency: 'euros' });
    const result = await validateSpec(bad);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((w) => [w.code, w.location])).toEqual([
      ['VIEW_LOCALE_UNKNOWN', 'viewDefinition.locale'],
      ['VIEW_CURRENCY_INVALID', 'viewDefinition.currency'],
    ]);
  });
});
