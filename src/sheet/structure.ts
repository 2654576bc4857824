/** Reading a worksheet's structure: where the table is, its headers, and each cell's formula tree. */
import { Rejection, SheetError, type SheetLimits } from './errors.js';
import { isBlank, isError } from './fields.js';
import { arrayElement } from './array-cells.js';
import { parseFormula, shiftFormula, type Formula } from './formula.js';
import { withClockReads } from './clock-calls.js';
import { isTotalsRow } from './totals-row.js';
import {
  cellKey,
  cellName,
  type ExcelTable,
  type FormulaInfo,
  type SheetCell,
  type Worksheet,
} from './xlsx.js';

/** A table's block of cells before its fields are made. */
export interface TableRegion {
  headerRow: number;
  firstRow: number;
  lastRow: number;
  left: number;
  right: number;
  totalsRow?: number;
  excel?: ExcelTable;
}

const isText = (c: SheetCell | undefined): boolean =>
  c !== undefined && !c.formula && typeof c.value === 'string' && c.value.trim() !== '';

/**
 * The tables of a sheet: its Excel Tables, then blocks under a header row found anywhere else. A
 * header row is a run of at least two text cells side by side (or any run starting at A1) with a
 * row below it; the block goes down to the first row blank in all its columns. A last row of
 * totals (totals-row.ts) is left outside the table.
 */
export function findTables(sheet: Worksheet, limits: SheetLimits): TableRegion[] {
  const regions: TableRegion[] = [];
  const inRegion = (r: number, c: number): boolean =>
    regions.some((t) => r >= t.headerRow && r <= t.lastRow && c >= t.left && c <= t.right);
  for (const excel of sheet.tables) {
    const headerRow = excel.headerRows > 0 ? excel.top : 0;
    const firstRow = excel.top + excel.headerRows;
    const lastRow = excel.bottom - excel.totalsRows;
    if (lastRow < firstRow) continue;
    const region: TableRegion = { headerRow, firstRow, lastRow, left: excel.left, right: excel.right, excel };
    if (excel.totalsRows > 0) region.totalsRow = excel.bottom;
    regions.push(region);
  }
  const at = (r: number, c: number): SheetCell | undefined => sheet.cells.get(cellKey(r, c));
  const rowUsed = (r: number, left: number, right: number): boolean => {
    for (let c = left; c <= right; c++) if (!isBlank(at(r, c)) && !inRegion(r, c)) return true;
    return false;
  };
  for (let r = 1; r < sheet.maxRow; r++) {
    for (let c = 1; c <= sheet.maxCol; c++) {
      if (!isText(at(r, c)) || inRegion(r, c)) continue;
      let right = c;
      while (right < sheet.maxCol && isText(at(r, right + 1)) && !inRegion(r, right + 1)) right++;
      const legacy = r === 1 && c === 1;
      if ((right > c || legacy) && rowUsed(r + 1, c, right)) {
        let lastRow = r + 1;
        while (lastRow < sheet.maxRow && rowUsed(lastRow + 1, c, right)) {
          lastRow++;
          if (lastRow - r > limits.maxRows) {
            throw new SheetError(
              'TOO_MANY_ROWS',
              `the table at ${sheet.name}!${cellName(r, c)} has more than ${limits.maxRows} data rows`,
            );
          }
        }
        if (isTotalsRow(sheet, r + 1, lastRow, c, right, () => formulaResolver(sheet))) lastRow--;
        regions.push({ headerRow: r, firstRow: r + 1, lastRow, left: c, right });
      }
      c = right;
    }
  }
  return regions;
}

export function headerText(cell: SheetCell | undefined): string {
  const v = cell?.value;
  if (v === null || v === undefined || isError(v)) return '';
  return String(v).trim();
}

/**
 * Resolves each formula cell to a syntax tree (shared formulas moved to their cell), passed
 * through `rewrite` (whole rows and columns made the used part, whole.ts).
 */
export function formulaResolver(
  sheet: Worksheet,
  rewrite: (f: Formula) => Formula = (f) => f,
  /**
   * The compiler's reading (never the grid evaluator's, which evaluates array formulas as
   * written): a cell of an element-wise array formula resolves to its element (array-cells.ts).
   */
  arrayElements = false,
): (cell: SheetCell) => Formula {
  const masters = new Map<string, SheetCell>();
  for (const cell of sheet.cells.values()) {
    if (cell.formula?.shared !== undefined && cell.formula.text !== undefined)
      masters.set(cell.formula.shared, cell);
  }
  const parsed = new Map<SheetCell, Formula>();
  const parse = (cell: SheetCell): Formula => {
    let f = parsed.get(cell);
    if (!f) {
      f = parseFormula(cell.formula!.text!);
      // TODAY() and NOW() bound to the clock sheet's inputs (volatile.ts)
      if (sheet.clockCalls) f = withClockReads(f, sheet.clockCalls);
      parsed.set(cell, f);
    }
    return f;
  };
  return (cell) => rewrite(resolve(cell));
  function resolve(cell: SheetCell): Formula {
    const info = cell.formula!;
    const element = arrayElements ? arrayElement(sheet, cell, parse) : undefined;
    if (element) {
      info.elementwise = true;
      return element;
    }
    if (info.spillOf !== undefined)
      throw new Rejection(
        'ARRAY_FORMULA',
        `${cellName(cell.row, cell.col)} holds part of the result of the array formula in ${info.spillOf}; array results are not compiled`,
      );
    if (info.text !== undefined) return parse(cell);
    const master = masters.get(info.shared ?? '');
    if (!master)
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `${cellName(cell.row, cell.col)} shares a formula whose master cell is missing`,
      );
    return shiftFormula(parse(master), cell.row - master.row, cell.col - master.col);
  }
}

/**
 * A formula that is a bare literal (`=125`, `="x"`) is a constant where it stands in a table
 * column. The formula is taken off the cell and returned, so that a literal outside the table
 * can still become a field. LibreOffice writes TRUE/FALSE constants as the calls `TRUE()` and
 * `FALSE()`: those are plain constants everywhere and are not returned.
 */
export function literalFormulas(sheet: Worksheet): Map<SheetCell, FormulaInfo> {
  const literals = new Map<SheetCell, FormulaInfo>();
  for (const cell of sheet.cells.values()) {
    const info = cell.formula;
    if (!info?.text || info.array || info.shared !== undefined) continue;
    let f: Formula;
    try {
      f = parseFormula(info.text);
    } catch {
      continue;
    }
    if ((f.kind === 'boolean' || f.kind === 'number' || f.kind === 'string') && !isError(cell.value)) {
      delete cell.formula;
      if (cell.value === null) cell.value = f.value;
      if (!/^\s*(?:TRUE|FALSE)\s*\(\s*\)\s*$/i.test(info.text)) literals.set(cell, info);
    }
  }
  return literals;
}
