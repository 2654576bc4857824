/**
 * TODAY() and NOW() as inputs. A volatile function's stored result is what it gave when the
 * workbook was last computed; no formula can give that again, but a model can take it as an input.
 * So a workbook that calls them gets a clock sheet (clock-calls.ts): one input cell per function,
 * holding what it gave then, which every call reads. The model starts where the workbook is, and a
 * person or agent sets the input to recompute for another day.
 *
 * What the function gave is found, in this order:
 *  - a cell holding exactly `=TODAY()` or `=NOW()`: its stored value (TODAY is NOW's day);
 *  - for TODAY, the day the file was last saved (`docProps/core.xml`): that is recorded in UTC and
 *    the workbook computed in its own time zone, so the day before and after are tried too, and
 *    the day under which the independent evaluator (grid/) gives the most cells calling TODAY their
 *    stored values is taken. None gives any: TODAY stays unbound (the workbook was computed some
 *    other day) and its cells are refused as volatile, as before.
 * NOW without a cell of its own stays unbound: the save time is not the moment it was computed.
 * A workbook that counts from 1904 keeps its calls unbound (our date serials count from 1900).
 */
import { CLOCK_ROWS, CLOCK_SHEET } from './clock-calls.js';
import { CellGrid, fromCell, gridKey } from './grid/evaluate.js';
import { cellKey, cellName, isOwnSheet, type SheetCell, type Workbook, type Worksheet } from './xlsx.js';

const CALL = /\b(TODAY|NOW)\s*\(\s*\)/gi;
const ALONE = /^\s*=?\s*(TODAY|NOW)\s*\(\s*\)\s*$/i;
/** Cells evaluated to choose TODAY's day, at most (the first found). */
const MAX_SCORED_CELLS = 2_000;
/** The evaluator's budget for that choice: it must stay small beside the conversion. */
const SCORING_LIMITS = { maxMillis: 5_000, maxEvaluations: 200_000, source: 'the clock check' };
/** Excel's day 0 (1900 system), as a Unix time in milliseconds: 1899-12-30T00:00Z. */
const EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;

/** The cells that call TODAY or NOW, per function: shared-formula followers go with their master. */
function callers(sheet: Worksheet): Map<string, SheetCell[]> {
  const byShared = new Map<string, Set<string>>();
  const out = new Map<string, SheetCell[]>();
  const add = (fn: string, cell: SheetCell): void => {
    const list = out.get(fn);
    if (list) list.push(cell);
    else out.set(fn, [cell]);
  };
  for (const cell of sheet.cells.values()) {
    const text = cell.formula?.text;
    if (text === undefined) continue;
    const fns = new Set([...text.matchAll(CALL)].map((m) => m[1]!.toUpperCase()));
    if (fns.size === 0) continue;
    for (const fn of fns) add(fn, cell);
    if (cell.formula!.shared !== undefined) byShared.set(cell.formula!.shared, fns);
  }
  if (byShared.size === 0) return out;
  for (const cell of sheet.cells.values()) {
    const f = cell.formula;
    if (!f || f.text !== undefined || f.shared === undefined) continue;
    for (const fn of byShared.get(f.shared) ?? []) add(fn, cell);
  }
  return out;
}

/** The value a cell holding exactly `=TODAY()` / `=NOW()` stored, with its address. */
function aloneValue(sheets: Worksheet[], fn: string): { value: number; where: string } | undefined {
  for (const sheet of sheets) {
    for (const cell of sheet.cells.values()) {
      const m = cell.formula?.text !== undefined ? ALONE.exec(cell.formula.text) : null;
      if (m?.[1]?.toUpperCase() === fn && typeof cell.value === 'number' && Number.isFinite(cell.value)) {
        return { value: cell.value, where: `${sheet.name}!${cellName(cell.row, cell.col)}` };
      }
    }
  }
  return undefined;
}

/** A save time as an Excel day serial (1900 system, fractional), or undefined when unreadable. */
export function serialOf(iso: string): number | undefined {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? (ms - EPOCH_MS) / DAY_MS : undefined;
}

/**
 * Adds the clock sheet to a workbook that calls TODAY or NOW and binds the calls it can give a
 * value: afterwards `formulaResolver` reads them from the clock (structure.ts). Changes nothing
 * when no call can be bound.
 */
export function bindClock(book: Workbook): void {
  const own = book.sheets.filter(isOwnSheet);
  const calls = own.map(callers);
  const uses = (fn: string): boolean => calls.some((c) => c.has(fn));
  if ((!uses('TODAY') && !uses('NOW')) || book.date1904) return;
  const found = new Map<number, string>();
  const values = new Map<string, number>();
  const now = aloneValue(own, 'NOW');
  if (now) {
    values.set('NOW', now.value);
    found.set(CLOCK_ROWS.get('NOW')!, `the value the cell ${now.where}, which holds =NOW(), stored`);
  }
  if (uses('TODAY')) {
    const today = aloneValue(own, 'TODAY');
    if (today) {
      values.set('TODAY', today.value);
      found.set(CLOCK_ROWS.get('TODAY')!, `the value the cell ${today.where}, which holds =TODAY(), stored`);
    } else if (now) {
      values.set('TODAY', Math.floor(now.value));
      found.set(CLOCK_ROWS.get('TODAY')!, `the day of the cell ${now.where}, which holds =NOW()`);
    }
  }
  const clock = clockSheet(own, values, found);
  book.sheets.push(clock);
  if (uses('TODAY') && !values.has('TODAY') && book.savedAt !== undefined) {
    const day = chooseDay(book, clock, calls, book.savedAt);
    if (day) {
      values.set('TODAY', day.serial);
      found.set(CLOCK_ROWS.get('TODAY')!, day.how);
    }
  }
  if (values.size === 0) {
    book.sheets.pop();
    return;
  }
  setClockCells(clock, values);
  const bound = new Map([...values.keys()].map((fn) => [fn, { row: CLOCK_ROWS.get(fn)! }]));
  for (const sheet of own) sheet.clockCalls = bound;
}

function clockSheet(own: Worksheet[], values: Map<string, number>, found: Map<number, string>): Worksheet {
  const clock: Worksheet = {
    name: CLOCK_SHEET,
    sheetNames: own[0]?.sheetNames ?? [],
    cells: new Map(),
    maxRow: CLOCK_ROWS.size,
    maxCol: 1,
    tables: [],
    clock: { found },
  };
  setClockCells(clock, values);
  return clock;
}

function setClockCells(clock: Worksheet, values: Map<string, number>): void {
  clock.cells.clear();
  for (const [fn, row] of CLOCK_ROWS) {
    clock.cells.set(cellKey(row, 1), { row, col: 1, value: values.get(fn) ?? null });
  }
}

/**
 * TODAY's day from the save time: the UTC day and the days either side, whichever makes the
 * independent evaluator give the most TODAY cells their stored values (the UTC day on a tie).
 */
function chooseDay(
  book: Workbook,
  clock: Worksheet,
  calls: Map<string, SheetCell[]>[],
  savedAt: string,
): { serial: number; how: string } | undefined {
  const saved = serialOf(savedAt);
  if (saved === undefined || saved < 1) return undefined;
  const utcDay = Math.floor(saved);
  const own = book.sheets.filter(isOwnSheet);
  // the grid reads TODAY from the clock for this choice only; bound for real afterwards
  const bound = new Map([['TODAY', { row: CLOCK_ROWS.get('TODAY')! }]]);
  for (const sheet of own) sheet.clockCalls = bound;
  try {
    const grid = new CellGrid(book, SCORING_LIMITS);
    const clockIndex = book.sheets.indexOf(clock);
    const scored: { sheet: number; cell: SheetCell }[] = [];
    calls.forEach((byFn, i) => {
      for (const cell of byFn.get('TODAY') ?? []) {
        if (scored.length < MAX_SCORED_CELLS) scored.push({ sheet: book.sheets.indexOf(own[i]!), cell });
      }
    });
    let best: { serial: number; matches: number } | undefined;
    for (const serial of [utcDay, utcDay - 1, utcDay + 1]) {
      const edit = [{ sheet: clockIndex, row: CLOCK_ROWS.get('TODAY')!, col: 1, value: serial }];
      const matches = grid.withEdits(
        edit,
        (recalculated) => {
          let n = 0;
          for (const { sheet, cell } of scored) {
            const key = gridKey(sheet, cell.row, cell.col);
            if (recalculated.has(key) && grid.value(sheet, cell.row, cell.col) === fromCell(cell.value)) n++;
          }
          return n;
        },
        0.3,
      );
      if (matches > (best?.matches ?? 0)) best = { serial, matches };
    }
    if (!best) return undefined;
    const date = new Date(EPOCH_MS + best.serial * DAY_MS).toISOString().slice(0, 10);
    return {
      serial: best.serial,
      how: `${date}: the file was last saved at ${savedAt}, and on that day ${best.matches} of the ${scored.length} cells calling TODAY() give the values the workbook stored`,
    };
  } finally {
    for (const sheet of own) delete sheet.clockCalls;
  }
}
