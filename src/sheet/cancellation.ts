/**
 * How far a sum cancels to 0 in the program that computed a workbook. Spreadsheets give 0 for
 * `a + b` (or `a - b`) whose exact double result lies within the last bits of both operands
 * (=0.5-0.4-0.1 shows 0), and the converted model must give what the workbook's program gives.
 *
 * - LibreOffice: relative 2^-48 (its rtl::math::approxAdd/approxSub).
 * - Excel: tighter. Measured on the 62 formula cells `=A-B` of Excel-written real workbooks
 *   whose operands cancel within 1e-13 relative (docs/spreadsheets.md, "Sums that cancel"):
 *   every result Excel stored as 0 was below 2^-50.5 relative, every result it kept was above
 *   2^-49.3 (a loan schedule's last balance, -6.8e-13 at 2^-48.97, among them). So 2^-50.
 * Any other writer (Google Sheets, unknown) is taken as LibreOffice.
 */
import type { Workbook } from './xlsx.js';

export const LIBREOFFICE_CANCEL = 2 ** -48;
export const EXCEL_CANCEL = 2 ** -50;

export const cancellationOf = (book: Pick<Workbook, 'writer'>): number =>
  /^Microsoft Excel/i.test(book.writer ?? '') ? EXCEL_CANCEL : LIBREOFFICE_CANCEL;
