// A workbook with Excel number formats (xl/styles.xml): percent cells (`0.00%`, built-in 10), a
// money format of its own (`"$"#,##0.00`) and a Year column. Values are written by hand, computed
// here in JavaScript as the formulas compute them (not an oracle: the converter's own checks run).
import { strToU8, zipSync } from 'fflate';
import { xlsxEntries } from './helpers.js';

const STYLES = `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="&quot;$&quot;#,##0.00"/></numFmts><cellStyleXfs count="1"><xf numFmtId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0"/><xf numFmtId="10" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`;
const PERCENT = 1;
const MONEY = 2;

const text = (ref: string, t: string): string => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;
const num = (ref: string, v: number, style?: number): string =>
  `<c r="${ref}"${style ? ` s="${style}"` : ''}><v>${v}</v></c>`;
const formula = (ref: string, f: string, v: number, style?: number): string =>
  `<c r="${ref}"${style ? ` s="${style}"` : ''}><f>${f}</f><v>${v}</v></c>`;

/** Years with a growth rate (percent) and revenue (money); a tax rate side cell; results beside. */
export function percentWorkbook(): Uint8Array {
  const rows = [
    { year: 2024, growth: 0.05, revenue: 1000 },
    { year: 2025, growth: 0.0935, revenue: 1200 },
    { year: 2026, growth: 0.1, revenue: 1500 },
  ];
  const taxRate = 0.0935;
  const gains = rows.map((r) => r.revenue * r.growth);
  const tax = (gains[0]! + gains[1]! + gains[2]!) * taxRate;
  const xml = [
    `<row r="1">${text('A1', 'Year')}${text('B1', 'Growth')}${text('C1', 'Revenue')}${text('D1', 'Gain')}${text('F1', 'Tax rate')}${num('G1', taxRate, PERCENT)}</row>`,
    ...rows.map((r, i) => {
      const n = i + 2;
      const side =
        n === 2
          ? `${text('F2', 'Effective rate')}${formula('G2', 'G1', taxRate, PERCENT)}`
          : n === 3
            ? `${text('F3', 'Tax')}${formula('G3', 'SUM(D2:D4)*G1', tax, MONEY)}`
            : '';
      return `<row r="${n}">${num(`A${n}`, r.year)}${num(`B${n}`, r.growth, PERCENT)}${num(`C${n}`, r.revenue, MONEY)}${formula(`D${n}`, `C${n}*B${n}`, gains[i]!, MONEY)}${side}</row>`;
    }),
  ].join('');
  const entries = xlsxEntries(xml);
  entries['xl/styles.xml'] = strToU8(STYLES);
  return zipSync(entries);
}
