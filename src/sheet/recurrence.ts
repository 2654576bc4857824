/**
 * Recurrences: columns of one table that read each other with at least one read of an earlier row
 * (a running balance `=C1+B2`, an amortisation schedule whose balance, interest and principal read
 * each other and the row above). Each such group, a strongly connected set of columns through
 * same-row and earlier-row reads, is computed by one top-level fold over the table's rows
 * (`$.<table>_<column>_fold`) that builds every column of the group row by row; each column's
 * rows read their entry (`$$.<fold>[$index].<column>`). A first row whose formula differs from the
 * rest's is the fold's first step (the opening balance), and so is a typed opening value (a
 * column with typed rows, columns.ts: each typed row is the fold's step there). What stays
 * rejected: a group reaching a cell outside the table or another table.
 */
import { columnCode } from './apart.js';
import { Rejection } from './errors.js';
import { fieldName, reject, type Field, type TableModel } from './fields.js';
import type { Formula } from './formula.js';
import type { LibraryBuilder } from './library.js';
import type { WorkbookScope } from './scope.js';
import { FormulaCompiler } from './translate.js';

/** Strongly connected components of the columns through same-row and earlier-row reads (Tarjan). */
function components(fields: Field[]): Field[][] {
  const index = new Map<Field, number>();
  const low = new Map<Field, number>();
  const stack: Field[] = [];
  const onStack = new Set<Field>();
  const out: Field[][] = [];
  let next = 0;
  const inSet = new Set(fields);
  const edges = (f: Field): Field[] => [...f.deps, ...(f.back ?? [])].filter((d) => inSet.has(d));
  // iterative, so that a long chain of columns cannot overflow the stack
  for (const root of fields) {
    if (index.has(root)) continue;
    const work: [Field, Field[]][] = [];
    const open = (f: Field): void => {
      index.set(f, next);
      low.set(f, next++);
      stack.push(f);
      onStack.add(f);
      work.push([f, edges(f)]);
    };
    open(root);
    while (work.length > 0) {
      const [f, todo] = work[work.length - 1]!;
      const d = todo.pop();
      if (d) {
        if (!index.has(d)) open(d);
        else if (onStack.has(d)) low.set(f, Math.min(low.get(f)!, index.get(d)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1]?.[0];
      if (parent) low.set(parent, Math.min(low.get(parent)!, low.get(f)!));
      if (low.get(f) !== index.get(f)) continue;
      const group: Field[] = [];
      let m: Field;
      do {
        m = stack.pop()!;
        onStack.delete(m);
        group.push(m);
      } while (m !== f);
      out.push(group);
    }
  }
  return out;
}

/** The group's columns in an order where each comes after the columns it reads in the same row. */
function rowOrder(group: Field[]): Field[] {
  const inGroup = new Set(group);
  const done = new Set<Field>();
  const out: Field[] = [];
  const visit = (f: Field): void => {
    if (done.has(f)) return;
    done.add(f);
    for (const d of f.deps) if (inGroup.has(d)) visit(d);
    out.push(f);
  };
  for (const f of group) visit(f);
  return out;
}

/** One column's step in the fold: its formula, with its rows apart and typed rows (apart.ts). */
function stepOf(scope: WorkbookScope, compiler: () => FormulaCompiler, field: Field, rest: Formula): string {
  return columnCode(scope, field, rest, (f) => compiler().compile(f).code, `$r_${field.table!.name}`);
}

function foldOf(
  scope: WorkbookScope,
  table: TableModel,
  group: Field[],
  formulas: Map<Field, Formula>,
  make: (f: Field) => FormulaCompiler,
  taken: Set<string>,
): void {
  const members = new Set(group);
  const ordered = rowOrder(group);
  // each table's current row, as it is built: `$r_<table>`
  const steps = ordered.map((f) => {
    const row = `$r_${f.table!.name}`;
    const compiler = (): FormulaCompiler => Object.assign(make(f), { foldMembers: members, rowVar: row });
    return `${row} := $merge([${row}, {${JSON.stringify(f.name)}: ${stepOf(scope, compiler, f, formulas.get(f)!)}}]);`;
  });
  const tables = [...new Set(ordered.map((f) => f.table!.name))];
  // the tables' rows side by side, each read by a literal index (a variable one scans the list)
  const start = tables.map((t, k) => `$r_${t} := $row[${k}];`).join(' ');
  const entry = tables.map((t) => `${JSON.stringify(t)}: $r_${t}`).join(', ');
  const name = fieldName(`${table.name}_${ordered[0]!.name}_fold`, 'fold', taken);
  taken.add(name);
  const zipped = `$zip(${tables.map((t) => `$$.${t}`).join(', ')})`;
  // a column of these tables the fold reads in the row it builds, computed outside the fold (by
  // another fold, a cumulative interest beside a schedule): the fold reads it from its rows, which
  // names no dependency on it, so each is read once here, at row 0, to order the fold after it
  const outside = new Set<string>();
  for (const f of group) {
    for (const d of f.deps) {
      if (d.kind === 'column' && !members.has(d) && d.table && tables.includes(d.table.name))
        outside.add(`$$.${d.table.name}[0].${d.name}`);
    }
  }
  const after = outside.size > 0 ? `$after := [${[...outside].join(', ')}]; ` : '';
  const expr = `(${after}$reduce(${zipped}, function($acc, $row, $i) {($index := $i; ${start} ${steps.join(' ')} $append($acc, {${entry}}))}, []))`;
  for (const f of group) {
    f.fold = { name, expr, members: ordered };
    f.expr = `$$.${name}[$index].${f.table!.name}.${f.name}`;
  }
}

/**
 * Finds the recurrences among the compiled columns and compiles each as a fold; every earlier-row
 * read becomes a dependency, and the columns of a fold depend on one another, so that one column
 * rejected (or failing its check) rejects the whole fold.
 */
export function compileRecurrences(
  scope: WorkbookScope,
  fields: Field[],
  formulas: Map<Field, Formula>,
  lib: LibraryBuilder,
  taken: Set<string>,
): void {
  const candidates = fields.filter((f) => !f.rejection && f.kind !== 'input' && f.kind !== 'side');
  for (const group of components(candidates)) {
    const recurrent = group.some((f) => [...(f.back ?? [])].some((b) => group.includes(b)));
    if (!recurrent) continue;
    const table = group[0]!.table;
    const aligned = (t?: TableModel): boolean =>
      !!t &&
      !!table &&
      t.sheet === table.sheet &&
      t.firstRow === table.firstRow &&
      t.lastRow === table.lastRow;
    const stray = group.find((f) => f.kind !== 'column' || !aligned(f.table));
    if (stray || !table) {
      for (const f of group) {
        reject(
          f,
          'CROSS_ROW_REFERENCE',
          `a recurrence (columns reading each other's earlier rows) through ${stray ? `'${stray.title}' (${stray.address})` : 'another table'}, outside table '${table?.title ?? ''}'; only a recurrence within one table (or tables side by side with the same rows) is compiled`,
        );
      }
      continue;
    }
    try {
      foldOf(scope, table, group, formulas, (f) => new FormulaCompiler(scope, f, lib), taken);
    } catch (err) {
      if (!(err instanceof Rejection)) throw err;
      for (const f of group) reject(f, err.reason, err.message);
    }
  }
  for (const f of fields) {
    for (const b of f.back ?? []) if (b !== f) f.deps.add(b);
    for (const m of f.fold?.members ?? []) if (m !== f) f.deps.add(m);
  }
}
