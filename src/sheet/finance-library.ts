/**
 * JSONata helpers of the depreciation, loan, growth, year-fraction and paired-statistics functions
 * (finance.ts compiles the calls). Each follows LibreOffice's own computation, the oracle the tests
 * check them against, step for step where the order of operations changes the last bits; an
 * argument a spreadsheet answers with an error (`#NUM!`, `#DIV/0!`) gives no value.
 */

/** The helpers, by name: their dependencies and JSONata bodies (see library.ts). */
export const FINANCE_HELPERS: Record<string, { deps: string[]; body: string }> = {
  // straight-line depreciation per period
  xl_sln: { deps: [], body: 'function($c, $s, $l) { $l = 0 ? $nothing : ($c - $s) / $l }' },
  // sum-of-years' digits depreciation of period $p (1 … life)
  xl_syd: {
    deps: [],
    body:
      'function($c, $s, $l, $p) { $l <= 0 or $p < 1 or $p > $l ? $nothing : ' +
      '(($c - $s) * ($l - $p + 1)) / (($l * ($l + 1)) / 2) }',
  },
  // declining-balance depreciation at $f times the straight-line rate, never below the salvage
  xl_ddb: {
    deps: [],
    body:
      'function($c, $s, $l, $p, $f) { $c < 0 or $s < 0 or $f <= 0 or $s > $c or $p < 1 or $p > $l ? $nothing : ' +
      '( $r := $f / $l; $old := $r >= 1 ? ($p = 1 ? $c : 0) : $c * $power(1 - $r, $p - 1); ' +
      '$new := $c * $power(1 - ($r >= 1 ? 1 : $r), $p); $d := $new < $s ? $old - $s : $old - $new; $d < 0 ? 0 : $d ) }',
  },
  // the principal part of payment $per: the payment less its interest part
  xl_ppmt: {
    deps: ['xl_pmt', 'xl_ipmt'],
    body:
      'function($r, $per, $n, $pv, $fv, $t) { $per < 1 or $per > $n ? $nothing : ' +
      '$xl_pmt($r, $n, $pv, $fv, $t) - $xl_ipmt($r, $per, $n, $pv, $fv, $t) }',
  },
  // the equivalent rate of growth per period
  xl_rri: {
    deps: [],
    body: 'function($n, $pv, $fv) { $n <= 0 or $pv = 0 or $fv / $pv < 0 ? $nothing : $power($fv / $pv, 1 / $n) - 1 }',
  },
  // YEARFRAC: the fraction of a year between two serials, by day-count basis 0 (US 30/360), 1
  // (actual/actual), 2 (actual/360), 3 (actual/365) or 4 (European 30/360); the order of the two
  // dates does not matter. Basis 1 divides by 366 when the span is at most a year and lies in one
  // leap year, or takes in a 29 February (or ends on one), else by 365; a longer span divides by
  // the average length of the years it touches
  xl_yearfrac: {
    deps: ['xl_ymd', 'xl_date'],
    body:
      'function($a, $b, $m) { ( $s := $floor($a); $e := $floor($b); $m := $floor($m); ' +
      '$m < 0 or $m > 4 or $s < 0 or $e < 0 ? $nothing : $s = $e ? 0 : ( ' +
      '$lo := $s < $e ? $s : $e; $hi := $s < $e ? $e : $s; $p := $xl_ymd($lo); $q := $xl_ymd($hi); ' +
      '$leap := function($y) { ($y % 4 = 0 and $y % 100 != 0) or $y % 400 = 0 }; ' +
      '$d1 := $p.d = 31 ? 30 : $p.d; ' +
      '$febEnd1 := $p.m = 2 and $d1 = ($leap($p.y) ? 29 : 28); $febEnd2 := $q.m = 2 and $q.d = ($leap($q.y) ? 29 : 28); ' +
      '$us := $d1 = 30 and $q.d = 31 ? [$d1, 30] : $febEnd1 ? [30, $febEnd2 ? 30 : $q.d] : [$d1, $q.d]; ' +
      '$eu := [$d1, $q.d = 31 ? 30 : $q.d]; ' +
      '$days := $m = 0 ? ($q.y - $p.y) * 360 + ($q.m - $p.m) * 30 + ($us[1] - $us[0]) : ' +
      '$m = 4 ? ($q.y - $p.y) * 360 + ($q.m - $p.m) * 30 + ($eu[1] - $eu[0]) : $hi - $lo; ' +
      '$short := $p.y = $q.y or ($q.y = $p.y + 1 and ($p.m > $q.m or ($p.m = $q.m and $p.d >= $q.d))); ' +
      '$m1 := $xl_date($p.y, 3, 1); $m2 := $xl_date($q.y, 3, 1); ' +
      '$feb29 := ($leap($p.y) and $lo < $m1 and $hi >= $m1) or ($leap($q.y) and $hi >= $m2 and $lo < $m2); ' +
      '$year := $m = 3 ? 365 : $m != 1 ? 360 : ' +
      '$not($short) ? $sum($map([$p.y..$q.y], function($y) { $leap($y) ? 366 : 365 })) / ($q.y - $p.y + 1) : ' +
      '($p.y = $q.y and $leap($p.y)) or $feb29 or ($q.m = 2 and $q.d = 29) ? 366 : 365; ' +
      '$days / $year ) ) }',
  },
  // the pairs of two equally long lists where both are numbers (a blank or text on either side
  // drops the pair), summarised: count, means, sums of squared and crossed deviations; no value
  // when the lists differ in length
  xl_pairs: {
    deps: ['xl_arr'],
    body:
      'function($ys, $xs) { ( $ys := $xl_arr($ys); $xs := $xl_arr($xs); $count($ys) != $count($xs) ? $nothing : ( ' +
      '$ps := $filter($zip($ys, $xs), function($p) { $type($p[0]) = "number" and $type($p[1]) = "number" }); ' +
      '$y := $map($ps, function($p) { $p[0] }); $x := $map($ps, function($p) { $p[1] }); $n := $count($ps); ' +
      '$my := $n = 0 ? 0 : $sum($y) / $n; $mx := $n = 0 ? 0 : $sum($x) / $n; ' +
      '{"n": $n, "my": $my, "mx": $mx, ' +
      '"sxx": $sum($map($x, function($v) { ($v - $mx) * ($v - $mx) })), ' +
      '"syy": $sum($map($y, function($v) { ($v - $my) * ($v - $my) })), ' +
      '"sxy": $sum($map($ps, function($p) { ($p[1] - $mx) * ($p[0] - $my) }))} ) ) }',
  },
  xl_slope: {
    deps: ['xl_pairs'],
    body: 'function($ys, $xs) { ( $s := $xl_pairs($ys, $xs); $s.n = 0 or $s.sxx = 0 ? $nothing : $s.sxy / $s.sxx ) }',
  },
  xl_intercept: {
    deps: ['xl_pairs'],
    body: 'function($ys, $xs) { ( $s := $xl_pairs($ys, $xs); $s.n = 0 or $s.sxx = 0 ? $nothing : $s.my - $s.sxy / $s.sxx * $s.mx ) }',
  },
  xl_forecast: {
    deps: ['xl_pairs'],
    body: 'function($v, $ys, $xs) { ( $s := $xl_pairs($ys, $xs); $s.n = 0 or $s.sxx = 0 ? $nothing : $s.my + $s.sxy / $s.sxx * ($v - $s.mx) ) }',
  },
  xl_correl: {
    deps: ['xl_pairs'],
    body: 'function($ys, $xs) { ( $s := $xl_pairs($ys, $xs); $s.n = 0 or $s.sxx * $s.syy = 0 ? $nothing : $s.sxy / $sqrt($s.sxx * $s.syy) ) }',
  },
  xl_rsq: {
    deps: ['xl_correl'],
    body: 'function($ys, $xs) { ( $r := $xl_correl($ys, $xs); $exists($r) ? $r * $r : $nothing ) }',
  },
  // COVARIANCE.S ($d = 1) and COVARIANCE.P ($d = 0)
  xl_covar: {
    deps: ['xl_pairs'],
    body: 'function($ys, $xs, $d) { ( $s := $xl_pairs($ys, $xs); $s.n - $d <= 0 ? $nothing : $s.sxy / ($s.n - $d) ) }',
  },
  // VAR.S ($d = 1) and VAR.P ($d = 0) of numbers
  xl_var: {
    deps: [],
    body:
      'function($a, $d) { ( $n := $count($a); $m := $n = 0 ? 0 : $sum($a) / $n; ' +
      '$n - $d <= 0 ? $nothing : $sum($map($a, function($v) { ($v - $m) * ($v - $m) })) / ($n - $d) ) }',
  },
};
