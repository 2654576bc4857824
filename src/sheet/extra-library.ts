/**
 * JSONata helpers of VALUE, DATEDIF, LARGE, SMALL and PROPER (extra-functions.ts compiles the
 * calls), each as LibreOffice computes it (the tests' oracle); an input a spreadsheet answers with
 * an error (`#VALUE!`, `#NUM!`) gives no value.
 */

/** The helpers, by name: their dependencies and JSONata bodies (see library.ts). */
export const EXTRA_HELPERS: Record<string, { deps: string[]; body: string }> = {
  // VALUE of a text: a number written with an optional sign, currency sign ($), thousands
  // separators in threes, decimals, exponent, a closing % (a hundredth) or in parentheses
  // (negative), spaces around it. A date or time written as text gives no value (the grid
  // evaluator reads it, so such a cell is rejected, never wrong). A number is itself.
  xl_value: {
    deps: [],
    body:
      'function($v) { $type($v) = "number" ? $v : $type($v) != "string" ? $nothing : ' +
      '( $s := $replace($v, /^ +| +$/, ""); $neg := $match($s, /^\\(.*\\)$/); $s := $neg ? $substring($s, 1, $length($s) - 2) : $s; ' +
      '$m := $match($s, /^([+-]?) *\\$? *([+-]?)([0-9]{1,3}(?:,[0-9]{3})+|[0-9]*)(\\.[0-9]*|)([eE][+-]?[0-9]+|)(%?)$/); ' +
      '$g := $m.groups; $not($exists($m)) or ($g[2] = "" and $length($g[3]) < 2) or ($neg and ($g[0] != "" or $g[1] != "")) or ($g[0] != "" and $g[1] != "") ? $nothing : ' +
      '( $f := $substring($g[3], 1); $n := $number(($g[2] = "" ? "0" : $replace($g[2], ",", "")) & "." & ($f = "" ? "0" : $f) & ($g[4] = "" ? "e0" : $replace($g[4], "+", ""))); ' +
      '$n := $g[5] = "%" ? $n / 100 : $n; ($neg or $g[0] = "-" or $g[1] = "-") ? -$n : $n ) ) }',
  },
  // DATEDIF(start, end, unit) over 1900 serials (whole days); the end before the start is #NUM!.
  // "MD" with the end's day before the start's counts from the start's day in the month before the
  // end's (2015-01-31 to 2015-03-01: from 2015-02-31, which is 3 March, so -2), as LibreOffice does
  xl_datedif: {
    deps: ['xl_ymd', 'xl_date'],
    body:
      'function($a, $b, $u) { ( $a := $floor($a); $b := $floor($b); $u := $uppercase($u); ' +
      '$p := $xl_ymd($a); $q := $xl_ymd($b); ' +
      '$months := ($q.y - $p.y) * 12 + $q.m - $p.m - ($q.d < $p.d ? 1 : 0); ' +
      '$b < $a ? $nothing : $u = "D" ? $b - $a : $u = "M" ? $months : $u = "Y" ? $floor($months / 12) : ' +
      '$u = "YM" ? $months % 12 : ' +
      '$u = "MD" ? ($q.d >= $p.d ? $q.d - $p.d : $b - $xl_date($q.y, $q.m - 1, $p.d)) : ' +
      '$u = "YD" ? ( $s := $xl_date($q.y, $p.m, $p.d); $s > $b ? $b - $xl_date($q.y - 1, $p.m, $p.d) : $b - $s ) : $nothing ) }',
  },
  // LARGE and SMALL: the k-th largest (or smallest) of the numbers, ties counted each time; k below
  // 1 or past their count is #NUM!
  xl_kth: {
    deps: [],
    body:
      'function($a, $k, $large) { ( $s := $sort($a); $n := $count($s); $k := $ceil($k); ' +
      '$k < 1 or $k > $n ? $nothing : $large ? $s[$n - $k] : $s[$k - 1] ) }',
  },
  // PROPER: each run of letters with its first letter upper case and the rest lower case (a digit,
  // an apostrophe or a space starts a new run: "o\'neil 2nd" is "O\'Neil 2Nd")
  xl_proper: {
    deps: [],
    body:
      'function($s) { $replace($s, /[A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F]+/, function($m) { ' +
      '$uppercase($substring($m.match, 0, 1)) & $lowercase($substring($m.match, 1)) }) }',
  },
};
