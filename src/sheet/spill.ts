/**
 * Excel 365 dynamic arrays: a formula whose result is an array spills it into the cells below (or
 * right of) its own; the file stores the anchor with its result range (`<f t="array" ref="K3:K10">`)
 * and the other cells as plain values (xlsx.ts marks them `spillOf`). A spill of one column or row
 * whose formula is SORT, UNIQUE, FILTER, SORTBY or SEQUENCE compiles to one array derivation (the
 * anchor's whole result) and one field per cell of the range (`sorted_1`, `sorted_2`, …: the
 * array's item there, blank past its end), so a formula reading a cell of the spill, a range over
 * it or the spill itself (`K3#`, `_xlfn.ANCHORARRAY(K3)`) reads the array.
 */
import { Rejection } from './errors.js';
import { fieldName, isError, type Field, type ValueType } from './fields.js';
import type { JsonValue } from '../calc/index.js';
import { printFormula, type Formula } from './formula.js';

/** A compiled expression (references.ts's Compiled, written out: that module reads this one's callers). */
interface Compiled {
  code: string;
  type: ValueType;
  array?: boolean;
}
import { cellKey, cellName, columnNumber, type SheetCell, type Worksheet } from './xlsx.js';

/** The functions whose result spills, compiled to arrays. */
export const DYNAMIC_FUNCTIONS = new Set(['SORT', 'UNIQUE', 'FILTER', 'SORTBY', 'SEQUENCE']);

/** The block `A2:A9` names, or undefined. */
export function spillArea(
  range: string | undefined,
): { top: number; bottom: number; left: number; right: number } | undefined {
  const m = range ? /^([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)$/i.exec(range) : null;
  if (!m) return undefined;
  return { top: Number(m[2]), bottom: Number(m[4]), left: columnNumber(m[1]!), right: columnNumber(m[3]!) };
}

/** Whether an array formula's result range (`K3:K10`) spans more than its own cell (`K2:K2` does not). */
export function spillsOver(range: string | undefined): boolean {
  const a = spillArea(range);
  return !!a && (a.top !== a.bottom || a.left !== a.right);
}

/**
 * Whether an anchor's formula is a dynamic array compiled here: one of DYNAMIC_FUNCTIONS outermost,
 * over a result range of one column or one row.
 */
export function isDynamicSpill(cell: SheetCell, formula: Formula): boolean {
  const area = spillArea(cell.formula?.spill);
  if (!area || (area.top !== area.bottom && area.left !== area.right)) return false;
  return formula.kind === 'call' && DYNAMIC_FUNCTIONS.has(formula.name);
}

/**
 * The array derivation of a spill anchor and a field per cell of its range (the anchor's first).
 * The array field stands for no cell of its own; each element field for its cell.
 */
export function spillFields(
  sheet: Worksheet,
  anchor: SheetCell,
  title: string,
  taken: Set<string>,
): { array: Field; elements: Field[] } {
  const area = spillArea(anchor.formula!.spill)!;
  const address = cellName(anchor.row, anchor.col);
  const array: Field = {
    name: fieldName(title, address, taken),
    title,
    address,
    kind: 'summary',
    sheet,
    col: anchor.col,
    row: anchor.row,
    type: 'any',
    tables: new Set(),
    deps: new Set(),
    formulaCells: 0,
  };
  const elements: Field[] = [];
  for (let r = area.top; r <= area.bottom; r++) {
    for (let c = area.left; c <= area.right; c++) {
      const index = elements.length;
      const element: Field = {
        name: fieldName(`${array.name} ${index + 1}`, `${address}_${index + 1}`, taken),
        title: `${title} (${index + 1})`,
        address: cellName(r, c),
        kind: 'summary',
        sheet,
        col: c,
        row: r,
        // blank past the end of a shorter result after an edit (FILTER, UNIQUE; SORT of a range
        // with blanks): never a plain number, so a SUM over the spill skips it as Excel does
        type: 'any',
        tables: new Set(),
        deps: new Set([array]),
        formulaCells: 1,
        spillElement: { of: array, index },
      };
      elements.push(element);
    }
  }
  array.spillArray = { ...area, elements };
  return { array, elements };
}

/** A spill's stored cells in order: the array its anchor computed (an error cell as no value). */
export function spilledValues(f: Field): JsonValue[] {
  return f.spillArray!.elements.map((e) => {
    const v = f.sheet.cells.get(cellKey(e.row, e.col))?.value ?? null;
    return isError(v) ? null : v;
  });
}

/** What the dynamic functions need of the compiler (functions.ts). */
export interface DynamicContext {
  compile(f: Formula): Compiled;
  /** A one-column or one-row range (or table column) as a list expression. */
  listOf(f: Formula): string;
  /** The array of the spill anchored at a cell (ANCHORARRAY), or undefined when it is none. */
  spillOf(f: Formula): Compiled | undefined;
  num(c: Compiled): string;
  helper(name: 'xl_unique' | 'xl_cmp' | 'xl_arr' | 'xl_eq'): string;
  fresh(): string;
  args(name: string, args: Formula[], min: number, max: number): void;
}

const array = (code: string): Compiled => ({ code, type: 'any', array: true });

/** A constant number argument (`SORT(x, 1, -1)`), or the fallback when it is left out. */
function constant(args: Formula[], i: number, fallback: number, what: string): number {
  const a = args[i];
  if (a === undefined || a.kind === 'missing') return fallback;
  const n =
    a.kind === 'number'
      ? a.value
      : a.kind === 'boolean'
        ? Number(a.value)
        : a.kind === 'unary' && a.op === '-' && a.operand.kind === 'number'
          ? -a.operand.value
          : undefined;
  if (n === undefined)
    throw new Rejection('UNSUPPORTED_FUNCTION', `${what} is compiled only when it is a constant`);
  return n;
}

/** SORT, UNIQUE, FILTER, SORTBY, SEQUENCE and ANCHORARRAY as arrays; undefined for other names. */
export function compileDynamic(name: string, args: Formula[], ctx: DynamicContext): Compiled | undefined {
  /** An array argument: a dynamic function, a spill (`K3#`), or a range of one column or row. */
  const source = (f: Formula): string => {
    const spilled = ctx.spillOf(f);
    if (spilled) return spilled.code;
    if (f.kind === 'call' && DYNAMIC_FUNCTIONS.has(f.name)) return ctx.compile(f).code;
    return ctx.listOf(f);
  };
  switch (name) {
    case 'ANCHORARRAY': {
      ctx.args(name, args, 1, 1);
      const spilled = ctx.spillOf({ kind: 'call', name, args });
      if (!spilled)
        throw new Rejection(
          'UNSUPPORTED_REFERENCE',
          `${printFormula(args[0]!)}# reads a spill, but the cell is not the anchor of a compiled one`,
        );
      return spilled;
    }
    case 'UNIQUE': {
      ctx.args(name, args, 1, 3);
      if (constant(args, 1, 0, 'UNIQUE by column') !== 0 || constant(args, 2, 0, 'UNIQUE exactly once') !== 0)
        throw new Rejection('UNSUPPORTED_FUNCTION', 'UNIQUE is compiled over rows, keeping each value once');
      return array(`${ctx.helper('xl_unique')}(${source(args[0]!)})`);
    }
    case 'SORT': {
      ctx.args(name, args, 1, 4);
      if (constant(args, 1, 1, 'the SORT index') !== 1 || constant(args, 3, 0, 'SORT by column') !== 0)
        throw new Rejection('UNSUPPORTED_FUNCTION', 'SORT is compiled over one column (index 1), by rows');
      const order = constant(args, 2, 1, 'the SORT order') < 0 ? -1 : 1;
      // $sort written here, not in a library function: the calc engine's $sort refuses to run
      // inside one (an internal error), while a library function it calls is fine
      return array(
        `$sort(${ctx.helper('xl_arr')}(${source(args[0]!)}), function($x, $y) { ${order} * ${ctx.helper('xl_cmp')}($x, $y) > 0 })`,
      );
    }
    case 'SORTBY': {
      if (args.length !== 2 && args.length !== 3)
        throw new Rejection('UNSUPPORTED_FUNCTION', 'SORTBY is compiled with one array to sort by');
      const order = constant(args, 2, 1, 'the SORTBY order') < 0 ? -1 : 1;
      const [keys, pairs] = [ctx.fresh(), ctx.fresh()];
      const arr = ctx.helper('xl_arr');
      return array(
        `(${keys} := ${arr}(${source(args[1]!)}); ${pairs} := $map(${arr}(${source(args[0]!)}), function($v, $i) { {"v": [$v], "k": [${keys}[$i]]} }); ` +
          `$map($sort(${pairs}, function($x, $y) { ${order} * ${ctx.helper('xl_cmp')}($x.k[0], $y.k[0]) > 0 }), function($p) { $p.v[0] }))`,
      );
    }
    case 'SEQUENCE': {
      ctx.args(name, args, 1, 4);
      const rows = args[0]!;
      const cols = args[1];
      const colsOne =
        cols === undefined || cols.kind === 'missing' || (cols.kind === 'number' && cols.value === 1);
      const rowsOne = rows.kind === 'number' && rows.value === 1;
      if (!colsOne && !rowsOne)
        throw new Rejection('UNSUPPORTED_FUNCTION', 'SEQUENCE is compiled for one column or one row');
      const count = ctx.num(ctx.compile(colsOne ? rows : cols));
      const start = args[2] && args[2].kind !== 'missing' ? ctx.num(ctx.compile(args[2])) : '1';
      const step = args[3] && args[3].kind !== 'missing' ? ctx.num(ctx.compile(args[3])) : '1';
      const [n, s, d] = [ctx.fresh(), ctx.fresh(), ctx.fresh()];
      return array(
        `(${n} := $floor(${count}); ${s} := ${start}; ${d} := ${step}; ${n} < 1 ? $nothing : $map([0..(${n} - 1)], function($k) { ${s} + $k * ${d} }))`,
      );
    }
    case 'FILTER':
      return filterOf(args, source, ctx);
    default:
      return undefined;
  }
}

/** FILTER of one column or row, its condition row by row (`elementwise`). */
function filterOf(args: Formula[], source: (f: Formula) => string, ctx: DynamicContext): Compiled {
  ctx.args('FILTER', args, 2, 3);
  const bind: string[] = [];
  const at = (f: Formula): string => {
    const v = ctx.fresh();
    bind.push(`${v} := ${ctx.helper('xl_arr')}(${source(f)})`);
    return `${v}[$i]`;
  };
  const condition = elementwise(args[1]!, at, ctx);
  const [all, kept] = [ctx.fresh(), ctx.fresh()];
  const empty = args[2] && args[2].kind !== 'missing' ? ctx.compile(args[2]).code : '$nothing';
  return array(
    `(${[...bind, `${all} := ${ctx.helper('xl_arr')}(${source(args[0]!)})`].join('; ')}; ${kept} := $filter(${all}, function($v, $i) { ${condition} }); $count(${kept}) = 0 ? ${empty} : ${kept})`,
  );
}

const ARITHMETIC = new Set(['+', '-', '*', '/']);
const ORDER = new Set(['<', '>', '<=', '>=']);

/**
 * FILTER's condition row by row (`$i` the row): a range is its item at `$i`, anything else its
 * one value; comparisons and arithmetic as Excel applies them to each row (`(B2:B9="North")*(C2:C9>5)`,
 * TRUE counting 1). Other functions over the rows are not compiled.
 */
function elementwise(f: Formula, at: (f: Formula) => string, ctx: DynamicContext): string {
  const rowsOf = (g: Formula): boolean =>
    g.kind === 'range' ||
    g.kind === 'structured' ||
    (g.kind === 'call' && (DYNAMIC_FUNCTIONS.has(g.name) || g.name === 'ANCHORARRAY'));
  const item = (g: Formula): string => {
    if (rowsOf(g)) return at(g);
    if (g.kind === 'binary') {
      const [l, r] = [item(g.left), item(g.right)];
      if (g.op === '=' || g.op === '<>') {
        const eq = `${ctx.helper('xl_eq')}(${l}, ${r})`;
        return g.op === '=' ? eq : `$not(${eq})`;
      }
      if (ORDER.has(g.op)) return `(${l} ${g.op} ${r})`;
      if (ARITHMETIC.has(g.op)) return `($number(${l}) ${g.op} $number(${r}))`;
    }
    if (g.kind === 'unary' && g.op === '-') return `-$number(${item(g.operand)})`;
    if (g.kind === 'call' || g.kind === 'binary' || g.kind === 'unary' || g.kind === 'percent') {
      if (containsRows(g, rowsOf))
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          `FILTER's condition ${printFormula(f)} is compiled with comparisons and arithmetic over the rows only`,
        );
    }
    return ctx.compile(g).code;
  };
  return `$boolean(${item(f)})`;
}

function containsRows(f: Formula, rowsOf: (g: Formula) => boolean): boolean {
  if (rowsOf(f)) return true;
  switch (f.kind) {
    case 'call':
      return f.args.some((a) => containsRows(a, rowsOf));
    case 'binary':
      return containsRows(f.left, rowsOf) || containsRows(f.right, rowsOf);
    case 'unary':
    case 'percent':
      return containsRows(f.operand, rowsOf);
    default:
      return false;
  }
}
