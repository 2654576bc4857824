/**
 * The JSONata pieces conditional aggregates are written with (criteria.ts): how each aggregate
 * reduces the rows that meet the criteria, the totals a grouped or ordered read keeps, and the
 * operator a criterion writes.
 */
import type { Formula } from './formula.js';

export type Aggregate = 'COUNT' | 'SUM' | 'AVERAGE' | 'MAX' | 'MIN';

export const printAgg = (agg: Aggregate): string => `${agg}IF(S)`;

const SUM = 'function($a, $b) { $a + $b }';
/** Digits of a row position in the running count's sorted entries: a billion rows. */
export const POSITION_DIGITS = 9;
/** Per aggregate: the running totals an ordered read needs (key, a group's total of list `$l`, how totals combine, the start). */
export const RUNS: Record<Aggregate, [string, string, string, string][]> = {
  COUNT: [['n', '$count($l)', SUM, '0']],
  SUM: [['s', '$sum([$l.v[$type($) = "number"]])', SUM, '0']],
  AVERAGE: [
    ['s', '$sum([$l.v[$type($) = "number"]])', SUM, '0'],
    ['c', '$count([$l.v[$type($) = "number"]])', SUM, '0'],
  ],
  MAX: [['hi', '$max([$l.v[$type($) = "number"]])', 'function($a, $b) { $max([$a, $b]) }', '$nothing']],
  MIN: [['lo', '$min([$l.v[$type($) = "number"]])', 'function($a, $b) { $min([$a, $b]) }', '$nothing']],
};

/** Totals of a list `l` of entries `{v}`: rows, sum, count, max and min of the numbers. */
export const totals = (l: string): string =>
  // the numbers are picked once (four picks were most of a grouped aggregate's time)
  `($t_nums := [${l}.v[$type($) = "number"]]; ` +
  `{"n": $count(${l}), "s": $sum($t_nums), "c": $count($t_nums), "hi": $max($t_nums), "lo": $min($t_nums)})`;

/** The aggregate of `v` (or a count) over `rows` where `cond` holds. */
export function reduce(
  agg: Aggregate,
  each: (expr: string) => string,
  cond: string,
  v: string,
  helper: (h: 'xl_max' | 'xl_min') => string,
): string {
  const pick = each(`${cond} and $type(${v}) = "number" ? ${v} : $nothing`);
  switch (agg) {
    case 'COUNT':
      return `$sum([${each(`${cond} ? 1 : 0`)}])`;
    case 'SUM':
      return `$sum([${pick}])`;
    case 'AVERAGE':
      // no matching number: #DIV/0! in a spreadsheet, no value here
      return `$average([${pick}])`;
    case 'MAX':
      return `${helper('xl_max')}([${pick}])`;
    case 'MIN':
      return `${helper('xl_min')}([${pick}])`;
  }
}

/**
 * The operator a criterion writes before a value it builds (`">"&A2` gives ">"), "=" for a criterion
 * with none written (a cell, a number), undefined when it cannot be told before the model runs.
 */
export function operatorOf(c: Formula): string | undefined {
  if (c.kind === 'binary' && c.op === '&' && c.left.kind === 'string') {
    const m = /^(<=|>=|<>|<|>|=)?$/.exec(c.left.value);
    return m ? (m[1] ?? undefined) : undefined;
  }
  if (c.kind === 'string') return /^(<=|>=|<>|<|>|=)/.exec(c.value)?.[1] ?? '=';
  return undefined;
}

/** Entries per block of `groupEntries` (and so at most as many groups evaluated at once). */
const GROUP_BLOCK = 400;

/**
 * JSONata grouping `entries` (an array of objects with a text `k`) by `k`, as `entries{ k: [$] }`
 * groups them (each key's entries in their order, keys in order of first appearance), a block of
 * entries at a time: JSONata's grouping evaluates all its groups at once, each pending evaluation
 * counts toward the depth guard, and past about a thousand groups it fails (D1011) though nothing
 * recurses. Written into the derivation, not the library: a library function reads no paths.
 */
export const groupEntries = (entries: string): string =>
  `( $gb_e := ${entries}; $count($gb_e) = 0 ? {} : ( ` +
  `$gb_b := [$gb_e#$gb_i.{"b": $string($floor($gb_i / ${GROUP_BLOCK})), "e": $}]{ b: [e] }; ` +
  `$reduce([0..$floor(($count($gb_e) - 1) / ${GROUP_BLOCK})], function($gb_acc, $gb_j) { ( ` +
  `$gb_g := $lookup($gb_b, $string($gb_j)){ k: [$] }; ` +
  `$merge([$gb_acc, $each($gb_g, function($gb_l, $gb_k) { {$gb_k: $append($lookup($gb_acc, $gb_k), $gb_l)} })]) ) }, {}) ) )`;
