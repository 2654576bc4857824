/**
 * Excel functions beyond the first set: errors, lookups, conditional aggregates, rounding, dates
 * (1900 serials), finance, text and statistics. Each becomes JSONata, with a library helper
 * (library.ts) where JSONata has no built-in that behaves as Excel does.
 */
import { Rejection } from './errors.js';
import type { Field } from './fields.js';
import { printFormula, type CellRef, type Formula } from './formula.js';
import { ConditionalCompiler } from './criteria.js';
import type { Compiled } from './references.js';
import { compilePosition } from './positions.js';
import { compileText } from './textformat.js';
import { compileFinance } from './finance.js';
import { subtotalFunction, withoutSubtotals } from './subtotal.js';
import { compileDynamic } from './spill.js';
import { compileExtra } from './extra-functions.js';
export { FUNCTIONS } from './function-names.js';
import { built } from './lookup-lists.js';
import { cellKey } from './xlsx.js';

const num = (code: string): Compiled => ({ code, type: 'number' });

/**
 * A blank side cell is "" where text is expected and 0 everywhere else (a number, a formula that
 * only points at it, `IFNA(C3,"na")`). Its input is the number 0 unless the formulas read it as
 * text and never as a number: then it is a text input holding "" (`=CONCAT("Valuation of ",C3)`
 * gives "Valuation of ", and the name once C3 is typed in), which every read other than text turns
 * into 0, as the spreadsheet does. One read both ways stays the number 0: its text reads show "0"
 * and the stored value rejects them.
 */
const blankNumberRead = new WeakSet<Field>();

/** The side inputs among a conversion's fields by name, kept up to date as fields are added. */
const sideIndex = new WeakMap<Field[], { seen: number; byName: Map<string, Field> }>();

function sideFieldNamed(fields: Field[], name: string): Field | undefined {
  let index = sideIndex.get(fields);
  if (!index) {
    index = { seen: 0, byName: new Map() };
    sideIndex.set(fields, index);
  }
  for (; index.seen < fields.length; index.seen++) {
    const f = fields[index.seen]!;
    if (f.kind === 'side') index.byName.set(f.name, f);
  }
  return index.byName.get(name);
}

export abstract class FunctionCompiler extends ConditionalCompiler {
  /** Reads of blank side cells compiled in this formula: the compiled read → the plain field. */
  private readonly blankRead = new Map<string, { raw: string; field: Field }>();

  /**
   * A whole table column's numbers, sorted, as a column formula reads them: a top-level derivation
   * `{n, s}` (s: position → number), built once per recalculation, so a rank down the column is a
   * binary search per row, not a pass over the column. Undefined for anything else.
   */
  private sortedNumbers(arg: Formula): string | undefined {
    if (!this.rowMode || this.foldMembers) return undefined;
    const r = this.resolveArg(arg);
    const cols = r.kind === 'range' ? this.wholeColumns(r) : undefined;
    if (cols?.length !== 1) return undefined;
    const { table, field } = cols[0]!;
    this.depend(field);
    const expr =
      `($xs := $sort([$$.${table.name}.${field.name}[$type($) = "number"]]); ` +
      `{"n": $count($xs), "s": $merge([$map($xs, function($x, $i) { {$string($i): $x} })])})`;
    const name = this.lib.aggregate(
      expr,
      'object',
      `the numbers of ${field.title}, sorted, built once for every row`,
      this.scope.taken,
    );
    return built(name);
  }

  /** The side input a compiled read is, when that side cell is blank in the workbook. */
  private blankSide(c: Compiled): Field | undefined {
    if (c.type !== 'number' && c.type !== 'string') return undefined;
    const field = sideFieldNamed(this.scope.fields, c.code.startsWith('$$.') ? c.code.slice(3) : c.code);
    if (!field) return undefined;
    const cell = field.sheet.cells.get(cellKey(field.row, field.col));
    return cell === undefined || (cell.value === null && !cell.formula) ? field : undefined;
  }

  protected override ref(ref: CellRef, sheetName: string | undefined): Compiled {
    const c = super.ref(ref, sheetName);
    const field = this.blankSide(c);
    if (!field) return c;
    const code = `${this.helper('xl_blank0')}(${c.code})`;
    this.blankRead.set(code, { raw: c.code, field });
    return { code, type: 'any' };
  }

  protected override text(c: Compiled): string {
    const read = this.blankRead.get(c.code);
    if (!read) return super.text(c);
    if (!blankNumberRead.has(read.field)) {
      read.field.type = 'string';
      read.field.value = '';
    }
    return `${this.helper('xl_text')}(${read.raw})`;
  }

  protected override num(c: Compiled): string {
    const read = this.blankRead.get(c.code);
    if (!read) return super.num(c);
    blankNumberRead.add(read.field);
    if (read.field.type === 'string') {
      // read as text before: back to the number 0 (those text reads then show "0")
      read.field.type = 'number';
      read.field.value = 0;
    }
    return c.code;
  }

  /** The function compiled, or undefined when it is not one of this module's. */
  protected more(name: string, args: Formula[]): Compiled | undefined {
    return (
      this.logical(name, args) ??
      this.maths(name, args) ??
      this.lookup(name, args) ??
      this.dates(name, args) ??
      this.finance(name, args) ??
      this.texts(name, args) ??
      this.aliases(name, args) ??
      compileFinance(name, args, {
        args: (n, a, min, max) => this.args(n, a, min, max),
        scalar: (a, i, fallback) => this.scalar(a, i, fallback),
        list: (a) => this.list(a),
        items: (a, n) => this.items(a, n),
        helper: (h) => this.helper(h),
      }) ??
      compileExtra(name, args, {
        args: (n, a, min, max) => this.args(n, a, min, max),
        scalar: (a, i, fallback) => this.scalar(a, i, fallback),
        items: (a, n) => this.items(a, n),
        compile: (f) => this.compile(f),
        text: (c) => this.text(c),
        resolve: (f) => this.resolveArg(f),
        helper: (h) => this.helper(h),
        fresh: () => this.fresh(),
        sortedNumbers: (f) => this.sortedNumbers(f),
      }) ??
      compilePosition(name, args, { field: this.field, resolve: (f) => this.resolveArg(f) }) ??
      compileDynamic(name, args, {
        compile: (f) => this.compile(f),
        listOf: (f) => this.listOf(f).code,
        spillOf: (f) => this.spillArrayOf(f),
        num: (c) => this.num(c),
        helper: (h) => this.helper(h),
        fresh: () => this.fresh(),
        args: (n, a, min, max) => this.args(n, a, min, max),
      })
    );
  }

  /**
   * SUBTOTAL as the aggregate its function number names (subtotal.ts), over its ranges less the
   * subtotal cells in them.
   */
  private subtotal(args: Formula[]): Compiled {
    this.args('SUBTOTAL', args, 2, 255);
    const fn = subtotalFunction(args[0]!);
    if (!fn)
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        'SUBTOTAL is compiled with a constant function number, 1 to 11 or 101 to 111',
      );
    const parts = args.slice(1).flatMap((a): Formula[] => {
      const r = this.resolveArg(a);
      if (r.kind === 'range')
        return withoutSubtotals(r, this.sheetOf(r.sheet, `the range ${printFormula(r)}`));
      if (r.kind === 'ref') {
        const sheet = this.sheetOf(r.sheet, `the reference ${printFormula(r)}`);
        // in a table column the cell moves with the row: every row of the table counts
        const rows =
          this.rowMode && !r.ref.rowAbs
            ? [this.field.table!.firstRow, this.field.table!.lastRow]
            : [r.ref.row, r.ref.row];
        withoutSubtotals(
          {
            kind: 'range',
            sheet: r.sheet,
            from: { ...r.ref, row: rows[0]! },
            to: { ...r.ref, row: rows[1]! },
          },
          sheet,
        );
      }
      return [r];
    });
    if (parts.length === 0)
      throw new Rejection(
        'UNSUPPORTED_FUNCTION',
        'SUBTOTAL over nothing but other subtotals is not compiled',
      );
    return this.listAggregate(fn, parts);
  }

  /**
   * An aggregate over its arguments: COUNTA, PRODUCT and STDEVP here (the others are compiled by
   * name). SUBTOTAL calls it with its ranges less the subtotal cells in them; the plain functions
   * (COUNTA, PRODUCT, STDEVP, STDEV.P, STDEV.S) with their arguments as written.
   */
  private listAggregate(fn: string, parts: Formula[]): Compiled {
    switch (fn) {
      case 'COUNTA': {
        // every value that is not blank (a blank table cell of a number column is 0 here: the
        // stored value then rejects the cell)
        const lists = parts.map((p) => (p.kind === 'range' ? this.list(p) : `[${this.compile(p).code}]`));
        const all = lists.reduce((acc, l) => `$append(${acc}, ${l})`);
        return num(
          `$count($filter(${this.helper('xl_arr')}(${all}), function($v) { $exists($v) and $v != "" and $type($v) != "null" }))`,
        );
      }
      case 'PRODUCT': {
        const list = `[${parts.flatMap((p) => this.items(p, fn)).join(', ')}]`;
        return num(`($l := ${list}; $count($l) = 0 ? 0 : $reduce($l, function($a, $b) { $a * $b }))`);
      }
      case 'STDEVP':
        return num(
          `$sqrt(${this.helper('xl_var')}([${parts.flatMap((p) => this.items(p, fn)).join(', ')}], 0))`,
        );
      default:
        return this.compile({ kind: 'call', name: fn, args: parts });
    }
  }

  /** SUBTOTAL; volatile functions and live data refused with their reason. */
  private aliases(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'SUBTOTAL':
        return this.subtotal(args);
      // Excel 2010's names of STDEV and STDEVP, and the aggregates SUBTOTAL also names
      case 'STDEV.S':
        return this.compile({ kind: 'call', name: 'STDEV', args });
      case 'STDEV.P':
      case 'STDEVP':
      case 'COUNTA':
      case 'PRODUCT':
        this.args(name, args, 1, 255);
        return this.listAggregate(
          name === 'STDEV.P' ? 'STDEVP' : name,
          args.map((a) => this.resolveArg(a)),
        );
      case 'RAND':
      case 'RANDBETWEEN':
      case 'NOW':
      case 'TODAY':
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          `${name} is volatile (a new value at every recalculation), so no model can reproduce the stored value`,
        );
      case '_FV':
      case 'STOCKHISTORY':
        throw new Rejection(
          'UNSUPPORTED_FUNCTION',
          `${name === '_FV' ? 'a field of a linked data type (Stocks, Geography …)' : name} is live data a service returns, not a formula: no model can reproduce it`,
        );
      default:
        return undefined;
    }
  }

  private logical(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'IFERROR':
      case 'IFNA': {
        this.args(name, args, 2, 2);
        const v = this.compile(args[0]!);
        const alt: Compiled = args[1]!.kind === 'missing' ? num('0') : this.compile(args[1]!);
        const e = this.fresh();
        return {
          code: `(${e} := ${v.code}; ${this.helper('xl_iserr')}(${e}) ? ${alt.code} : ${e})`,
          type: v.type === alt.type ? v.type : 'any',
        };
      }
      case 'IFS': {
        if (args.length < 2 || args.length % 2 !== 0)
          throw new Rejection('UNSUPPORTED_SYNTAX', 'IFS takes pairs of conditions and values');
        let code = '$nothing';
        const types = new Set<string>();
        for (let i = args.length - 2; i >= 0; i -= 2) {
          const v = this.compile(args[i + 1]!);
          types.add(v.type);
          code = `(${this.compile(args[i]!).code} ? ${v.code} : ${code})`;
        }
        return { code, type: types.size === 1 ? ([...types][0] as Compiled['type']) : 'any' };
      }
      case 'CHOOSE': {
        this.args(name, args, 2, 255);
        const options = args.slice(1).map((a) => this.compile(a));
        const types = new Set(options.map((o) => o.type));
        const e = this.fresh();
        const pick = options.map((o, i) => `${e} = ${i + 1} ? ${o.code} : `).join('');
        return {
          code: `(${e} := $floor(${this.scalar(args, 0)}); ${pick}$nothing)`,
          type: types.size === 1 ? options[0]!.type : 'any',
        };
      }
      case 'ISNUMBER':
      case 'ISTEXT':
        this.args(name, args, 1, 1);
        return {
          code: `($type(${this.compile(args[0]!).code}) = "${name === 'ISNUMBER' ? 'number' : 'string'}")`,
          type: 'boolean',
        };
      case 'ISBLANK':
        // an empty cell: absent or null (a blank side cell reads as 0, so the check rejects that)
        this.args(name, args, 1, 1);
        return {
          code: `($b := ${this.compile(args[0]!).code}; $not($exists($b)) or $b = null)`,
          type: 'boolean',
        };
      case 'ISERROR':
        this.args(name, args, 1, 1);
        return { code: `${this.helper('xl_iserr')}(${this.compile(args[0]!).code})`, type: 'boolean' };
      default:
        return undefined;
    }
  }

  private maths(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'MOD':
        this.args(name, args, 2, 2);
        return num(`${this.helper('xl_mod')}(${this.scalar(args, 0)}, ${this.scalar(args, 1)})`);
      case 'INT':
        this.args(name, args, 1, 1);
        return num(`$floor(${this.scalar(args, 0)})`);
      case 'TRUNC':
        this.args(name, args, 1, 2);
        return num(`${this.helper('xl_rounddown')}(${this.scalar(args, 0)}, ${this.scalar(args, 1, '0')})`);
      case 'ROUNDUP':
      case 'ROUNDDOWN':
        this.args(name, args, 2, 2);
        return num(
          `${this.helper(name === 'ROUNDUP' ? 'xl_roundup' : 'xl_rounddown')}(${this.scalar(args, 0)}, ${this.scalar(args, 1)})`,
        );
      case 'SQRT': {
        this.args(name, args, 1, 1);
        const e = this.fresh();
        return num(`(${e} := ${this.scalar(args, 0)}; ${e} < 0 ? $nothing : $sqrt(${e}))`);
      }
      case 'POWER':
        this.args(name, args, 2, 2);
        return num(`$power(${this.scalar(args, 0)}, ${this.scalar(args, 1)})`);
      case 'MEDIAN':
      case 'STDEV':
        this.args(name, args, 1, 255);
        return num(
          `${this.helper(name === 'MEDIAN' ? 'xl_median' : 'xl_stdev')}([${args.flatMap((a) => this.items(a, name)).join(', ')}])`,
        );
      default:
        return this.conditional(name, args);
    }
  }

  private dates(name: string, args: Formula[]): Compiled | undefined {
    switch (name) {
      case 'DATE':
        this.args(name, args, 3, 3);
        return num(
          `${this.helper('xl_date')}(${this.scalar(args, 0)}, ${this.scalar(args, 1)}, ${this.scalar(args, 2)})`,
        );
      case 'YEAR':
      case 'MONTH':
      case 'DAY':
        this.args(name, args, 1, 1);
        return num(
          `${this.helper('xl_ymd')}(${this.scalar(args, 0)}).${name === 'YEAR' ? 'y' : name === 'MONTH' ? 'm' : 'd'}`,
        );
      case 'WEEKDAY':
        this.args(name, args, 1, 2);
        return num(`${this.helper('xl_weekday')}(${this.scalar(args, 0)}, ${this.scalar(args, 1, '1')})`);
      case 'EOMONTH':
      case 'EDATE':
        this.args(name, args, 2, 2);
        return num(
          `${this.helper(name === 'EOMONTH' ? 'xl_eomonth' : 'xl_edate')}(${this.scalar(args, 0)}, ${this.scalar(args, 1)})`,
        );
      case 'NETWORKDAYS': {
        this.args(name, args, 2, 3);
        // a name may stand for a structured reference (lstHolidays = Table[Column]): resolved twice
        const h = args[2] && this.resolveArg(this.resolveArg(args[2]));
        const holidays = h ? `[${this.items(h, name).join(', ')}]` : '[]';
        return num(
          `${this.helper('xl_networkdays')}(${this.scalar(args, 0)}, ${this.scalar(args, 1)}, ${holidays})`,
        );
      }
      default:
        return undefined;
    }
  }

  private finance(name: string, args: Formula[]): Compiled | undefined {
    // an empty argument is 0, as in Excel: `PV(r, n, , fv)` is its documented way to leave out the
    // payment (dcf-varngill: `=-PV($C$12,G6,,G4)`)
    const s = (i: number, fallback?: string): string =>
      args[i]?.kind === 'missing' ? '0' : this.scalar(args, i, fallback);
    switch (name) {
      case 'PMT':
        this.args(name, args, 3, 5);
        return num(`${this.helper('xl_pmt')}(${s(0)}, ${s(1)}, ${s(2)}, ${s(3, '0')}, ${s(4, '0')})`);
      case 'FV':
      case 'PV':
        this.args(name, args, 3, 5);
        return num(
          `${this.helper(name === 'FV' ? 'xl_fv' : 'xl_pv')}(${s(0)}, ${s(1)}, ${s(2)}, ${s(3, '0')}, ${s(4, '0')})`,
        );
      case 'IPMT':
        this.args(name, args, 4, 6);
        return num(
          `${this.helper('xl_ipmt')}(${s(0)}, ${s(1)}, ${s(2)}, ${s(3)}, ${s(4, '0')}, ${s(5, '0')})`,
        );
      case 'NPV':
        this.args(name, args, 2, 255);
        return num(
          `${this.helper('xl_npv')}(${s(0)}, [${args
            .slice(1)
            .flatMap((a) => this.items(a, 'NPV'))
            .join(', ')}])`,
        );
      default:
        return undefined;
    }
  }

  private texts(name: string, args: Formula[]): Compiled | undefined {
    const t = (i: number): string => this.text(this.compile(args[i]!));
    switch (name) {
      case 'FIND':
      case 'SEARCH': {
        this.args(name, args, 2, 3);
        if (name === 'SEARCH' && args[0]!.kind === 'string' && /[*?~]/.test(args[0].value)) {
          throw new Rejection('UNSUPPORTED_FUNCTION', 'SEARCH with wildcards is not compiled');
        }
        const [f, w] = name === 'FIND' ? [t(0), t(1)] : [`$lowercase(${t(0)})`, `$lowercase(${t(1)})`];
        return num(`${this.helper('xl_find')}(${f}, ${w}, ${this.scalar(args, 2, '1')})`);
      }
      case 'SUBSTITUTE': {
        this.args(name, args, 3, 3);
        const e = this.fresh();
        return {
          code: `(${e} := ${t(1)}; ${e} = "" ? ${t(0)} : $replace(${t(0)}, ${e}, ${t(2)}))`,
          type: 'string',
        };
      }
      case 'CONCAT':
        this.args(name, args, 1, 255);
        return { code: `("" & ${args.map((_, i) => t(i)).join(' & ')})`, type: 'string' };
      case 'EXACT':
        this.args(name, args, 2, 2);
        return { code: `(${t(0)} = ${t(1)})`, type: 'boolean' };
      case 'TEXT': {
        this.args(name, args, 2, 2);
        const f = args[1]!;
        if (f.kind !== 'string')
          throw new Rejection('UNSUPPORTED_FUNCTION', 'TEXT is compiled with a constant format');
        const ctx = { helper: (h: string) => this.helper(h), fresh: () => this.fresh() };
        return { code: compileText(f.value, this.scalar(args, 0), ctx), type: 'string' };
      }
      default:
        return undefined;
    }
  }
}
