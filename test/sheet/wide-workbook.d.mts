/** See wide-workbook.mjs. */
export declare function wideWorkbook(shape: {
  rows: number;
  columns: number;
  formulaColumns?: number;
}): Uint8Array;
