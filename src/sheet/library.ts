/**
 * The spec's library as the compiler builds it: Excel helpers (only those used) and one table plus
 * one lookup function per VLOOKUP side table.
 */
import type { JsonValue } from '../calc/index.js';

const HELPERS: Record<string, { deps: string[]; body: string }> = {
  xl_num: {
    deps: [],
    // the workbook stores 15 significant digits; so does this
    body: 'function($x) { $type($x) = "number" ? $number($string($x)) : $x }',
  },
  xl_round: {
    deps: [],
    // half away from zero; the scaled value is read at 15 significant digits first, so that
    // 1.005 (stored as 1.00499999…) rounds to 1.01 as it does in a spreadsheet
    body:
      'function($x, $d) { ( $d := $d >= 0 ? $floor($d) : -$floor(-$d); $a := $abs($x); ' +
      '$r := $floor($number($string($a * $power(10, $d))) + 0.5); ' +
      '$v := $d >= 0 ? $r / $power(10, $d) : $r * $power(10, -$d); $x < 0 ? -$v : $v ) }',
  },
  xl_eq: {
    deps: [],
    body: 'function($a, $b) { $type($a) = "string" and $type($b) = "string" ? $lowercase($a) = $lowercase($b) : $a = $b }',
  },
  xl_text: {
    deps: [],
    body: 'function($v) { $exists($v) ? ($type($v) = "boolean" ? ($v ? "TRUE" : "FALSE") : $type($v) = "null" ? "" : $string($v)) : "" }',
  },
  xl_trim: { deps: [], body: 'function($s) { $replace($replace($s, /^ +| +$/, ""), / {2,}/, " ") }' },
  xl_right: { deps: [], body: 'function($s, $n) { $substring($s, $max([0, $length($s) - $n])) }' },
  xl_nums: { deps: [], body: 'function($a) { $filter($a, function($v) { $type($v) = "number" }) }' },
  xl_count: { deps: ['xl_nums'], body: 'function($a) { $count($xl_nums($a)) }' },
  xl_min: { deps: [], body: 'function($a) { $count($a) = 0 ? 0 : $min($a) }' },
  xl_max: { deps: [], body: 'function($a) { $count($a) = 0 ? 0 : $max($a) }' },
};

export type HelperName = keyof typeof HELPERS;

export class LibraryBuilder {
  private readonly helpers = new Set<string>();
  private readonly tables: { range: string; rows: JsonValue[] }[] = [];

  /** Marks a helper as used and returns its call prefix (`$xl_round`). */
  use(name: HelperName): string {
    this.helpers.add(name);
    for (const d of HELPERS[name]!.deps) this.helpers.add(d);
    return `$${name}`;
  }

  /** Registers a side table (deduplicated by range) and returns its lookup function's name. */
  table(range: string, rows: JsonValue[]): string {
    let i = this.tables.findIndex((t) => t.range === range);
    if (i < 0) {
      this.tables.push({ range, rows });
      i = this.tables.length - 1;
    }
    this.use('xl_eq');
    return `vlookup_${i + 1}`;
  }

  /** A fresh builder with the same side tables (so function names stay stable across passes). */
  clone(): LibraryBuilder {
    const b = new LibraryBuilder();
    b.tables.push(...this.tables);
    return b;
  }

  /** The library definition, or undefined when nothing is used. */
  define(usedTables: Set<string>): string | undefined {
    const lines: string[] = [];
    const exports: string[] = [];
    for (const name of Object.keys(HELPERS)) {
      if (!this.helpers.has(name)) continue;
      lines.push(`  $${name} := ${HELPERS[name]!.body};`);
      exports.push(name);
    }
    this.tables.forEach((t, i) => {
      const fn = `vlookup_${i + 1}`;
      if (!usedTables.has(fn)) return;
      const table = `lookup_table_${i + 1}`;
      lines.push(`  $${table} := ${JSON.stringify(t.rows)};`);
      lines.push(
        `  $${fn} := function($key) { ( $m := $filter($${table}, function($r) { $xl_eq($r.c1, $key) }); $m[0] ) };`,
      );
      exports.push(table, fn);
    });
    if (exports.length === 0) return undefined;
    return `(\n${lines.join('\n')}\n  ${JSON.stringify(exports)}\n)`;
  }
}
