export type CellValue = string | number | boolean | null;
export interface LoSheet {
  name: string;
  rows: CellValue[][];
  cells?: Record<string, CellValue>;
}
export interface LoBook {
  name: string;
  sheets: LoSheet[];
}
export const SOFFICE: string | undefined;
export function letter(n: number): string;
export function xlsxOf(book: LoBook): Uint8Array;
export function recalculate(books: LoBook[]): Uint8Array[];
