// Sums that cancel (src/sheet/cancellation.ts). A spreadsheet gives 0 for `a - b` whose result
// lies within the last bits of both operands, but Excel's bound is tighter than LibreOffice's
// 2^-48: on real Excel-written workbooks every result Excel stored as 0 was below 2^-50.5 of its
// operands and every one it kept above 2^-49.3. A loan schedule's last balance
// (`=B68-D68` = 375.8585953993873 - 375.858595399388, Excel stored -6.821210263296962e-13, at
// 2^-48.97) was refused as VALUE_MISMATCH, and the whole schedule with it. The oracle is those
// values as Excel stored them, and the rule LibreOffice documents for its own files.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { cell, xlsxEntries } from './helpers.js';

const { text, num, formula, row } = cell;

const APP = (name: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>${name}</Application></Properties>`;

function book(a: number, b: number, stored: number, writer?: string): Uint8Array {
  const entries = xlsxEntries(
    row(1, text('A1', 'Balance'), text('B1', 'Principal'), text('C1', 'Left')) +
      row(2, num('A2', a), num('B2', b), formula('C2', 'A2-B2', stored)),
  );
  if (writer !== undefined) entries['docProps/app.xml'] = strToU8(APP(writer));
  return zipSync(entries);
}

const verified = async (bytes: Uint8Array): Promise<string[]> => {
  const c = await convertWorkbook(bytes, { modelId: 'cancel' });
  return c.report.rejected.map((r) => r.reason);
};

describe('a sum that cancels is 0 as the program that computed the workbook makes it', () => {
  it("Excel keeps a result at 2^-48.97 of its operands (a loan schedule's last balance)", async () => {
    const [a, b] = [375.8585953993873, 375.858595399388];
    expect(a - b).toBe(-6.821210263296962e-13);
    expect(await verified(book(a, b, a - b, 'Microsoft Excel'))).toEqual([]);
    // and a 0 there is not what Excel gives
    expect(await verified(book(a, b, 0, 'Microsoft Excel'))).toEqual(['VALUE_MISMATCH']);
  });

  it('Excel gives 0 for a result at 2^-50.5 of its operands', async () => {
    const [a, b] = [142.71426970902556, 142.71426970902547];
    expect(a - b).not.toBe(0);
    expect(await verified(book(a, b, 0, 'Microsoft Excel'))).toEqual([]);
  });

  it('a workbook of another program (LibreOffice, or none named) cancels within 2^-48', async () => {
    const [a, b] = [375.8585953993873, 375.858595399388];
    expect(await verified(book(a, b, 0))).toEqual([]);
    expect(
      await verified(book(a, b, 0, 'LibreOffice/7.4.7.2$Linux_X86_64 LibreOffice_project/40$Build-2')),
    ).toEqual([]);
    expect(await verified(book(a, b, a - b))).toEqual(['VALUE_MISMATCH']);
  });
});

describe('a leading + changes nothing', () => {
  it("=+A2 of a text cell is the text, of a number the number (a real model: =+'Model Inputs'!B1)", async () => {
    const c = await convertWorkbook(
      zipSync(
        xlsxEntries(
          row(1, text('A1', 'Name'), text('B1', 'Shown'), text('C1', 'Amount'), text('D1', 'Again')) +
            row(
              2,
              text('A2', '[Company Name]'),
              formula('B2', '+A2', '[Company Name]'),
              num('C2', 5),
              formula('D2', '+C2', 5),
            ) +
            row(
              3,
              text('A3', 'Acme'),
              formula('B3', '+A3', 'Acme'),
              num('C3', -2.5),
              formula('D3', '+C3', -2.5),
            ),
        ),
      ),
      { modelId: 'plus' },
    );
    expect(c.report.rejected).toEqual([]);
    expect(c.report.verifiedCells).toBe(4);
  });
});
