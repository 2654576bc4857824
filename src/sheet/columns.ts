/**
 * The fields of a workbook before compilation: each table's columns (constant ones are inputs, a
 * formula filled down is a computed column) and each formula cell outside the tables.
 */
import { scalarArrayFormula } from './arrays.js';
import { Rejection } from './errors.js';
import type { JsonValue } from '../calc/index.js';
import {
  BLANK,
  fieldName,
  isError,
  label,
  MAX_LOOSE_CELLS,
  reject,
  typeOf,
  type Field,
  type RejectedColumn,
  type TableModel,
} from './fields.js';
import { printFormula, rowRelativeKey, type Formula } from './formula.js';
import { isDynamicSpill, spillFields, spillsOver } from './spill.js';
import { headerText } from './structure.js';
import { cellKey, cellName, columnLetter, type FormulaInfo, type SheetCell, type Worksheet } from './xlsx.js';

/** What the field builders collect for the compiler. */
export interface FieldSet {
  fields: Field[];
  formulas: Map<Field, Formula>;
  /** A stored error is reported after compilation, so that a circular reference is named as such. */
  storedErrors: Map<Field, RejectedColumn>;
}

type Resolve = (cell: SheetCell) => Formula;

function newField(
  sheet: Worksheet,
  props: Pick<Field, 'name' | 'title' | 'address' | 'kind' | 'col' | 'row' | 'type'>,
): Field {
  return { ...props, sheet, tables: new Set(), deps: new Set(), formulaCells: 0 };
}

/** The first formula of a field, parsed; a formula that cannot be read rejects the field. */
function parseFirst(set: FieldSet, field: Field, cell: SheetCell, resolve: Resolve): Formula | undefined {
  try {
    const f = resolve(cell);
    field.formulaText = printFormula(f);
    set.formulas.set(field, f);
    return f;
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    field.formulaText = cell.formula?.text;
    reject(field, err.reason, `${cellName(cell.row, cell.col)}: ${err.message}`);
    return undefined;
  }
}

/** The columns of one table, added to `set` and to `table.byCol`. */
export function tableFields(table: TableModel, set: FieldSet, resolve: Resolve): void {
  const { sheet } = table;
  const taken = new Set<string>();
  for (let col = table.left; col <= table.right; col++) {
    const excelName = table.excel?.columns[col - table.left];
    const title =
      excelName ?? (table.headerRow ? headerText(sheet.cells.get(cellKey(table.headerRow, col))) : '');
    const letter = columnLetter(col);
    const field = newField(sheet, {
      name: fieldName(title, `col_${letter}`, taken),
      title: title || letter,
      address: letter,
      kind: 'input',
      col,
      row: table.firstRow,
      type: 'number',
    });
    field.table = table;
    set.fields.push(field);
    table.byCol.set(col, field);
    const cells: (SheetCell | undefined)[] = [];
    for (let r = table.firstRow; r <= table.lastRow; r++) cells.push(sheet.cells.get(cellKey(r, col)));
    columnField(field, cells, set, resolve, taken);
  }
}

function columnField(
  field: Field,
  cells: (SheetCell | undefined)[],
  set: FieldSet,
  resolve: Resolve,
  taken: Set<string>,
): void {
  const col = field.col;
  const withFormula = cells.filter((c) => c?.formula);
  field.formulaCells = withFormula.length;
  const values = cells.map((c) => c?.value ?? null);
  const errorCell = cells.find((c) => isError(c?.value));
  if (withFormula.length === 0) {
    field.type = typeOf(values.filter((v) => v !== null && !isError(v)));
    if (errorCell) {
      const error = (errorCell.value as { error: string }).error;
      reject(field, 'ERROR_VALUE', `${cellName(errorCell.row, col)} holds the error ${error}`, {
        cell: cellName(errorCell.row, col),
      });
    }
    return;
  }
  field.kind = 'column';
  // a spilled array in a table's column is not a formula filled down: the column is taken out of
  // its table (loose.ts), so that the spill is compiled as cells of its own (spill.ts)
  const spilled = withFormula.find((c) => c!.formula!.spillOf !== undefined || spillsOver(c!.formula!.spill));
  if (spilled) {
    reject(
      field,
      'NON_UNIFORM_FORMULA',
      `${cellName(spilled.row, col)} holds part of an array formula's result, which is not a formula filled down`,
    );
    return;
  }
  const first = withFormula[0]!;
  field.row = first.row;
  const formula = parseFirst(set, field, first, resolve);
  if (!formula) return;
  const constant = cells.findIndex((c) => !c?.formula);
  if (constant >= 0 && typedColumn(field, cells, withFormula as SheetCell[], set, resolve, taken)) return;
  if (constant >= 0) {
    reject(
      field,
      'NON_UNIFORM_FORMULA',
      `${cellName(field.table!.firstRow + constant, col)} is blank or holds a constant while ${cellName(first.row, col)} holds a formula; a computed column needs the same formula in every row`,
    );
    return;
  }
  const arrayCell = cells.find((c) => c?.formula && rangeArray(c.formula, () => resolve(c)));
  if (arrayCell) {
    reject(field, 'ARRAY_FORMULA', `${cellName(arrayCell.row, col)} is ${arrayKind(arrayCell.formula!)}`);
    return;
  }
  if (!uniform(field, formula, cells as SheetCell[], resolve, set)) return;
  const stored = storedError(field, cells as SheetCell[]);
  if (stored) set.storedErrors.set(field, stored);
  else field.type = typeOf(values);
}

/**
 * Blocks of rows apart from a column's formula filled down (a first row adding an `IFERROR`, the
 * first dozen rows with an `ABS` the rest dropped, a closing row): more would make the column a
 * set of different formulas, which stays rejected. A short column (loose.ts takes it apart cell
 * by cell otherwise) keeps only its first rows apart, at most MAX_OPENING_ROWS (the opening row
 * of a schedule).
 */
export const MAX_APART_BLOCKS = 5;
export const MAX_OPENING_ROWS = 5;

/**
 * Whether the column holds one formula filled down; rejects the field when not. A few blocks of
 * rows may hold formulas of their own (see MAX_APART_BLOCKS): the formula most rows hold is the
 * column's (`field.row` its first row), and each block apart, one formula filled down over
 * consecutive formula rows, is kept in `field.apart` and compiled at its own first row (apart.ts).
 */
function uniform(
  field: Field,
  formula: Formula,
  cells: SheetCell[],
  resolve: Resolve,
  set?: FieldSet,
): boolean {
  const blocks: { key: string; from: number; to: number; f: Formula; count: number }[] = [];
  for (const c of cells) {
    let f: Formula;
    try {
      f = resolve(c);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      reject(field, err.reason, `${cellName(c.row, field.col)}: ${err.message}`);
      return false;
    }
    const key = rowRelativeKey(f, c.row);
    const last = blocks[blocks.length - 1];
    if (last?.key === key) Object.assign(last, { to: c.row, count: last.count + 1 });
    else blocks.push({ key, from: c.row, to: c.row, f, count: 1 });
  }
  if (blocks.length <= 1) return true;
  const odd = blocks[1]!;
  const message = `${cellName(odd.from, field.col)} holds =${printFormula(odd.f)}, which is not ${cellName(field.row, field.col)}'s =${field.formulaText} filled down`;
  const counts = new Map<string, number>();
  for (const b of blocks) counts.set(b.key, (counts.get(b.key) ?? 0) + b.count);
  const [mainKey, mainCount] = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a));
  const apart = blocks.filter((b) => b.key !== mainKey);
  const apartRows = cells.length - mainCount;
  const long = cells.length > MAX_LOOSE_CELLS;
  // the formula filled down holds most rows; a short column only after its opening rows
  const fits = long
    ? apart.length <= MAX_APART_BLOCKS && mainCount * 2 >= cells.length
    : blocks.findIndex((b) => b.key === mainKey) === apart.length &&
      apartRows <= MAX_OPENING_ROWS &&
      mainCount >= Math.max(3, 2 * apartRows);
  if (!set || !fits) {
    reject(field, 'NON_UNIFORM_FORMULA', message);
    return false;
  }
  const main = blocks.find((b) => b.key === mainKey)!;
  field.apart = apart.map((b) => ({ from: b.from, to: b.to, formula: b.f }));
  field.row = main.from;
  field.formulaText = printFormula(main.f);
  set.formulas.set(field, main.f);
  return true;
}

/**
 * A column of one formula filled down with typed constants or blanks in some rows (an opening
 * balance above a running balance, a typed row between two blocks of the formula, typed overrides
 * at the end, a blank first row or blank rows of a table): the typed values become a writable
 * input column of their own (`<column>_typed`, blank at the formula's rows) and the column
 * computes, row by row, the typed value at a typed row and the formula elsewhere, which is what
 * the workbook computes. A blank typed row is the blank an input cell is given (0, or "" in a
 * text column). A shorter column is taken apart cell by cell instead (loose.ts); a column with
 * blank rows holds its formula in at least twice as many rows as it has typed ones.
 * Returns false when the column is not such a column (the caller rejects it).
 */
function typedColumn(
  field: Field,
  cells: (SheetCell | undefined)[],
  formulaCells: SheetCell[],
  set: FieldSet,
  resolve: Resolve,
  taken: Set<string>,
): boolean {
  const table = field.table!;
  const formula = set.formulas.get(field)!;
  if (formulaCells.length <= MAX_LOOSE_CELLS && !typedOpening(field, cells, formulaCells, resolve))
    return false;
  const typedRows = new Set<number>();
  const typedValues: JsonValue[] = [];
  let blanks = 0;
  for (const [i, c] of cells.entries()) {
    if (c?.formula) continue;
    if (c !== undefined && isError(c.value)) return false;
    typedRows.add(table.firstRow + i);
    if (c === undefined || c.value === null) blanks++;
    else typedValues.push(c.value);
  }
  // a shorter column is taken apart cell by cell (loose.ts) unless only typed opening rows sit
  // above a recurrence (typedOpening): its cells may read what a column formula may not (a cell
  // beside the table unlocked, a moving SUMPRODUCT, its own typed rows)
  if (formulaCells.length <= MAX_LOOSE_CELLS && blanks > 0) return false;
  if (blanks > 0 && formulaCells.length < 2 * typedRows.size) return false;
  if (!uniform(field, formula, formulaCells, resolve, set)) return true;
  const typed = newField(field.sheet, {
    name: fieldName(`${field.title} typed`, `${field.address}_typed`, taken),
    title: `${field.title} (typed)`,
    address: field.address,
    kind: 'input',
    col: field.col,
    row: table.firstRow,
    // blank at the formula's rows: no single JSON type
    type: 'any',
  });
  typed.table = table;
  typed.typedRows = typedRows;
  field.typed = typed;
  field.deps.add(typed);
  set.fields.push(typed);
  const stored = storedError(field, formulaCells);
  if (stored) set.storedErrors.set(field, stored);
  else field.type = typeOf([...formulaCells.map((c) => c.value), ...typedValues]);
  // a blank typed row is blank as the column's formula results read it: "" in a text column
  typed.blank = BLANK[typeOf(formulaCells.map((c) => c.value))];
  return true;
}

/**
 * Whether a short column is a schedule's: its constants only its opening rows, typed above a
 * formula filled down to the table's last row that reads its own column a row or more above (the
 * first month `1` above `=IF(H11>1,C11+1,"")`, an opening balance above a running balance, in a
 * schedule of a few dozen rows). Such a column is kept whole as a typed column, the opening rows
 * the first steps of its recurrence, as they would be kept apart if they held formulas
 * (MAX_OPENING_ROWS). Any other short column mixing constants and formulas (parameters typed above
 * formulas reading them `$`-locked, a second header row) is taken apart cell by cell (loose.ts).
 */
function typedOpening(
  field: Field,
  cells: (SheetCell | undefined)[],
  formulaCells: SheetCell[],
  resolve: Resolve,
): boolean {
  const opening = cells.findIndex((c) => c?.formula);
  const count = formulaCells.length;
  if (opening < 1 || opening > MAX_OPENING_ROWS || count !== cells.length - opening) return false;
  if (count < Math.max(3, 2 * opening)) return false;
  let key: string | undefined;
  for (const c of formulaCells) {
    let f: Formula;
    try {
      f = resolve(c);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      return false;
    }
    const k = rowRelativeKey(f, c.row);
    if (key !== undefined && k !== key) return false;
    key = k;
  }
  const first = formulaCells[0]!;
  return readsOwnColumnAbove(resolve(first), field.sheet.name, first.row, first.col);
}

/** Whether a formula at `row` of column `col` reads a cell of its column above it, unlocked. */
function readsOwnColumnAbove(f: Formula, sheet: string, row: number, col: number): boolean {
  const above = (g: Formula): boolean => readsOwnColumnAbove(g, sheet, row, col);
  switch (f.kind) {
    case 'ref':
      return (
        (f.sheet === undefined || f.sheet === sheet) &&
        f.ref.col === col &&
        !f.ref.rowAbs &&
        f.ref.row > 0 &&
        f.ref.row < row
      );
    case 'call':
      return f.args.some(above);
    case 'binary':
      return above(f.left) || above(f.right);
    case 'unary':
    case 'percent':
      return above(f.operand);
    default:
      return false;
  }
}

/**
 * A column's compiled formula with its typed rows (typedColumn) in front: the typed value at those
 * rows, the formula at the others. `rowVar` is the current row (`$parent`, or a fold's row).
 */
export function withTypedRows(field: Field, code: string, rowVar = '$parent'): string {
  const typed = field.typed;
  if (!typed?.typedRows) return code;
  const first = field.table!.firstRow;
  const at = [...typed.typedRows].map((r) => r - first).join(', ');
  return `($index in [${at}] ? ${rowVar}.${typed.name} : (${code}))`;
}

/** An error or a missing result stored for a formula cell: the field cannot be checked. */
function storedError(field: Field, cells: SheetCell[]): RejectedColumn | undefined {
  const base = {
    sheet: field.sheet.name,
    column: field.title,
    address: field.address,
    reason: 'ERROR_VALUE' as const,
  };
  const errorCell = cells.find((c) => isError(c.value));
  if (errorCell) {
    const error = (errorCell.value as { error: string }).error;
    const cell = cellName(errorCell.row, field.col);
    return { ...base, message: `${cell} evaluates to ${error} in the workbook`, cell, expected: error };
  }
  const missing = cells.find((c) => c.value === null);
  if (!missing) return undefined;
  const cell = cellName(missing.row, field.col);
  return {
    ...base,
    message: `${cell} has no stored result; recalculate and save the workbook in a spreadsheet program first`,
    cell,
  };
}

/** Formula cells of a sheet outside its tables: each a top-level field, named after its label. */
export function summaryFields(
  sheet: Worksheet,
  inTable: (row: number, col: number) => boolean,
  /** A title the layout gives a cell (a table's totals row: `Amount total`), before its label. */
  titleOf: (row: number, col: number) => string | undefined,
  literals: Map<SheetCell, FormulaInfo>,
  taken: Set<string>,
  set: FieldSet,
  resolve: Resolve,
): Field[] {
  const out: Field[] = [];
  const many = sheet.sheetNames.length > 1 ? `${sheet.name} ` : '';
  const spilled = dynamicAnchors(sheet, inTable, resolve);
  for (const cell of sheet.cells.values()) {
    if (inTable(cell.row, cell.col)) continue;
    // a cell of a compiled spill is made with its anchor (spill.ts)
    if (cell.formula?.spillOf !== undefined && spilled.has(cell.formula.spillOf)) continue;
    // a literal formula outside the tables (`=125`) is still a formula cell of its own
    const literal = literals.get(cell);
    if (literal) cell.formula = literal;
    if (!cell.formula) continue;
    const address = cellName(cell.row, cell.col);
    const title = titleOf(cell.row, cell.col) ?? label(sheet, cell.row, cell.col) ?? `${many}${address}`;
    const dynamic = spilled.get(address);
    if (dynamic) {
      const { array, elements } = spillFields(sheet, cell, title, taken);
      set.fields.push(array, ...elements);
      out.push(array, ...elements);
      array.formulaText = printFormula(dynamic);
      set.formulas.set(array, dynamic);
      for (const e of elements) {
        e.formulaText = array.formulaText;
        const stored = storedError(e, [
          sheet.cells.get(cellKey(e.row, e.col)) ?? { row: e.row, col: e.col, value: null },
        ]);
        // a cell past the end of the array is blank: no stored result is no error there
        if (stored && stored.reason === 'ERROR_VALUE' && stored.expected !== undefined)
          set.storedErrors.set(e, stored);
      }
      continue;
    }
    const field = newField(sheet, {
      name: fieldName(title, address, taken),
      title,
      address,
      kind: 'summary',
      col: cell.col,
      row: cell.row,
      type: 'any',
    });
    field.formulaCells = 1;
    set.fields.push(field);
    out.push(field);
    const parsed = parseFirst(set, field, cell, resolve);
    if (!parsed) continue;
    if (rangeArray(cell.formula, () => parsed)) {
      reject(field, 'ARRAY_FORMULA', `${address} is ${arrayKind(cell.formula)}`);
      continue;
    }
    const stored = storedError(field, [cell]);
    if (stored) set.storedErrors.set(field, stored);
    else field.type = typeOf([cell.value]);
  }
  return out;
}

/** The anchors (by address) of the sheet's spills compiled as arrays (spill.ts), with their formulas. */
function dynamicAnchors(
  sheet: Worksheet,
  inTable: (row: number, col: number) => boolean,
  resolve: Resolve,
): Map<string, Formula> {
  const out = new Map<string, Formula>();
  for (const cell of sheet.cells.values()) {
    if (cell.formula?.spill === undefined || inTable(cell.row, cell.col)) continue;
    let f: Formula;
    try {
      f = resolve(cell);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      continue;
    }
    if (isDynamicSpill(cell, f)) out.set(cellName(cell.row, cell.col), f);
  }
  return out;
}

/**
 * A legacy array (Ctrl+Shift+Enter) formula that reads no range, array constant or table column
 * (`{=IF(D2=3000,"Deposit",E2)}`) computes what the same formula does outside an array, and so
 * does one of a single cell whose ranges all stand where a function takes a range
 * (`{=INDEX(H14:H16,$E$9)}`, arrays.ts): both are compiled as plain formulas; any other array
 * formula is rejected (the stored values check both kinds).
 */
/**
 * What kind of array formula a cell holds, for its rejection: Excel 365 marks a dynamic array
 * (`cm=`; `=+C3:C5` there spills the three cells, it is no Ctrl+Shift+Enter formula), of which
 * only SORT, UNIQUE, FILTER, SORTBY and SEQUENCE spills are compiled (spill.ts).
 */
function arrayKind(formula: FormulaInfo): string {
  if (!formula.dynamic) return 'a legacy array (Ctrl+Shift+Enter) formula, which is not compiled';
  const over = formula.spill ? ` over ${formula.spill}` : '';
  return `a dynamic array formula (Excel 365) whose result spills${over}, which is not compiled (of spills, only SORT, UNIQUE, FILTER, SORTBY and SEQUENCE ones are)`;
}

function rangeArray(formula: FormulaInfo, parsed: () => Formula): boolean {
  if (!formula.array) return false;
  // an element of an element-wise array (elementwise.ts): the resolver gives its plain formula
  // (and marks the cell when it resolves it)
  try {
    const f = parsed();
    if (formula.elementwise) return !scalarArrayFormula(f);
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
  }
  const bare = (formula.text ?? ':').replace(/"(?:[^"]|"")*"/g, '""');
  if (!/[:[{]/.test(bare)) return false;
  if (formula.spill !== undefined || bare.includes('{')) return true;
  try {
    return !scalarArrayFormula(parsed());
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    return true;
  }
}
