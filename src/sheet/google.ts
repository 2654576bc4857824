/**
 * Workbooks exported by Google Sheets. A function Excel lacks (or lacked when the exporter was
 * written: FILTER, UNIQUE, SORT, QUERY, …) is stored as
 * `IFERROR(__xludf.DUMMYFUNCTION("filter(A2:A9,B2:B9>=1)"),<cached>)`: the string holds Google's
 * own formula and the fallback its last result, so that Excel shows a value. An array result's
 * other cells hold `IFERROR(__xludf.DUMMYFUNCTION("""COMPUTED_VALUE"""),<cached>)`.
 *
 * Google's formula is the cell's meaning, the IFERROR only a display device. When every function in
 * it means in Excel what it means in Google Sheets (or is rewritten to: Google's FILTER takes
 * several conditions, its SORT an is_ascending flag), the cell becomes that formula written for
 * Excel and its COMPUTED_VALUE block becomes the cells of its spill (spill.ts compiles it), so an
 * edit of the inputs moves the result. Otherwise the cell keeps the wrapper, and the compiler
 * rejects it as GOOGLE_SHEETS_FUNCTION naming the function (never its cached value frozen as a
 * constant: an edit upstream would leave it wrong).
 */
import { Rejection } from './errors.js';
import { parseFormula, printFormula, type Formula } from './formula.js';
import { DYNAMIC_FUNCTIONS } from './spill.js';
import { cellKey, cellName, type SheetCell } from './xlsx.js';

/** The wrapper's function name, as the parser reads it. */
export const DUMMY_FUNCTION = '__XLUDF.DUMMYFUNCTION';
/** The string a cell of an array result holds in place of a formula. */
const COMPUTED_VALUE = '"COMPUTED_VALUE"';

/**
 * Functions whose arguments and result are the same in Google Sheets and Excel (Google's function
 * list, compared one by one with Excel's); the rest of Google's formula text is Excel's syntax.
 */
const SAME_IN_EXCEL = new Set([
  'ABS',
  'AND',
  'AVERAGE',
  'AVERAGEIF',
  'AVERAGEIFS',
  'CONCATENATE',
  'COUNT',
  'COUNTA',
  'COUNTIF',
  'COUNTIFS',
  'DATE',
  'DAY',
  'HLOOKUP',
  'IF',
  'IFERROR',
  'IFNA',
  'INDEX',
  'INT',
  'ISBLANK',
  'ISERROR',
  'ISNUMBER',
  'ISTEXT',
  'LEFT',
  'LEN',
  'LOWER',
  'MATCH',
  'MAX',
  'MID',
  'MIN',
  'MOD',
  'MONTH',
  'NOT',
  'OR',
  'RIGHT',
  'ROUND',
  'ROUNDDOWN',
  'ROUNDUP',
  'SUM',
  'SUMIF',
  'SUMIFS',
  'TRIM',
  'UPPER',
  'VLOOKUP',
  'XLOOKUP',
  'YEAR',
  // the dynamic ones taken as they are: the same arguments in both
  'UNIQUE',
  'SEQUENCE',
]);

/** The Google formula a wrapped cell holds (`filter(…)`, or `"COMPUTED_VALUE"`), else undefined. */
export function googleFormulaOf(text: string | undefined): string | undefined {
  if (text === undefined || !/__xludf\.DUMMYFUNCTION/i.test(text)) return undefined;
  let f: Formula;
  try {
    f = parseFormula(text);
  } catch {
    return undefined;
  }
  if (f.kind === 'call' && f.name === 'IFERROR' && f.args.length === 2) f = f.args[0]!;
  if (f.kind !== 'call' || f.name !== DUMMY_FUNCTION || f.args.length !== 1) return undefined;
  const inner = f.args[0]!;
  return inner.kind === 'string' ? inner.value : undefined;
}

/** The first function of a Google formula's text (`QUERY`), for messages. */
function leadingFunction(google: string): string {
  return /^\s*=?\s*([A-Za-z_][\w.]*)\s*\(/.exec(google)?.[1]?.toUpperCase() ?? google.slice(0, 40);
}

/** Why a wrapped cell stays rejected: the rejection the compiler raises at DUMMYFUNCTION. */
export function googleRejection(args: Formula[]): Rejection {
  const inner = args[0]?.kind === 'string' ? args[0].value : '';
  if (inner === COMPUTED_VALUE)
    return new Rejection(
      'GOOGLE_SHEETS_FUNCTION',
      'a cell of the array result of a Google Sheets function that is not translated (its anchor is rejected)',
    );
  return new Rejection(
    'GOOGLE_SHEETS_FUNCTION',
    `Google Sheets' ${leadingFunction(inner)} (${inner.slice(0, 120)}) has no Excel meaning compiled here`,
  );
}

/** Google's formula rewritten with Excel's meaning, or undefined when it has none here. */
export function excelFormulaOf(google: string): Formula | undefined {
  let f: Formula;
  try {
    f = parseFormula(google.replace(/^\s*=/, ''));
  } catch {
    return undefined;
  }
  return rewrite(f);
}

function rewrite(f: Formula): Formula | undefined {
  switch (f.kind) {
    case 'call': {
      const args: Formula[] = [];
      for (const a of f.args) {
        const r = rewrite(a);
        if (!r) return undefined;
        args.push(r);
      }
      if (f.name === 'FILTER') return googleFilter(args);
      if (f.name === 'SORT') return googleSort(args);
      return SAME_IN_EXCEL.has(f.name) ? { ...f, args } : undefined;
    }
    case 'binary': {
      const [left, right] = [rewrite(f.left), rewrite(f.right)];
      return left && right ? { ...f, left, right } : undefined;
    }
    case 'unary':
    case 'percent': {
      const operand = rewrite(f.operand);
      return operand ? { ...f, operand } : undefined;
    }
    case 'name':
    case 'structured':
      // a named range or table of Google's: left to Excel's reading, which may differ
      return undefined;
    default:
      return f;
  }
}

/** Google's FILTER(range, condition1, condition2, …): Excel's with the conditions multiplied. */
function googleFilter(args: Formula[]): Formula | undefined {
  if (args.length < 2) return undefined;
  const [range, ...conditions] = args as [Formula, ...Formula[]];
  const condition = conditions.reduce((l, r) => ({ kind: 'binary', op: '*', left: l, right: r }));
  return { kind: 'call', name: 'FILTER', args: [range, condition] };
}

/**
 * Google's SORT(range, sort_column, is_ascending): Excel's SORT(range, index, 1 or -1). Several
 * sort columns, or a column or direction that is not a constant, are not rewritten.
 */
function googleSort(args: Formula[]): Formula | undefined {
  if (args.length === 0 || args.length > 3) return undefined;
  const [range, column, ascending] = args;
  if (column && !(column.kind === 'number' && column.value === 1)) return undefined;
  if (!ascending) return { kind: 'call', name: 'SORT', args: [range!] };
  const up =
    ascending.kind === 'boolean'
      ? ascending.value
      : ascending.kind === 'number'
        ? ascending.value !== 0
        : undefined;
  if (up === undefined) return undefined;
  return {
    kind: 'call',
    name: 'SORT',
    args: [
      range!,
      { kind: 'number', value: 1 },
      up ? { kind: 'number', value: 1 } : { kind: 'number', value: -1 },
    ],
  };
}

/**
 * Rewrites a sheet's Google Sheets cells in place: each wrapped formula Excel can mean becomes that
 * formula, and the COMPUTED_VALUE block right of and below it its spill range (its cells lose the
 * wrapper, so that the spill marking that follows makes them the anchor's result). Cells that are
 * not rewritten keep the wrapper (rejected when compiled).
 */
export function rewriteGoogleSheetsCells(cells: Map<string, SheetCell>): void {
  const google = new Map<string, string>();
  for (const [key, cell] of cells) {
    const inner = googleFormulaOf(cell.formula?.text);
    if (inner !== undefined) google.set(key, inner);
  }
  if (google.size === 0) return;
  const computed = (r: number, c: number): boolean => google.get(cellKey(r, c)) === COMPUTED_VALUE;
  for (const [key, inner] of google) {
    if (inner === COMPUTED_VALUE) continue;
    const anchor = cells.get(key)!;
    const excel = excelFormulaOf(inner);
    if (!excel) continue;
    let [bottom, right] = [anchor.row, anchor.col];
    while (computed(bottom + 1, anchor.col)) bottom++;
    while (computed(anchor.row, right + 1)) right++;
    let block = true;
    for (let r = anchor.row; r <= bottom; r++)
      for (let c = anchor.col; c <= right; c++)
        if ((r !== anchor.row || c !== anchor.col) && !computed(r, c)) block = false;
    const spills = bottom > anchor.row || right > anchor.col;
    const dynamic = excel.kind === 'call' && DYNAMIC_FUNCTIONS.has(excel.name);
    // an array result needs a dynamic function outermost to be compiled as a spill
    if (spills && (!block || !dynamic)) continue;
    anchor.formula = { array: spills, text: printFormula(excel) };
    if (spills) {
      anchor.formula.spill = `${cellName(anchor.row, anchor.col)}:${cellName(bottom, right)}`;
      anchor.formula.dynamic = true;
      for (let r = anchor.row; r <= bottom; r++)
        for (let c = anchor.col; c <= right; c++)
          if (r !== anchor.row || c !== anchor.col) delete cells.get(cellKey(r, c))!.formula;
    }
  }
}
