/** Reading a worksheet's structure: where the table is, its headers, and each cell's formula tree. */
import { Rejection, SheetError, type SheetLimits } from './errors.js';
import { isBlank, isError } from './fields.js';
import { parseFormula, printFormula, shiftFormula, type Formula } from './formula.js';
import { cellKey, cellName, type FormulaInfo, type SheetCell, type Worksheet } from './xlsx.js';

export function findTable(sheet: Worksheet, limits: SheetLimits): { columns: number; lastRow: number } {
  let columns = 0;
  while (!isBlank(sheet.cells.get(cellKey(1, columns + 1)))) columns++;
  if (columns === 0) {
    throw new SheetError(
      'NO_TABLE',
      `sheet '${sheet.name}' has no header in A1; the table must start at A1 with a header row`,
    );
  }
  if (columns > limits.maxColumns) {
    throw new SheetError(
      'TOO_MANY_COLUMNS',
      `the table has ${columns} columns; the limit is ${limits.maxColumns}`,
    );
  }
  let lastRow = 1;
  const rowUsed = (r: number): boolean => {
    for (let c = 1; c <= columns; c++) if (!isBlank(sheet.cells.get(cellKey(r, c)))) return true;
    return false;
  };
  while (lastRow < sheet.maxRow && rowUsed(lastRow + 1)) {
    lastRow++;
    if (lastRow - 1 > limits.maxRows) {
      throw new SheetError('TOO_MANY_ROWS', `the table has more than ${limits.maxRows} data rows`);
    }
  }
  return { columns, lastRow };
}

export function headerText(cell: SheetCell | undefined): string {
  const v = cell?.value;
  if (v === null || v === undefined || isError(v)) return '';
  return String(v).trim();
}

/** Resolves each formula cell to a syntax tree (shared formulas moved to their cell). */
export function formulaResolver(sheet: Worksheet): (cell: SheetCell) => Formula {
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
      parsed.set(cell, f);
    }
    return f;
  };
  return (cell) => {
    const info = cell.formula!;
    if (info.text !== undefined) return parse(cell);
    const master = masters.get(info.shared ?? '');
    if (!master)
      throw new Rejection(
        'UNSUPPORTED_SYNTAX',
        `${cellName(cell.row, cell.col)} shares a formula whose master cell is missing`,
      );
    return shiftFormula(parse(master), cell.row - master.row, cell.col - master.col);
  };
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

/** The first reference to another sheet in a formula, if any. */
export function foreignSheet(f: Formula, sheetName: string): string | undefined {
  switch (f.kind) {
    case 'ref':
    case 'range':
      return f.sheet !== undefined && f.sheet.toLowerCase() !== sheetName.toLowerCase()
        ? printFormula(f)
        : undefined;
    case 'call':
      for (const a of f.args) {
        const hit = foreignSheet(a, sheetName);
        if (hit) return hit;
      }
      return undefined;
    case 'binary':
      return foreignSheet(f.left, sheetName) ?? foreignSheet(f.right, sheetName);
    case 'unary':
    case 'percent':
      return foreignSheet(f.operand, sheetName);
    default:
      return undefined;
  }
}
