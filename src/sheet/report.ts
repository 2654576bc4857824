/**
 * What a conversion tells people and agents: formula cells found, compiled and verified, per sheet,
 * and the rejections grouped by reason (one entry per reason and column, never one per cell).
 */
import { pathOf, type CellMapEntry } from './cellmap.js';
import type { RejectionReason } from './errors.js';
import type { Field, RejectedColumn } from './fields.js';
import type { FieldCheck } from './whatif.js';

export interface SheetReport {
  name: string;
  /** The tables compiled from the sheet (their names in the spec). */
  tables: string[];
  formulaCells: number;
  compiledCells: number;
  /** Compiled cells verified with what-if edits (or constants, which no edit changes). */
  verifiedCells: number;
  /** Compiled cells verified at the workbook's stored values only. */
  storedOnlyCells: number;
}

/** How one compiled column or cell was checked. */
export interface CellCheck {
  sheet: string;
  /** Column letter of a table column, or the cell. */
  address: string;
  /** Its state path (`rows[*].total`, `vat`). */
  path: string;
  /** Formula cells it stands for. */
  cells: number;
  /** `what-if 3 edits`, `constant` (reads no input), or `stored-only: <why>`. */
  checked: string;
}

export interface RejectionExample {
  sheet: string;
  column: string;
  address: string;
  formula?: string;
  message: string;
}

export interface RejectionGroup {
  reason: RejectionReason;
  /** Formula cells rejected for this reason. */
  count: number;
  /** A few of them (at most EXAMPLES), each standing for a column or a group of cells. */
  examples: RejectionExample[];
}

export interface ConversionReport {
  /** Every formula cell of the workbook. */
  formulaCells: number;
  /** Formula cells whose formula is in the spec. */
  compiledCells: number;
  /**
   * Compiled cells verified with what-if: the compiled model agrees with the independent
   * evaluation of the workbook's formulas at the stored values and after every seeded edit of its
   * inputs (a formula of constants and a constant in a table column count too: no edit changes them).
   */
  verifiedCells: number;
  /** Compiled cells that agree with the stored values, not checked after edits (`checks` says why). */
  storedOnlyCells: number;
  sheets: SheetReport[];
  rejected: RejectionGroup[];
  /** Per compiled column or cell, how it was checked. */
  checks: CellCheck[];
  /** Every field of the spec ↔ its workbook cells (cellmap.ts). */
  cellMap: CellMapEntry[];
}

/** The compiled fields of one sheet, as the report needs them. */
export interface SheetOutcome {
  name: string;
  tables: string[];
  fields: Field[];
  /** Formula cells compiled as constants of a table (`=125` among typed values). */
  literalCells: number;
  /** Formula cells the compiler did not reach, with the reason (e.g. past the sheet's limits). */
  unreached?: { count: number; rejection: RejectedColumn };
}

const EXAMPLES = 3;

/** A column letter of an address (`F12` → `F`, `F` → `F`). */
const columnOf = (address: string): string => /^[A-Z]+/i.exec(address)?.[0] ?? address;
const rowOf = (address: string): number => Number(/\d+$/.exec(address)?.[0] ?? 0);

/**
 * Rejected fields as the result lists them: a table column stays one entry; summary cells of one
 * sheet column rejected for one reason become one entry spanning them, with `cells` their count.
 */
export function groupRejections(fields: Field[]): RejectedColumn[] {
  const out: RejectedColumn[] = [];
  const groups = new Map<string, { first: RejectedColumn; rows: number[]; cells: number }>();
  for (const f of fields) {
    const r = f.rejection;
    if (!r) continue;
    if (f.kind !== 'summary') {
      out.push(f.formulaCells > 1 ? { ...r, cells: f.formulaCells } : r);
      continue;
    }
    const key = `${r.reason}\u0000${columnOf(f.address)}`;
    const g = groups.get(key);
    if (g) {
      g.rows.push(rowOf(f.address));
      g.cells += f.formulaCells;
    } else {
      const first = { ...r };
      groups.set(key, { first, rows: [rowOf(f.address)], cells: f.formulaCells });
      out.push(first);
    }
  }
  for (const { first, rows, cells } of groups.values()) {
    if (cells <= 1) continue;
    const col = columnOf(first.address);
    first.column = `${first.column} and ${cells - 1} more cell${cells > 2 ? 's' : ''} of column ${col}`;
    first.address = `${col}${Math.min(...rows)}:${col}${Math.max(...rows)}`;
    first.cells = cells;
  }
  return out;
}

const cellsOf = (r: RejectedColumn): number => r.cells ?? 1;

export function buildReport(
  sheets: SheetOutcome[],
  checks: Map<Field, FieldCheck>,
  cellMap: CellMapEntry[],
): ConversionReport {
  const report: ConversionReport = {
    formulaCells: 0,
    compiledCells: 0,
    verifiedCells: 0,
    storedOnlyCells: 0,
    sheets: [],
    rejected: [],
    checks: [],
    cellMap,
  };
  const groups = new Map<RejectionReason, RejectionGroup>();
  const add = (sheet: string, r: RejectedColumn): void => {
    let g = groups.get(r.reason);
    if (!g) {
      g = { reason: r.reason, count: 0, examples: [] };
      groups.set(r.reason, g);
    }
    g.count += cellsOf(r);
    if (g.examples.length < EXAMPLES) {
      const e: RejectionExample = { sheet, column: r.column, address: r.address, message: r.message };
      if (r.formula !== undefined) e.formula = r.formula;
      g.examples.push(e);
    }
  };
  for (const s of sheets) {
    let formulaCells = s.literalCells + (s.unreached?.count ?? 0);
    let compiled = s.literalCells;
    let verified = s.literalCells;
    for (const f of s.fields) {
      formulaCells += f.formulaCells;
      if (f.rejection || (f.kind !== 'column' && f.kind !== 'summary')) continue;
      compiled += f.formulaCells;
      const check = checks.get(f) ?? { checked: 'stored-only: not checked after edits', verified: false };
      if (check.verified) verified += f.formulaCells;
      report.checks.push({
        sheet: s.name,
        address: f.address,
        path: pathOf(f),
        cells: f.formulaCells,
        checked: check.checked,
      });
    }
    for (const r of groupRejections(s.fields)) add(s.name, r);
    if (s.unreached && s.unreached.count > 0)
      add(s.name, { ...s.unreached.rejection, cells: s.unreached.count });
    report.sheets.push({
      name: s.name,
      tables: s.tables,
      formulaCells,
      compiledCells: compiled,
      verifiedCells: verified,
      storedOnlyCells: compiled - verified,
    });
    report.formulaCells += formulaCells;
    report.compiledCells += compiled;
    report.verifiedCells += verified;
  }
  // every compiled cell agrees with the stored values (else it was rejected as VALUE_MISMATCH);
  // those not verified after edits are counted apart
  report.storedOnlyCells = report.compiledCells - report.verifiedCells;
  report.rejected = [...groups.values()].sort((a, b) => b.count - a.count);
  return report;
}
