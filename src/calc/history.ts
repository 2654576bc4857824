/**
 * How a durable store keeps the history ring (`get_state` with `at`): one row per committed cycle,
 * written beside the cycle's audit record, instead of the whole ring inside every state text. A
 * cycle then writes one entry (~100 bytes) rather than fifty (~8 KB), and the state a store hashes
 * and writes each cycle stays the size of the model.
 *
 * A row holds the cycle's own changes and, as `before`, what was written between the previous
 * cycle and this one (lazy values read in between): that is the previous entry's `after`, which
 * stops growing the moment this cycle commits. The ring is rebuilt from the newest rows.
 */
import { loadReplayEntry, type ReplayEntry, type StoredReplayEntry } from './document.js';
import type { JsonValue } from './json.js';
import { isForbiddenKey } from './safe-keys.js';
import type { HistoryEntry, StoredHistoryEntry } from './traces.js';

/** One cycle's history row as stored. */
interface HistoryRow {
  timestamp: number;
  before: StoredReplayEntry[];
  changes: StoredReplayEntry[];
}

/** The entries as stored; values are not copied (the row is printed at once, never kept). */
function stored(entries: readonly ReplayEntry[]): StoredReplayEntry[] {
  const out: StoredReplayEntry[] = [];
  for (const e of entries) {
    if (!e.path) continue;
    const path = e.path.slice(0, e.depth);
    if (e.kind === 'length') out.push({ kind: 'length', path, length: e.length });
    else if (e.had) out.push({ kind: 'key', path, had: true, old: e.old as JsonValue });
    else out.push({ kind: 'key', path, had: false });
  }
  return out;
}

/** The row of `entry`, given the `after` of the entry before it (empty for the first). */
export function historyRowText(entry: HistoryEntry, before: readonly ReplayEntry[]): string {
  const row: HistoryRow = {
    timestamp: entry.timestamp,
    before: stored(before),
    changes: stored(entry.changes),
  };
  return JSON.stringify(row);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A row is read back from a database others can write: its entries are replayed, so check them. */
function isEntry(v: unknown): v is StoredReplayEntry {
  if (!isRecord(v) || !Array.isArray(v.path)) return false;
  const pathOk = v.path.every(
    (s) => (typeof s === 'string' && !isForbiddenKey(s)) || (Number.isSafeInteger(s) && (s as number) >= 0),
  );
  if (!pathOk) return false;
  if (v.kind === 'length') return Number.isSafeInteger(v.length) && (v.length as number) >= 0;
  return v.kind === 'key' && typeof v.had === 'boolean';
}

function isRow(v: unknown): v is HistoryRow {
  return (
    isRecord(v) &&
    typeof v.timestamp === 'number' &&
    Array.isArray(v.before) &&
    Array.isArray(v.changes) &&
    v.before.every(isEntry) &&
    v.changes.every(isEntry)
  );
}

/**
 * The ring rebuilt from the newest rows, oldest first (`undefined`/`null`: a cycle with no row, such
 * as a restore or an evolution, which start history afresh, or a trail written before rows
 * existed). Only the unbroken run of rows at the end counts; a row that does not parse ends the run
 * as a missing one does (history is a convenience: a damaged row shortens it, it never fails a load).
 */
export function historyFromRows(rows: readonly (string | null | undefined)[]): StoredHistoryEntry[] {
  const parsed: HistoryRow[] = [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const text = rows[i];
    if (typeof text !== 'string') break;
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch {
      break;
    }
    if (!isRow(row)) break;
    parsed.push(row);
  }
  parsed.reverse();
  return parsed.map((row, i) => ({
    timestamp: row.timestamp,
    changes: row.changes,
    // what came after a cycle is stored as the next cycle's `before`; the newest has none yet
    after: parsed[i + 1]?.before ?? [],
  }));
}

/** The rows a stored ring (a state written before rows existed) becomes, oldest first. */
export function historyRowsOf(ring: readonly StoredHistoryEntry[]): string[] {
  return ring.map((entry, i) =>
    historyRowText(
      { timestamp: entry.timestamp, changes: entry.changes.map(loadReplayEntry), after: [] },
      (ring[i - 1]?.after ?? []).map(loadReplayEntry),
    ),
  );
}
