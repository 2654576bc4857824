// The converter's views (issue 42 point 4): a cell formatted `0.00%` holds a fraction that Excel
// shows ×100; the view shows it the same way (a display value scaled by 100 with `percent`), money
// formats become currency, and the view is what the card draws.
import { describe, expect, it } from 'vitest';
import { evaluateView, validateSpec } from '../../src/calc/index.js';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cellDisplay, cellFormats } from '../../src/sheet/number-formats.js';
import { live } from '../calc/helpers/model.js';
import { percentWorkbook } from './percent-workbook.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('number formats of a workbook', () => {
  it('reads what each cell style means: percent, money with its currency, plain', () => {
    expect(cellDisplay('0.00%')).toEqual({ kind: 'percent' });
    expect(cellDisplay('0%')).toEqual({ kind: 'percent' });
    expect(cellDisplay('"$"#,##0.00')).toEqual({ kind: 'currency', currency: 'USD' });
    expect(cellDisplay('[$€-407]#,##0.00')).toEqual({ kind: 'currency', currency: 'EUR' });
    expect(cellDisplay('#,##0.00 [$CHF]')).toEqual({ kind: 'currency', currency: 'CHF' });
    expect(cellDisplay('"£"#,##0.00')).toEqual({ kind: 'currency', currency: 'GBP' });
    for (const plain of ['0.00', '#,##0', 'yyyy-mm-dd', '0.00 "km"', undefined])
      expect(cellDisplay(plain), String(plain)).toEqual({ kind: 'plain' });
  });

  it('maps cell styles to built-in and own format codes', () => {
    const styles = new TextEncoder().encode(
      '<styleSheet><numFmts><numFmt numFmtId="170" formatCode="0.0%"/></numFmts><cellStyleXfs><xf numFmtId="9"/></cellStyleXfs><cellXfs><xf numFmtId="0"/><xf numFmtId="10"/><xf numFmtId="170"/><xf numFmtId="999"/></cellXfs></styleSheet>',
    );
    expect(cellFormats(styles)).toEqual([undefined, '0.00%', '0.0%', undefined]);
    expect(cellFormats(undefined)).toEqual([]);
  });
});

describe('the converted spec’s view', () => {
  it('shows a 0.00% cell as Excel does: 0.0935 as 9.35%', async () => {
    const { spec, rejectedColumns } = await convertWorkbook(percentWorkbook(), {
      modelId: 'growth',
      filename: 'growth.xlsx',
    });
    expect(rejectedColumns).toEqual([]);
    // valid, its tests pass, and no hint that a percent field holds fractions: the view scales them
    const report = await validateSpec(spec);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);

    const { runtime } = await live({ ...spec });
    const view = await evaluateView(runtime);
    const byId = new Map<string, Json>();
    const walk = (list: Json[]): void => {
      for (const c of list) {
        byId.set(c.id, c);
        walk(c.components ?? []);
      }
    };
    walk(view.components);
    // the stored value stays the workbook's fraction; the tile shows it ×100 with a % sign
    expect((await runtime.getState()).effective_rate).toBe(0.0935);
    expect(byId.get('effective_rate')).toMatchObject({ type: 'statTile', format: 'percent', value: 9.35 });
    expect(byId.get('tax')).toMatchObject({ format: 'currency', currency: 'USD' });
    // an input keeps the fraction the workbook holds, and says so
    expect(byId.get('tax_rate')).toMatchObject({ type: 'numericField', value: 0.0935 });
    const table = byId.get('table_rows')!;
    expect(table.tableColumns).toEqual([
      { field: 'year', header: 'Year' },
      { field: 'growth', header: 'Growth', format: 'percent' },
      { field: 'revenue', header: 'Revenue', format: 'currency', currency: 'USD' },
      { field: 'gain', header: 'Gain', format: 'currency', currency: 'USD' },
    ]);
    expect(table.value.map((r: Json) => [r.year, r.growth, r.gain])).toEqual([
      [2024, 5, 50],
      [2025, 9.35, 112.2],
      [2026, 10, 150],
    ]);
  });
});
