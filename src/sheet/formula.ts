/** Excel formula text → a syntax tree (A1 references, the usual operators and function calls). */
import { Rejection } from './errors.js';
import { scanStructured, type StructuredRef } from './structured.js';
import { columnLetter } from './cell-names.js';
import { columnNumber } from './workbook-parts.js';
import { CLOCK_SHEET, clockFunction } from './clock-names.js';

export interface CellRef {
  /** 0 for a whole-column reference (`B:B`). */
  row: number;
  /** 0 for a whole-row reference (`$1:$1`, `2:2`; `colAbs` is then true: it never moves). */
  col: number;
  rowAbs: boolean;
  colAbs: boolean;
}

export type Formula =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'error'; value: string }
  | { kind: 'ref'; sheet?: string; ref: CellRef }
  | { kind: 'range'; sheet?: string; from: CellRef; to: CellRef }
  | { kind: 'name'; name: string }
  | { kind: 'call'; name: string; args: Formula[] }
  | { kind: 'binary'; op: string; left: Formula; right: Formula }
  | { kind: 'unary'; op: '-' | '+'; operand: Formula }
  | { kind: 'percent'; operand: Formula }
  | StructuredRef
  | { kind: 'missing' };

type Token =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 'err'; v: string }
  | { t: 'ref'; v: string }
  | { t: 'fn'; v: string }
  | { t: 'op'; v: string }
  | { t: 'struct'; v: StructuredRef };

const syntax = (message: string): never => {
  throw new Rejection('UNSUPPORTED_SYNTAX', message);
};

const REF = String.raw`(?:(?:'(?:[^']|'')+'|(?:\[\d+\])?[A-Za-z_][\w.]*)!)?(?:\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}|\$?\d+:\$?\d+)`;
const TOKEN = new RegExp(
  [
    String.raw`(?<ws>\s+)`,
    // whole rows (`$1:$1`, `2:5`) before numbers: `1:1` is a reference, never two numbers
    String.raw`(?<rows>\$?\d+:\$?\d+)(?![\w(.])`,
    String.raw`(?<num>(?:\d+\.?\d*|\.\d+)(?:[Ee][+-]?\d+)?)(?![\w(])`,
    String.raw`(?<str>"(?:[^"]|"")*")`,
    String.raw`(?<err>#(?:NULL!|DIV\/0!|VALUE!|REF!|NAME\?|NUM!|N\/A|GETTING_DATA))`,
    // `__xludf.DUMMYFUNCTION(`: Google Sheets' wrapper of its own functions (google.ts); `_FV(`:
    // a field of a linked data type (functions.ts refuses it with its reason)
    String.raw`(?<fn>(?:_xlfn\.|_xlws\.|__xludf\.){0,2}(?:[A-Za-z]|_FV\b)[\w.]*)\s*\(`,
    String.raw`(?<ref>${REF})(?![\w(])`,
    String.raw`(?<name>[A-Za-z_\\][\w.]*)`,
    String.raw`(?<op><>|<=|>=|[-+*/^&=<>%(),;{}:!@])`,
  ].join('|'),
  'y',
);

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const at = TOKEN.lastIndex;
    const structured = scanStructured(src, at);
    if (structured) {
      out.push({ t: 'struct', v: structured.ref });
      TOKEN.lastIndex = structured.end;
      continue;
    }
    const m = TOKEN.exec(src);
    if (!m?.groups) return syntax(`cannot read the formula at '${src.slice(at, at + 12)}'`);
    const g = m.groups;
    if (g.ws !== undefined) continue;
    if (g.num !== undefined) out.push({ t: 'num', v: Number(g.num) });
    else if (g.str !== undefined) out.push({ t: 'str', v: g.str.slice(1, -1).replace(/""/g, '"') });
    else if (g.err !== undefined) out.push({ t: 'err', v: g.err });
    else if (g.fn !== undefined) out.push({ t: 'fn', v: g.fn });
    else if (g.ref !== undefined) out.push({ t: 'ref', v: g.ref });
    else if (g.rows !== undefined) out.push({ t: 'ref', v: g.rows });
    else if (g.name !== undefined) {
      const upper = g.name.toUpperCase();
      if (upper === 'TRUE' || upper === 'FALSE') out.push({ t: 'fn', v: `=${upper}` });
      else out.push({ t: 'ref', v: `#name:${g.name}` });
    } else out.push({ t: 'op', v: g.op! });
  }
  return out;
}

function parseCellRef(s: string): CellRef {
  const whole = /^(\$?)(\d+)$/.exec(s);
  if (whole) return { colAbs: true, col: 0, rowAbs: whole[1] === '$', row: Number(whole[2]) };
  const m = /^(\$?)([A-Za-z]{1,3})(\$?)(\d*)$/.exec(s)!;
  return {
    colAbs: m[1] === '$',
    col: columnNumber(m[2]!),
    rowAbs: m[3] === '$',
    row: m[4] ? Number(m[4]) : 0,
  };
}

function refNode(text: string): Formula {
  if (text.startsWith('#name:')) return { kind: 'name', name: text.slice(6) };
  let sheet: string | undefined;
  let body = text;
  const bang = text.lastIndexOf('!');
  if (bang >= 0) {
    sheet = text.slice(0, bang);
    if (sheet.startsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'");
    body = text.slice(bang + 1);
  }
  const [a, b] = body.split(':');
  const from = parseCellRef(a!);
  const node: Formula =
    b === undefined ? { kind: 'ref', ref: from } : { kind: 'range', from, to: parseCellRef(b) };
  if (sheet !== undefined) node.sheet = sheet;
  return node;
}

/** Excel's own limits: formula text and nesting depth. */
export const MAX_FORMULA_CHARS = 8192;
export const MAX_FORMULA_NESTING = 64;
/** Operators and calls in one formula: every later pass walks the tree recursively. */
export const MAX_FORMULA_NODES = 1000;

/** Parses formula text (without the leading `=`). */
export function parseFormula(src: string): Formula {
  if (src.length > MAX_FORMULA_CHARS) {
    syntax(`the formula has ${src.length} characters; the limit is ${MAX_FORMULA_CHARS}`);
  }
  return new Parser(tokenize(src)).formula();
}

const COMPARISON = ['=', '<>', '<', '>', '<=', '>='];

/**
 * The call of a LAMBDA written in place (`LAMBDA(x, x + 1)(5)`): a call node whose first argument
 * is the LAMBDA and the rest its arguments. The name holds a space, so no function or defined
 * name can be it.
 */
export const LAMBDA_CALL = 'LAMBDA CALL';

/**
 * Recursive descent over the tokens, one method per precedence level (lowest first: comparison,
 * `&`, `+ -`, `* /`, `^`, `%`, unary, primary), with the node and nesting budgets kept on the way.
 */
class Parser {
  private i = 0;
  private depth = 0;
  private nodes = 0;

  constructor(private readonly tokens: Token[]) {}

  /** The whole formula: one expression and nothing after it. */
  formula(): Formula {
    const tree = this.comparison();
    if (this.i < this.tokens.length) {
      syntax(`unexpected '${String(this.tokens[this.i]!.v)}' in the formula`);
    }
    return tree;
  }

  /** Counts an operator or call against MAX_FORMULA_NODES. */
  private node<T extends Formula>(f: T): T {
    if (++this.nodes > MAX_FORMULA_NODES) {
      syntax(`the formula has more than ${MAX_FORMULA_NODES} operators and function calls`);
    }
    return f;
  }

  /** Parses one nested level (parentheses, an argument, a unary operand) within MAX_FORMULA_NESTING. */
  private nested(parse: () => Formula): Formula {
    if (++this.depth > MAX_FORMULA_NESTING) {
      syntax(`the formula nests more than ${MAX_FORMULA_NESTING} levels deep`);
    }
    const f = parse();
    this.depth--;
    return f;
  }

  private isOp(v: string): boolean {
    const t = this.tokens[this.i];
    return t?.t === 'op' && t.v === v;
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) syntax(`expected '${v}' in the formula`);
    this.i++;
  }

  /** A left-associative chain of the operators `ops` between operands parsed by `next`. */
  private binary(ops: string[], next: () => Formula): Formula {
    let left = next();
    for (;;) {
      const t = this.tokens[this.i];
      if (t?.t !== 'op' || !ops.includes(t.v)) return left;
      this.i++;
      left = this.node({ kind: 'binary', op: t.v, left, right: next() });
    }
  }

  private comparison = (): Formula => this.binary(COMPARISON, this.concat);
  private concat = (): Formula => this.binary(['&'], this.sum);
  private sum = (): Formula => this.binary(['+', '-'], this.product);
  private product = (): Formula => this.binary(['*', '/'], this.power);
  private power = (): Formula => this.binary(['^'], this.percent);

  private percent = (): Formula => {
    let e = this.unary();
    while (this.isOp('%')) {
      this.i++;
      e = this.node({ kind: 'percent', operand: e });
    }
    return e;
  };

  private unary = (): Formula => {
    if (this.isOp('@')) {
      this.i++;
      const operand = this.nested(this.unary);
      return intersect(operand) ?? syntax(`'@' before ${printFormula(operand)} is not compiled`);
    }
    if (this.isOp('-') || this.isOp('+')) {
      const op = this.tokens[this.i++]!.v as '-' | '+';
      return this.node({ kind: 'unary', op, operand: this.nested(this.unary) });
    }
    return this.primary();
  };

  private primary(): Formula {
    const t = this.tokens[this.i++];
    if (!t) return syntax('the formula ends too early');
    switch (t.t) {
      case 'num':
        return { kind: 'number', value: t.v };
      case 'str':
        return { kind: 'string', value: t.v };
      case 'err':
        return { kind: 'error', value: t.v };
      case 'ref':
        return refNode(t.v);
      case 'struct':
        return t.v;
      case 'fn':
        return this.call(t.v);
      case 'op':
        if (t.v === '(') {
          const inner = this.nested(this.comparison);
          this.expectOp(')');
          return inner;
        }
        if (t.v === '{') return syntax('array constants ({…}) are not supported');
        return syntax(`unexpected '${t.v}' in the formula`);
    }
  }

  /** A function call, its name token already read (the `(` with it), or a bare TRUE / FALSE. */
  private call(fn: string): Formula {
    if (fn.startsWith('=')) {
      // TRUE / FALSE written bare; TRUE() as a call is handled below
      return { kind: 'boolean', value: fn === '=TRUE' };
    }
    // Excel 365's newer functions carry one or two prefixes (`_xlfn._xlws.SORT`)
    const name = fn.replace(/^(?:_xl(?:fn|ws)\.){1,2}/i, '').toUpperCase();
    const args = this.callArgs();
    if ((name === 'TRUE' || name === 'FALSE') && args.length === 0)
      return { kind: 'boolean', value: name === 'TRUE' };
    // _xlfn.SINGLE(x) is how the file stores Excel's implicit intersection `@x`. Around an
    // expression (`SINGLE(IF(Pmt_Nbr="",…))`) it is the expression itself: the compiler reads a
    // range in a value's place as its own row's cell already, and aggregates take whole ranges
    if (name === 'SINGLE' && args.length === 1) return intersect(args[0]!) ?? args[0]!;
    const call = this.node({ kind: 'call', name, args });
    // a LAMBDA called where it is written: `LAMBDA(x, x + 1)(5)`
    if (name === 'LAMBDA' && this.isOp('(')) {
      this.i++;
      return this.node({ kind: 'call', name: LAMBDA_CALL, args: [call, ...this.callArgs()] });
    }
    return call;
  }

  /** The arguments up to the closing `)`; an empty one (`f(a,,b)`) is `missing`. */
  private callArgs(): Formula[] {
    const args: Formula[] = [];
    if (this.isOp(')')) {
      this.i++;
      return args;
    }
    for (;;) {
      args.push(this.isOp(',') || this.isOp(')') ? { kind: 'missing' } : this.nested(this.comparison));
      if (this.isOp(',') || this.isOp(';')) {
        this.i++;
        continue;
      }
      this.expectOp(')');
      return args;
    }
  }
}

/** Implicit intersection (`@x`): a cell stays itself, a table column becomes its row's cell. */
function intersect(f: Formula): Formula | undefined {
  if (f.kind === 'ref' || f.kind === 'name') return f;
  if (f.kind === 'structured' && f.area === 'data' && f.from === f.to) {
    return { ...f, area: 'thisRow', text: `@${f.text}` };
  }
  if (f.kind === 'structured' && f.area === 'thisRow') return f;
  return undefined;
}

function shiftRef(r: CellRef, dr: number, dc: number): CellRef {
  return {
    ...r,
    row: r.rowAbs || r.row === 0 ? r.row : r.row + dr,
    col: r.colAbs ? r.col : r.col + dc,
  };
}

/** The formula a shared-formula follower holds: the master's, relative references moved. */
export function shiftFormula(f: Formula, dr: number, dc: number): Formula {
  switch (f.kind) {
    case 'ref':
      return { ...f, ref: shiftRef(f.ref, dr, dc) };
    case 'range':
      return { ...f, from: shiftRef(f.from, dr, dc), to: shiftRef(f.to, dr, dc) };
    case 'call':
      return { ...f, args: f.args.map((a) => shiftFormula(a, dr, dc)) };
    case 'binary':
      return { ...f, left: shiftFormula(f.left, dr, dc), right: shiftFormula(f.right, dr, dc) };
    case 'unary':
    case 'percent':
      return { ...f, operand: shiftFormula(f.operand, dr, dc) };
    default:
      return f;
  }
}

const refText = (r: CellRef): string =>
  r.col === 0
    ? `${r.rowAbs ? '$' : ''}${r.row}`
    : `${r.colAbs ? '$' : ''}${columnLetter(r.col)}${r.row === 0 ? '' : `${r.rowAbs ? '$' : ''}${r.row}`}`;
const sheetText = (s: string | undefined): string =>
  s === undefined ? '' : /^[A-Za-z_][\w.]*$/.test(s) ? `${s}!` : `'${s.replace(/'/g, "''")}'!`;

const PRECEDENCE: Record<string, number> = {
  '=': 1,
  '<>': 1,
  '<': 1,
  '>': 1,
  '<=': 1,
  '>=': 1,
  '&': 2,
  '+': 3,
  '-': 3,
  '*': 4,
  '/': 4,
  '^': 5,
};
const precedence = (f: Formula): number => (f.kind === 'binary' ? (PRECEDENCE[f.op] ?? 0) : 9);

/** Formula text again (for messages), with the parentheses precedence needs. */
export function printFormula(f: Formula): string {
  switch (f.kind) {
    case 'number':
      return String(f.value);
    case 'string':
      return `"${f.value.replace(/"/g, '""')}"`;
    case 'boolean':
      return f.value ? 'TRUE' : 'FALSE';
    case 'error':
      return f.value;
    case 'ref':
      // a clock cell (volatile.ts) prints as the call it stands for
      if (f.sheet === CLOCK_SHEET) return `${clockFunction(f.ref.row) ?? 'NOW'}()`;
      return sheetText(f.sheet) + refText(f.ref);
    case 'range':
      return `${sheetText(f.sheet)}${refText(f.from)}:${refText(f.to)}`;
    case 'name':
      return f.name;
    case 'structured':
      return f.text;
    case 'call':
      if (f.name === LAMBDA_CALL)
        return `${printFormula(f.args[0]!)}(${f.args.slice(1).map(printFormula).join(',')})`;
      return `${f.name}(${f.args.map(printFormula).join(',')})`;
    case 'binary': {
      const p = PRECEDENCE[f.op] ?? 0;
      const l = printFormula(f.left);
      const r = printFormula(f.right);
      return `${precedence(f.left) < p ? `(${l})` : l}${f.op}${precedence(f.right) <= p ? `(${r})` : r}`;
    }
    case 'unary':
      return `${f.op}${f.operand.kind === 'binary' ? `(${printFormula(f.operand)})` : printFormula(f.operand)}`;
    case 'percent':
      return `${f.operand.kind === 'binary' ? `(${printFormula(f.operand)})` : printFormula(f.operand)}%`;
    case 'missing':
      return '';
  }
}

/**
 * The formula as seen from its own row: a relative row becomes an offset, so every cell of a
 * filled-down column gives the same text.
 */
export function rowRelativeKey(f: Formula, row: number): string {
  const ref = (r: CellRef): string =>
    `${columnLetter(r.col)}${r.row === 0 ? ':all' : r.rowAbs ? `$${r.row}` : `[${r.row - row}]`}`;
  switch (f.kind) {
    case 'ref':
      return `${sheetText(f.sheet)}${ref(f.ref)}`;
    case 'range':
      return `${sheetText(f.sheet)}${ref(f.from)}:${ref(f.to)}`;
    case 'call':
      return `${f.name}(${f.args.map((a) => rowRelativeKey(a, row)).join(',')})`;
    case 'binary':
      return `(${rowRelativeKey(f.left, row)}${f.op}${rowRelativeKey(f.right, row)})`;
    case 'unary':
      return `${f.op}(${rowRelativeKey(f.operand, row)})`;
    case 'percent':
      return `(${rowRelativeKey(f.operand, row)})%`;
    default:
      return printFormula(f);
  }
}
