/**
 * Conditional aggregates: COUNTIF(S), SUMIF(S), AVERAGEIF(S), MAXIFS, MINIFS. Criteria are parsed
 * when the model runs (criteria-library.ts), so `">"&A2` or a criterion typed into a cell means
 * what it means in the spreadsheet, after any edit. Ranges may be whole table columns, part of a
 * column (fixed, or moving with the row), or blocks of cells elsewhere (another sheet, side cells);
 * ranges of one table's rows are read in one pass over the rows, others are zipped by position.
 *
 * A column formula that aggregates a whole table column would scan every row from every row (a
 * thousand rows: a million criterion tests per recalculation). Instead:
 * - an aggregate that reads nothing of its own row is one top-level derivation, computed once;
 * - one whose row-dependent criteria are equalities (`SUMIFS(C:C, A:A, A2)`) reads a grouped
 *   total: a top-level derivation maps each key to the sum, count, max and min of its rows, built
 *   once per recalculation; a row whose criterion turns out not to be a plain equality at run time
 *   (a cell holding ">5") falls back to the scan, so the answer is never the grouped guess.
 */
import { Rejection } from './errors.js';
import type { Field, TableModel } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { built } from './lookup-lists.js';
import { LookupCompiler } from './lookups.js';
import {
  groupEntries,
  operatorOf,
  POSITION_DIGITS,
  printAgg,
  reduce,
  RUNS,
  totals,
  type Aggregate,
} from './criteria-code.js';
import { columnPart } from './offsets.js';
import type { Compiled } from './references.js';

type RangeFormula = Formula & { kind: 'range' };

/** Blocks of cells outside whole table columns are read cell by cell up to this size. */
const MAX_CELLS = 500;

/** Rows of one table: the whole column, or the positions `first`..`last` (JSONata, may move with `$index`). */
interface RowsArea {
  kind: 'rows';
  table: TableModel;
  field: Field;
  span?: { first: string; last: string };
}
/** Values by position, as a JSONata array expression (cells of a block, or a table span elsewhere). */
interface ListArea {
  kind: 'list';
  code: string;
}
type Area = RowsArea | ListArea;

const FUNCTIONS = new Map<string, { agg: Aggregate; multi: boolean }>([
  ['COUNTIF', { agg: 'COUNT', multi: false }],
  ['SUMIF', { agg: 'SUM', multi: false }],
  ['AVERAGEIF', { agg: 'AVERAGE', multi: false }],
  ['COUNTIFS', { agg: 'COUNT', multi: true }],
  ['SUMIFS', { agg: 'SUM', multi: true }],
  ['AVERAGEIFS', { agg: 'AVERAGE', multi: true }],
  ['MAXIFS', { agg: 'MAX', multi: true }],
  ['MINIFS', { agg: 'MIN', multi: true }],
]);

/** The names this module compiles, for messages and docs. */
export const CONDITIONAL_FUNCTIONS = [...FUNCTIONS.keys()];

/** A value read from a row or tuple, `null` where absent so positions stay aligned. */
const present = (code: string): string => `($exists(${code}) ? ${code} : null)`;

export abstract class ConditionalCompiler extends LookupCompiler {
  protected conditional(name: string, args: Formula[]): Compiled | undefined {
    const fn = FUNCTIONS.get(name);
    if (!fn) return undefined;
    const { agg, multi } = fn;
    let pairs: [Formula, Formula][];
    let target: Formula | undefined;
    if (!multi) {
      this.args(name, args, 2, agg === 'COUNT' ? 2 : 3);
      pairs = [[args[0]!, args[1]!]];
      target = agg === 'COUNT' ? undefined : (args[2] ?? args[0]);
    } else {
      const rest = agg === 'COUNT' ? args : args.slice(1);
      if (rest.length < 2 || rest.length % 2 !== 0)
        throw new Rejection('UNSUPPORTED_SYNTAX', `${name} takes ranges and criteria in pairs`);
      target = agg === 'COUNT' ? undefined : args[0];
      pairs = [];
      for (let i = 0; i < rest.length; i += 2) pairs.push([rest[i]!, rest[i + 1]!]);
    }
    const first = this.resolveArg(pairs[0]![0]);
    const ranges = pairs.map(([r]) => this.shaped(name, this.resolveArg(r), first, false));
    const sum = target && this.shaped(name, this.resolveArg(target), first, !multi);
    const areas = ranges.map((r) => this.area(r, name));
    const sumArea = sum && this.area(sum, name);
    const crits = pairs.map(([, c]) => this.compile(c).code);
    return num(
      this.aggregate(
        agg,
        areas,
        crits,
        sumArea,
        pairs.map(([, c]) => operatorOf(c)),
      ),
    );
  }

  /**
   * The range an argument covers, checked against the first criteria range's shape: the sum range
   * of SUMIF/AVERAGEIF takes that shape from its top-left cell, as Excel does; the *IFS functions
   * need equal shapes (Excel gives #VALUE! otherwise, which is rejected here).
   */
  private shaped(name: string, g: Formula, first: Formula, resize: boolean): Formula {
    const f: Formula = g.kind === 'ref' ? { kind: 'range', sheet: g.sheet, from: g.ref, to: g.ref } : g;
    if (f.kind !== 'range') {
      throw new Rejection('UNSUPPORTED_REFERENCE', `${name} reads ranges; ${printFormula(f)} is not one`);
    }
    const shape = (h: Formula): [number, number] | undefined => {
      if (h.kind === 'ref') return [0, 0];
      if (h.kind !== 'range' || h.from.row === 0) return undefined;
      return [h.to.row - h.from.row, h.to.col - h.from.col];
    };
    const want = shape(first);
    const have = shape(f);
    if ((want === undefined) !== (have === undefined) && g !== first) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `${name} mixes a whole-sheet column with a bounded range (${printFormula(f)}), which do not line up row by row`,
      );
    }
    if (!want || !have || (want[0] === have[0] && want[1] === have[1])) return f;
    if (!resize) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `${name} reads ranges of different sizes (${printFormula(first)}, ${printFormula(f)}), which is #VALUE! in a spreadsheet`,
      );
    }
    const to: CellRef = { ...f.to, row: f.from.row + want[0], col: f.from.col + want[1] };
    return { ...f, to };
  }

  /** Where a range's values come from: rows of a table, or a positional list. */
  private area(f: Formula, name: string): Area {
    const r = f as RangeFormula;
    const whole = this.wholeColumns(r);
    if (whole?.length === 1) {
      this.depend(whole[0]!.field);
      return { kind: 'rows', table: whole[0]!.table, field: whole[0]!.field };
    }
    const sheet = this.sheetOf(r.sheet, `the range ${printFormula(r)}`);
    const table = r.from.row > 0 ? this.scope.tableAt(sheet, r.from.row, r.from.col) : undefined;
    if (table && r.from.col === r.to.col && r.from.row >= table.firstRow && r.to.row <= table.lastRow) {
      // part of one column: columnPart checks the edges and the formula's own column
      const part = columnPart(this.field, r, table, (n) => this.root(n));
      if (part) {
        this.depend(part.field);
        return { kind: 'rows', table, field: part.field, span: this.span(table, r) };
      }
    }
    return { kind: 'list', code: this.criteriaBlock(r, name) };
  }

  /** The positions a part of a column covers, as JSONata expressions (moving with `$index` in a row formula). */
  private span(table: TableModel, r: RangeFormula): { first: string; last: string } {
    const end = (ref: CellRef): string => {
      if (!this.rowMode || ref.rowAbs) return String(ref.row - table.firstRow);
      const d = ref.row - this.field.row + this.field.table!.firstRow - table.firstRow;
      return d === 0 ? '$index' : `($index ${d > 0 ? '+' : '-'} ${Math.abs(d)})`;
    };
    return { first: end(r.from), last: end(r.to) };
  }

  /** A block of cells read one by one, blanks as null (positions matter here). */
  private criteriaBlock(r: RangeFormula, name: string): string {
    const sheet = this.sheetOf(r.sheet, `the range ${printFormula(r)}`);
    const { from, to } = r;
    const size = (to.row - from.row + 1) * (to.col - from.col + 1);
    if (from.row === 0 || to.row < from.row || to.col < from.col || size > MAX_CELLS) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `${name} reads ${printFormula(r)}, which is neither a whole table column, part of one, nor a block of at most ${MAX_CELLS} cells`,
      );
    }
    if (this.rowMode && !(from.rowAbs && to.rowAbs)) {
      throw new Rejection(
        'UNSUPPORTED_REFERENCE',
        `the range ${printFormula(r)} moves with the row across cells outside one table column; lock it with $`,
      );
    }
    const cells: string[] = [];
    for (let row = from.row; row <= to.row; row++) {
      for (let col = from.col; col <= to.col; col++) {
        const target = this.scope.target(sheet, row, col);
        const cell = sheet.cells.get(`${row}:${col}`);
        if (target.kind === 'data') {
          cells.push(present(this.tableCell(target.table, target.field, row).code));
        } else if (target.kind === 'header' || !cell || (cell.value === null && !cell.formula)) {
          // a header is a constant; a blank cell outside the tables stays blank
          cells.push(JSON.stringify(cell?.value ?? null));
        } else {
          const field = target.kind === 'formula' ? target.field : this.scope.sideInput(sheet, row, col);
          this.depend(field);
          cells.push(present(this.root(field.name)));
        }
      }
    }
    return `[${cells.join(', ')}]`;
  }

  /** The aggregate over the areas' positions that meet every criterion. */
  private aggregate(
    agg: Aggregate,
    areas: Area[],
    crits: string[],
    sum: Area | undefined,
    ops: (string | undefined)[],
  ): string {
    const all = sum ? [...areas, sum] : areas;
    const table = all[0]!.kind === 'rows' ? all[0]!.table : undefined;
    const span = all[0]!.kind === 'rows' ? all[0]!.span : undefined;
    const oneTable =
      table !== undefined &&
      all.every(
        (a) =>
          a.kind === 'rows' &&
          a.table === table &&
          a.span?.first === span?.first &&
          a.span?.last === span?.last,
      );
    const ks = crits.map(() => this.fresh());
    const binds = crits.map((c, i) => `${ks[i]} := ${this.helper('xl_crit')}(${c})`);
    const meets = this.helper('xl_meets');
    let rows: string;
    let value: (a: Area, i: number) => string;
    if (oneTable) {
      const list = this.root(table.name);
      rows = span
        ? `$filter(${list}, function($v, $i) { $i >= ${span.first} and $i <= ${span.last} })`
        : list;
      value = (a) => (a as RowsArea).field.name;
    } else {
      rows = `$zip(${all.map((a) => this.areaList(a)).join(', ')})`;
      value = (_a, i) => `$t[${i}]`;
    }
    const cond = areas.map((a, i) => `${meets}(${value(a, i)}, ${ks[i]})`).join(' and ');
    const v = sum ? value(sum, areas.length) : '';
    const each = (expr: string): string =>
      oneTable ? `${rows}.(${expr})` : `$map(${rows}, function($t) { ${expr} })`;
    const body = reduce(agg, each, cond, v, (h) => this.helper(h));
    const scan = `(${binds.join('; ')}; ${body})`;
    if (!oneTable) return scan;
    if (span)
      return agg === 'COUNT' ? this.runningCount(table, areas as RowsArea[], crits, ops, span, scan) : scan;
    return this.fast(agg, table, areas as RowsArea[], crits, ops, sum as RowsArea | undefined, scan);
  }

  /** An area as a positional list. */
  private areaList(a: Area): string {
    if (a.kind === 'list') return a.code;
    const list = this.root(a.table.name);
    const rows = a.span
      ? `$filter(${list}, function($v, $i) { $i >= ${a.span.first} and $i <= ${a.span.last} })`
      : list;
    return `[${rows}.${present(a.field.name)}]`;
  }

  /** Whether compiled code reads the formula's own row (its fields, its position, a fold's total). */
  private readsOwnRow(code: string): boolean {
    return code.includes(this.rowVar) || code.includes('$index') || code.includes('$acc');
  }

  /**
   * The fast forms of a column formula over whole columns of one table (see the module comment),
   * or the scan itself when neither applies.
   */
  private fast(
    agg: Aggregate,
    table: TableModel,
    areas: RowsArea[],
    crits: string[],
    ops: (string | undefined)[],
    sum: RowsArea | undefined,
    scan: string,
  ): string {
    if (!this.rowMode || this.foldMembers) return scan;
    if (!crits.some((c) => this.readsOwnRow(c))) {
      if (this.readsOwnRow(scan)) return scan;
      return `$$.${this.lib.aggregate(scan, 'number', `${printAgg(agg)} computed once for every row`, this.scope.taken)}`;
    }
    const keyed = crits.map((c) => this.readsOwnRow(c));
    const ordered = keyed.flatMap((k, i) => (k && ops[i] && ops[i] !== '=' ? [i] : []));
    if (ordered.length === 1 && keyed.filter((k) => k).length === 1 && ops[ordered[0]!] !== '<>') {
      return this.ordered(agg, table, areas, crits, ordered[0]!, ops[ordered[0]!]!, sum, scan);
    }
    // a row-dependent `"<>"&x`, or an order with other row-dependent criteria: the scan
    if (ordered.length > 0) return scan;
    // grouped: row-dependent criteria are keys, the others filter the rows once
    const fixed = crits.map((c, i) => (keyed[i] ? undefined : ([this.fresh(), c] as const)));
    const binds = fixed.filter((x) => x).map((x) => `${x![0]} := ${this.helper('xl_crit')}(${x![1]})`);
    const meets = this.helper('xl_meets');
    const filter = fixed
      .map((x, i) => (x ? `${meets}(${areas[i]!.field.name}, ${x[0]})` : undefined))
      .filter((x) => x);
    const ckey = this.helper('xl_ckey');
    const keyCols = areas.filter((_, i) => keyed[i]).map((a) => `${ckey}(${a.field.name})`);
    const v = sum ? present(sum.field.name) : 'null';
    const rows = `$$.${table.name}${filter.length > 0 ? `[${filter.join(' and ')}]` : ''}`;
    // (grouped by groupEntries: each group's list only, a block of rows at a time; JSONata's own
    // grouping evaluates every group at once and trips the depth guard past ~1,000 groups)
    const grouped =
      `(${binds.length > 0 ? `${binds.join('; ')}; ` : ''}$g := ${groupEntries(`[${rows}.{"k": $string([${keyCols.join(', ')}]), "v": ${v}}]`)}; ` +
      `$merge([$each($g, function($l, $key) { {$key: ${totals('$l')}} })]))`;
    const name = this.lib.aggregate(
      grouped,
      'object',
      `${printAgg(agg)} grouped by key, built once for every row`,
      this.scope.taken,
    );
    const rowKs = crits.map((c, i) => (keyed[i] ? ([this.fresh(), c] as const) : undefined)).filter((x) => x);
    const critkey = this.helper('xl_critkey');
    const kb = rowKs.map((x) => `${x![0]} := ${critkey}(${this.helper('xl_crit')}(${x![1]}))`);
    const all = rowKs.map((x) => `$exists(${x![0]})`).join(' and ');
    const g = this.fresh();
    const read: Record<Aggregate, string> = {
      COUNT: `($exists(${g}) ? ${g}.n : 0)`,
      SUM: `($exists(${g}) ? ${g}.s : 0)`,
      AVERAGE: `($exists(${g}) and ${g}.c > 0 ? ${g}.s / ${g}.c : $nothing)`,
      MAX: `($exists(${g}) and ${g}.c > 0 ? ${g}.hi : 0)`,
      MIN: `($exists(${g}) and ${g}.c > 0 ? ${g}.lo : 0)`,
    };
    return (
      `(${kb.join('; ')}; ${all} ? (${g} := $lookup(${built(name)}, $string([${rowKs.map((x) => x![0]).join(', ')}])); ` +
      `${read[agg]}) : ${scan})`
    );
  }

  /**
   * A column formula counting over a span of its table that moves with the row (`COUNTIF($A$2:A2,A2)`,
   * a running count: the scan reads every row above from every row, a million tests at a thousand
   * rows). A top-level derivation sorts the rows that meet the fixed criteria as `key position`
   * texts (the position zero-padded, so that text order is key order, then row order); each row
   * counts the entries of its key inside its span by two binary searches. A criterion that is not a
   * plain equality at run time takes the scan, as in `fast`. Not JSONata's grouping: it evaluates
   * every group at once, and past about a thousand groups that trips the depth guard.
   */
  private runningCount(
    table: TableModel,
    areas: RowsArea[],
    crits: string[],
    ops: (string | undefined)[],
    span: { first: string; last: string },
    scan: string,
  ): string {
    if (!this.rowMode || this.foldMembers) return scan;
    const keyed = crits.map((c) => this.readsOwnRow(c));
    if (keyed.some((k, i) => k && ops[i] !== undefined && ops[i] !== '=')) return scan;
    const h = (name: Parameters<typeof this.helper>[0]): string => this.helper(name);
    const fixed = crits.map((c, i) => (keyed[i] ? undefined : ([this.fresh(), c] as const)));
    const binds = fixed.flatMap((x) => (x ? [`${x[0]} := ${h('xl_crit')}(${x[1]})`] : []));
    const filter = fixed.flatMap((x, i) => (x ? [`${h('xl_meets')}(${areas[i]!.field.name}, ${x[0]})`] : []));
    const keyCols = areas.filter((_, i) => keyed[i]).map((a) => `${h('xl_ckey')}(${a.field.name})`);
    const rows = `$$.${table.name}#$i${filter.length > 0 ? `[${filter.join(' and ')}]` : ''}`;
    const at = (i: string): string => `$pad($string(${i}), -${POSITION_DIGITS}, "0")`;
    // the sorted entries by position as an object ("0": first, …): JSONata indexes an array by a
    // computed number only by testing every element, and looks a key up in an object directly
    const expr =
      `(${binds.map((b) => `${b}; `).join('')}$s := $sort([${rows}.($string([${keyCols.join(', ')}]) & " " & ${at('$i')})]); ` +
      `{"n": $count($s), "s": $merge([$map($s, function($x, $j) { {$string($j): $x} })])})`;
    const name = this.lib.aggregate(
      expr,
      'object',
      'COUNTIF(S) over a span moving with the row: the rows by key and position, sorted, built once for every row',
      this.scope.taken,
    );
    const rowKs = crits.flatMap((c, i) => (keyed[i] ? [[this.fresh(), c] as const] : []));
    const kb = rowKs.map(([k, c]) => `${k} := ${h('xl_critkey')}(${h('xl_crit')}(${c})); `).join('');
    const all = rowKs.length > 0 ? rowKs.map(([k]) => `$exists(${k})`).join(' and ') : 'true';
    const [a, list, key, lo, hi] = [this.fresh(), this.fresh(), this.fresh(), this.fresh(), this.fresh()];
    // entries up to (or before) a bound, a first stretch of the sorted entries; the bounds and the
    // list are bound once, outside the searches' lambdas (half of a row's cost otherwise)
    const upTo = (cmp: string, bound: string): string =>
      `${h('xl_bcount')}(${a}.n, function($j) { $lookup(${list}, $string($j)) ${cmp} ${bound} })`;
    return (
      `(${kb}${all} ? (${a} := ${built(name)}; ${list} := ${a}.s; ${key} := $string([${rowKs.map(([k]) => k).join(', ')}]); ` +
      `${lo} := $max([0, ${span.first}]); ${hi} := ${span.last}; ` +
      `${hi} < ${lo} ? 0 : ( ${hi} := ${key} & " " & ${at(hi)}; ${lo} := ${key} & " " & ${at(lo)}; ` +
      `${upTo('<=', hi)} - ${upTo('<', lo)} )) : ${scan})`
    );
  }

  /**
   * A column formula whose one row-dependent criterion compares by order (`">"&B2`): a top-level
   * derivation holds the distinct numeric values of the criteria column, sorted, with running
   * totals from below and from above; each row finds its threshold by binary search. A criterion
   * that turns out to be something else at run time (text, say) takes the scan.
   */
  private ordered(
    agg: Aggregate,
    table: TableModel,
    areas: RowsArea[],
    crits: string[],
    at: number,
    op: string,
    sum: RowsArea | undefined,
    scan: string,
  ): string {
    const h = (name: Parameters<typeof this.helper>[0]): string => this.helper(name);
    const fixed = crits.map((c, i) => (i === at ? undefined : ([this.fresh(), c] as const)));
    const binds = fixed.flatMap((x) => (x ? [`${x[0]} := ${h('xl_crit')}(${x[1]})`] : []));
    const filter = fixed.flatMap((x, i) => (x ? [`${h('xl_meets')}(${areas[i]!.field.name}, ${x[0]})`] : []));
    const rows = `$$.${table.name}${filter.length > 0 ? `[${filter.join(' and ')}]` : ''}`;
    const v = sum ? present(sum.field.name) : 'null';
    const up = op === '<' || op === '<=';
    // the totals each distinct value's rows need, and how they run (AVERAGE: sum and count)
    const runs = RUNS[agg];
    const pos = (total: string): string =>
      `$merge([$map($xs, function($x, $i) { {$string($i): ($l := $lookup($g, $string($x)); ${total})} })])`;
    const expr =
      `(${binds.map((b) => `${b}; `).join('')}` +
      `$g := ${groupEntries(`[${rows}.{"x": ${h('xl_cnum')}(${areas[at]!.field.name}), "v": ${v}}][$exists(x)].{"k": $string(x), "x": x, "v": v}`)}; ` +
      `$exists($g) ? ( $xs := $sort([$each($g, function($l) { $l[0].x })]); $d := $count($xs); ` +
      `{"d": $d, "xs": $merge([$map($xs, function($x, $i) { {$string($i): $x} })]), ` +
      runs
        .map(
          ([key, total, combine, zero]) =>
            `"${key}": ${h('xl_running')}(${pos(total)}, $d, ${up}, ${combine}, ${zero})`,
        )
        .join(', ') +
      `} ) : {"d": 0})`;
    const name = this.lib.aggregate(
      expr,
      'object',
      `${printAgg(agg)} by the order of ${areas[at]!.field.title}: sorted values and running totals`,
      this.scope.taken,
    );
    const [k, a, t, p] = [this.fresh(), this.fresh(), this.fresh(), this.fresh()];
    // positions whose value meets the criterion: below the first not under (or not over) the threshold
    const cmp = op === '<' || op === '>=' ? '<' : '<=';
    const count = `${h('xl_bcount')}(${a}.d, function($i) { $lookup(${a}.xs, $string($i)) ${cmp} ${t} })`;
    const at1 = up ? `${p} > 0 ? $string(${p} - 1)` : `${p} < ${a}.d ? $string(${p})`;
    const run = (key: string): string => `$lookup(${a}.${key}, ${p}key)`;
    const read: Record<Aggregate, string> = {
      COUNT: `($exists(${p}key) ? ${run('n')} : 0)`,
      SUM: `($exists(${p}key) ? ${run('s')} : 0)`,
      AVERAGE: `($exists(${p}key) and ${run('c')} > 0 ? ${run('s')} / ${run('c')} : $nothing)`,
      MAX: `($exists(${p}key) and $exists(${run('hi')}) ? ${run('hi')} : 0)`,
      MIN: `($exists(${p}key) and $exists(${run('lo')}) ? ${run('lo')} : 0)`,
    };
    return (
      `(${k} := ${h('xl_crit')}(${crits[at]}); ${k}.o = "${op}" and $exists(${k}.n) ? ( ` +
      `${a} := ${built(name)}; ${t} := ${k}.n; ${p} := ${count}; ${p}key := ${at1} : $nothing; ${read[agg]} ) : ${scan})`
    );
  }
}

const num = (code: string): Compiled => ({ code, type: 'number' });
