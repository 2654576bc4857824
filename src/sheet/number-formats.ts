/**
 * The workbook's number formats (xl/styles.xml): each cell style (`<c s="N">`, an index into
 * `cellXfs`) names a format, either built in (`numFmtId` 10 is `0.00%`) or one of the workbook's
 * own `<numFmt formatCode>`. The converter reads them only to present values as the workbook did
 * (views.ts); formulas never depend on them. Format codes are read by numfmt (ECMA-376 formats).
 */
import { getFormatInfo } from 'numfmt';
import { elementsOf } from './workbook-parts.js';

/** ECMA-376 §18.8.30: the built-in formats a converted view cares about (numbers, percent, money). */
const BUILT_IN: ReadonlyMap<number, string> = new Map([
  [0, 'General'],
  [1, '0'],
  [2, '0.00'],
  [3, '#,##0'],
  [4, '#,##0.00'],
  [5, '"$"#,##0_);\\("$"#,##0\\)'],
  [6, '"$"#,##0_);[Red]\\("$"#,##0\\)'],
  [7, '"$"#,##0.00_);\\("$"#,##0.00\\)'],
  [8, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)'],
  [9, '0%'],
  [10, '0.00%'],
  [11, '0.00E+00'],
  [37, '#,##0_);(#,##0)'],
  [38, '#,##0_);[Red](#,##0)'],
  [39, '#,##0.00_);(#,##0.00)'],
  [40, '#,##0.00_);[Red](#,##0.00)'],
]);

/** Each cell style's format code, by style index (undefined: General or unknown). */
export function cellFormats(stylesXml: Uint8Array | undefined): (string | undefined)[] {
  if (!stylesXml) return [];
  const own = new Map<number, string>();
  for (const f of elementsOf('xl/styles.xml', stylesXml, 'numFmt', 'numFmts'))
    if (f.numFmtId !== undefined && f.formatCode !== undefined) own.set(Number(f.numFmtId), f.formatCode);
  return elementsOf('xl/styles.xml', stylesXml, 'xf', 'cellXfs').map((xf) => {
    const id = Number(xf.numFmtId ?? 0);
    const code = own.get(id) ?? BUILT_IN.get(id);
    return code === undefined || code === 'General' ? undefined : code;
  });
}

/** How a view shows a value in a cell of this format: as a percent (scaled by 100), money, or plainly. */
export type CellDisplay = { kind: 'percent' } | { kind: 'currency'; currency: string } | { kind: 'plain' };

/** Currency signs a format may carry, to their ISO 4217 codes. */
const SIGNS: ReadonlyMap<string, string> = new Map([
  ['$', 'USD'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'JPY'],
  ['₹', 'INR'],
  ['₩', 'KRW'],
  ['₽', 'RUB'],
  ['₺', 'TRY'],
  ['₪', 'ILS'],
  ['₫', 'VND'],
  ['₦', 'NGN'],
  ['R$', 'BRL'],
  ['CHF', 'CHF'],
]);

/**
 * What a format means for display. A percent format scales by 100 (`0.00%` shows 0.0935 as
 * 9.35%); a money format names its currency by a locale-tagged sign (`[$€-407]`), a quoted one
 * (`"£"`), a bare `$`, or an ISO code (`[$CHF]`).
 */
export function cellDisplay(code: string | undefined): CellDisplay {
  if (code === undefined) return { kind: 'plain' };
  const info = getFormatInfo(code);
  if (info.isPercent) return { kind: 'percent' };
  if (info.isDate || info.isText) return { kind: 'plain' };
  const positive = code.split(';')[0] ?? code;
  const tagged = /\[\$([^\]-]+)(?:-[0-9A-Fa-f]+)?\]/.exec(positive)?.[1];
  const quoted = /"([^"]+)"/.exec(positive)?.[1];
  for (const sign of [tagged, quoted]) {
    if (sign === undefined) continue;
    const trimmed = sign.trim();
    const known = SIGNS.get(trimmed) ?? (/^[A-Z]{3}$/.test(trimmed) ? trimmed : undefined);
    if (known) return { kind: 'currency', currency: known };
  }
  if (info.type === 'currency' || /(^|[^\\])\$/.test(positive)) return { kind: 'currency', currency: 'USD' };
  return { kind: 'plain' };
}
