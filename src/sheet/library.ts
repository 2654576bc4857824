/**
 * The spec's library as the compiler builds it: Excel helpers (only those used) and one table plus
 * one lookup function per VLOOKUP side table.
 */
import type { JsonValue } from '../calc/index.js';
import { CRITERIA_HELPERS } from './criteria-library.js';
import { FINANCE_HELPERS } from './finance-library.js';
import { EXTRA_HELPERS } from './extra-library.js';
import { fieldName } from './fields.js';

const HELPERS: Record<string, { deps: string[]; body: string }> = {
  // ROUND as LibreOffice's rtl::math::round computes it (grid/rounding.ts, spreadsheetRound, is the
  // same in TypeScript): to 0 digits the double rounded half away from zero; else scaled by 10^d
  // (10^-k as its literal, not $power's), then floor(s + 0.5 + a correction of 9e-15 relative), so
  // that 3*1.9*0.75 (4.2749999999999995, shown 4.275) rounds to 4.28 as in a spreadsheet
  xl_round: {
    deps: ['xl_pow10'],
    body:
      'function($x, $d) { ( $d := $d >= 0 ? $floor($d) : -$floor(-$d); $a := $abs($x); ' +
      '$not($exists($x)) or $x = 0 or $a > 1e288 ? $x : $d < -20 or $d > 20 ? $nothing : $d = 0 ? ' +
      '( $f := $floor($a); $r := $a - $f >= 0.5 ? $f + 1 : $f; $x < 0 ? -$r : $r ) : ' +
      '( $k := $xl_pow10($d); $s := $a * $k; ' +
      '$i := $s < 1 ? 15 : $s >= 100000000000000 ? 0 : 16 - $length($string($floor($s))); ' +
      '$r := $floor($s + 0.5 + [0, 9e-1, 9e-2, 9e-3, 9e-4, 9e-5, 9e-6, 9e-7, 9e-8, 9e-9, 9e-10, 9e-11, 9e-12, 9e-13, 9e-14, 9e-15][$i]) / $k; $x < 0 ? -$r : $r ) ) }',
  },
  // TEXT's rounding of a number to its format's decimals (textformat.ts): half away from zero, the
  // scaled value read at 15 significant digits first, as numfmt (the grid evaluator's TEXT) does
  xl_fmtround: {
    deps: [],
    body:
      'function($x, $d) { ( $a := $abs($x); ' +
      '$r := $floor($number($string($a * $power(10, $d))) + 0.5) / $power(10, $d); $x < 0 ? -$r : $r ) }',
  },
  // 10^d for a whole d of -20…20 as LibreOffice scales by it: 1e-4 is the literal (V8's
  // Math.pow(10, -4), which $power is, is not the double nearest it)
  xl_pow10: {
    deps: [],
    body: 'function($d) { $d >= 0 ? $power(10, $d) : [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18, 1e-19, 1e-20][-$d - 1] }',
  },
  // a value as ROUNDUP and ROUNDDOWN take its ceiling or floor (rtl::math::approxValue): read at 15
  // significant digits, unless it is whole or has at most 11 binary digits after the point; below
  // 0.1 it is as it is (no rounding at 15 digits takes it to or past a whole number)
  xl_approx15: {
    deps: [],
    body:
      'function($v) { $v = 0 or $v > 2199023255552 or $v < 0.1 or $v = $floor($v) or $v * 2048 = $floor($v * 2048) ? $v : ' +
      '( $k := $power(10, 15 - ($v < 1 ? 0 : $length($string($floor($v))))); $s := $v * $k; $f := $floor($s); ' +
      '($s - $f >= 0.5 ? $f + 1 : $f) / $k ) }',
  },
  // a + b as a spreadsheet adds: a sum that cancels to within the last bits of its operands
  // (relative CANCEL_BELOW, the workbook's: cancellation.ts) is 0, as LibreOffice's
  // approxAdd/approxSub and Excel's last step give it (=H1-SUM(E2:E4) over the same amounts is 0,
  // not -5.7e-14); the grid evaluator's approxAdd
  xl_add: {
    deps: [],
    body:
      'function($a, $b) { ( $s := $a + $b; (($a < 0 and $b > 0) or ($a > 0 and $b < 0)) and ' +
      '$abs($s) < $abs($a) * CANCEL_BELOW and $abs($s) < $abs($b) * CANCEL_BELOW ? 0 : $s ) }',
  },
  // the order of two values for <, <=, =, …: numbers within the last bits of each other (relative
  // 2^-48, approxEqual) are equal, as a spreadsheet compares them; no value when one is missing
  // (the comparison is then false, as JSONata's own is). Values of two types are ordered as Excel
  // orders them, numbers < text < booleans (`="">1` is TRUE: the blank of `IF(C12="","",…)` above
  // a schedule's test `=IF(H11>1,…)`), where JSONata's < throws; a blank (null) is the other
  // side's blank, 0, "" or FALSE (grid/values.ts, compare); text compares without case
  xl_ncmp: {
    deps: ['xl_blankas', 'xl_rank'],
    body:
      'function($a, $b) { $exists($a) and $exists($b) ? ( $type($a) = "number" and $type($b) = "number" ? ' +
      '( $d := $abs($a - $b); $a = $b or ($d < $abs($a) * 3.552713678800501e-15 and $d < $abs($b) * 3.552713678800501e-15) ' +
      '? 0 : $a < $b ? -1 : 1 ) : ( $x := $xl_blankas($a, $b); $y := $xl_blankas($b, $a); ' +
      '$rx := $xl_rank($x); $ry := $xl_rank($y); $rx != $ry ? ($rx < $ry ? -1 : 1) : $rx = 0 ? ($x = $y ? 0 : $x < $y ? -1 : 1) : ' +
      '$rx = 1 ? ( $l := $lowercase($x); $r := $lowercase($y); $l = $r ? 0 : $l < $r ? -1 : 1 ) : ($x = $y ? 0 : $x ? 1 : -1) ) ) }',
  },
  // a blank (null) compared with `$other`: the blank of the other's type (0, "" or FALSE)
  xl_blankas: {
    deps: [],
    body: 'function($v, $other) { $type($v) = "null" ? ($type($other) = "string" ? "" : $type($other) = "boolean" ? false : 0) : $v }',
  },
  // a value's place in Excel's order of types: numbers, text, booleans
  xl_rank: {
    deps: [],
    body: 'function($v) { $type($v) = "number" ? 0 : $type($v) = "string" ? 1 : $type($v) = "boolean" ? 2 : 3 }',
  },
  // = between values of unknown type: numbers as xl_ncmp, anything else as xl_eq
  xl_eqv: {
    deps: ['xl_ncmp', 'xl_eq'],
    // an error on either side (no value) makes the comparison that error
    body: 'function($a, $b) { $not($exists($a)) or $not($exists($b)) ? $nothing : $type($a) = "number" and $type($b) = "number" ? $xl_ncmp($a, $b) = 0 : $xl_eq($a, $b) }',
  },
  xl_eq: {
    deps: [],
    body: 'function($a, $b) { $type($a) = "string" and $type($b) = "string" ? $lowercase($a) = $lowercase($b) : $a = $b }',
  },
  xl_text: {
    deps: [],
    body: 'function($v) { $exists($v) ? ($type($v) = "boolean" ? ($v ? "TRUE" : "FALSE") : $type($v) = "null" ? "" : $string($v)) : "" }',
  },
  // a blank side cell read anywhere but in text (functions.ts): its "" (or no value) is 0
  xl_blank0: { deps: [], body: 'function($v) { $exists($v) and $v != "" and $type($v) != "null" ? $v : 0 }' },
  xl_trim: { deps: [], body: 'function($s) { $replace($replace($s, /^ +| +$/, ""), / {2,}/, " ") }' },
  xl_right: { deps: [], body: 'function($s, $n) { $substring($s, $max([0, $length($s) - $n])) }' },
  // a cell as SUMPRODUCT multiplies it: a number, else 0; an error (no value, NaN, ±Infinity) kept
  xl_num0: {
    deps: [],
    body: 'function($v) { $not($exists($v)) ? $nothing : ($v != $v or $v = 1/0 or $v = -1/0) ? $v : $type($v) = "number" ? $v : 0 }',
  },
  xl_nums: { deps: [], body: 'function($a) { $filter($a, function($v) { $type($v) = "number" }) }' },
  xl_count: { deps: ['xl_nums'], body: 'function($a) { $count($xl_nums($a)) }' },
  xl_min: { deps: [], body: 'function($a) { $count($a) = 0 ? 0 : $min($a) }' },
  xl_max: { deps: [], body: 'function($a) { $count($a) = 0 ? 0 : $max($a) }' },
  // an Excel error shows here as no value (a lookup that found nothing) or a number that is not finite
  xl_iserr: {
    deps: [],
    // NaN (0/0) is caught by $v != $v and ±Infinity (x/0, #DIV/0!) by = without asking the type:
    // JSONata's $type throws D1001 on Infinity, which made IFERROR((K7-L7)/L7,0) no value at L7 = 0
    body: 'function($v) { $not($exists($v)) or $v != $v or $v = 1/0 or $v = -1/0 }',
  },
  // a lookup key as Excel's exact match compares: text without case, numbers at 15 digits; a
  // one-letter prefix per type keeps keys apart and off Object.prototype's names; "x" for an error
  xl_key: {
    deps: [],
    body:
      'function($v) { $type($v) = "string" ? "s" & $lowercase($v) : $type($v) = "number" ? ' +
      '($v != $v or $v = 1/0 or $v = -1/0 ? "x" : "n" & $string($v)) : $type($v) = "boolean" ? "b" & $string($v) : ' +
      '$type($v) = "null" ? "e" : "x" }',
  },
  xl_arr: { deps: [], body: 'function($l) { $type($l) = "array" ? $l : $exists($l) ? [$l] : [] }' },
  // Excel's order of a sort (spill.ts): numbers, then text without case, then FALSE, TRUE; -1, 0, 1
  xl_cmp: {
    deps: [],
    body:
      'function($x, $y) { ( $k := function($v) { $type($v) = "number" ? 0 : $type($v) = "string" ? 1 : $type($v) = "boolean" ? 2 : 3 }; ' +
      '$a := $k($x); $b := $k($y); $a != $b ? ($a < $b ? -1 : 1) : $a = 1 ? ( $l := $lowercase($x); $r := $lowercase($y); $l < $r ? -1 : $l > $r ? 1 : 0 ) : ' +
      '$a = 2 ? ($x = $y ? 0 : $x ? 1 : -1) : $a = 0 ? ($x < $y ? -1 : $x > $y ? 1 : 0) : 0 ) }',
  },
  // UNIQUE: each value once, in the order first seen; text compared without case, as Excel does
  xl_unique: {
    deps: ['xl_arr', 'xl_eq'],
    body: 'function($a) { $reduce($xl_arr($a), function($acc, $v) { $count($filter($acc, function($w) { $xl_eq($w, $v) })) > 0 ? $acc : $append($acc, [$v]) }, []) }',
  },
  xl_match: {
    deps: ['xl_arr', 'xl_eq'],
    body:
      'function($x, $l) { ( $m := $filter($map($xl_arr($l), function($v, $i) { {"v": $v, "i": $i} }), ' +
      'function($o) { $xl_eq($o.v, $x) }); $m[0].i + 1 ) }',
  },
  // an exact lookup's key as a wildcard pattern (xl_pattern) when it is text holding `*`, `?` or
  // `~` (MATCH 0, VLOOKUP/HLOOKUP FALSE: Excel reads wildcards there); no value otherwise
  xl_wild: {
    deps: ['xl_pattern'],
    body: 'function($x) { $type($x) = "string" and $contains($x, /[*?~]/) ? $xl_pattern($lowercase($x)) : $nothing }',
  },
  // MATCH 0, VLOOKUP/HLOOKUP exact over a list: xl_match, reading the key's wildcards (a key
  // without any is xl_match's, at its cost)
  xl_wmatch: {
    deps: ['xl_arr', 'xl_wild', 'xl_glob', 'xl_match'],
    body:
      'function($x, $l) { ( $w := $xl_wild($x); $exists($w) ? ( $m := $filter($map($xl_arr($l), function($v, $i) { {"v": $v, "i": $i} }), ' +
      'function($o) { $type($o.v) = "string" and $xl_glob($lowercase($o.v), $w) }); $m[0].i + 1 ) : $xl_match($x, $l) ) }',
  },
  // the first row of $rows whose field $f holds text matching pattern $w (xl_wild), as an index
  // entry {i: position from 1, r: the row}: MATCH 0 or INDEX/MATCH over a table column with a
  // wildcard key
  xl_wfind: {
    deps: ['xl_arr', 'xl_glob'],
    body:
      'function($rows, $f, $w) { ( $m := $filter($map($xl_arr($rows), function($r, $i) { {"i": $i + 1, "r": $r} }), ' +
      'function($o) { ( $v := $lookup($o.r, $f); $type($v) = "string" and $xl_glob($lowercase($v), $w) ) }); $m[0] ) }',
  },
  // MATCH type 1 ($d = 1) or -1 ($d = -1), VLOOKUP/HLOOKUP's approximate match: among the values
  // of $x's type (text without case, blanks skipped), the position of the last one not above $x
  // (not below it for -1). Only on a list sorted that way; an unsorted one gives no value, since
  // each spreadsheet then answers by the steps of its own binary search
  xl_approx: {
    deps: ['xl_arr'],
    body:
      'function($x, $l, $d) { ( $t := $type($x); $k := function($v) { $t = "string" ? $lowercase($v) : $v }; ' +
      '$c := $xl_arr($filter($map($xl_arr($l), function($v, $i) { {"v": $v, "i": $i} }), function($o) { $type($o.v) = $t })); ' +
      '$ks := $xl_arr($c.($k(v))); $s := $xl_arr($sort($ks)); ' +
      '$t in ["number", "string"] and $string($d > 0 ? $s : $reverse($s)) = $string($ks) ? ' +
      '( $kx := $k($x); $m := $xl_arr($filter($c, function($o) { $d > 0 ? $k($o.v) <= $kx : $k($o.v) >= $kx })); ' +
      '$count($m) > 0 ? $m[-1].i + 1 : $nothing ) : $nothing ) }',
  },
  // XLOOKUP/XMATCH: $mode 0 exact, -1 exact or the next smaller, 1 exact or the next larger (any
  // order: a linear search); $search 1 the first such position, -1 the last
  xl_xmatch: {
    deps: ['xl_arr'],
    body:
      'function($x, $l, $mode, $search) { ( $t := $type($x); $k := function($v) { $t = "string" ? $lowercase($v) : $v }; ' +
      '$c := $xl_arr($filter($map($xl_arr($l), function($v, $i) { {"v": $v, "i": $i} }), function($o) { $type($o.v) = $t })); ' +
      '$kx := $k($x); $mode != 0 and $not($t in ["number", "string"]) ? $nothing : ' +
      '( $ok := $xl_arr($filter($c, function($o) { $mode = 0 ? $k($o.v) = $kx : $mode < 0 ? $k($o.v) <= $kx : $k($o.v) >= $kx })); ' +
      '$s := $xl_arr($sort($xl_arr($ok.($k(v))))); $best := $mode < 0 ? $s[-1] : $s[0]; ' +
      '$hits := $xl_arr($filter($ok, function($o) { $k($o.v) = $best })); ' +
      '$count($hits) = 0 ? $nothing : ($search < 0 ? $hits[-1] : $hits[0]).i + 1 ) ) }',
  },
  // CLEAN: the control characters 0-31 removed
  xl_clean: { deps: [], body: 'function($s) { $replace($s, /[\\x00-\\x1f]/, "") }' },
  xl_mod: { deps: [], body: 'function($a, $b) { $b = 0 ? $nothing : $a - $b * $floor($a / $b) }' },
  // ROUNDUP and ROUNDDOWN as LibreOffice computes them: the scaled value's ceiling or floor, read
  // at 15 significant digits (xl_approx15), so ROUNDDOWN(584.24, 2) is 584.24, not 584.23
  xl_roundup: {
    deps: ['xl_pow10', 'xl_approx15'],
    body:
      'function($x, $d) { ( $d := $d >= 0 ? $floor($d) : -$floor(-$d); $a := $abs($x); ' +
      '$not($exists($x)) or $x = 0 or $a > 1e288 ? $x : $d < -20 or $d > 20 ? $nothing : ' +
      '( $k := $xl_pow10($d); $r := $ceil($xl_approx15($a * $k)) / $k; $x < 0 ? -$r : $r ) ) }',
  },
  xl_rounddown: {
    deps: ['xl_pow10', 'xl_approx15'],
    body:
      'function($x, $d) { ( $d := $d >= 0 ? $floor($d) : -$floor(-$d); $a := $abs($x); ' +
      '$not($exists($x)) or $x = 0 or $a > 1e288 ? $x : $d < -20 or $d > 20 ? $nothing : ' +
      '( $k := $xl_pow10($d); $r := $floor($xl_approx15($a * $k)) / $k; $x < 0 ? -$r : $r ) ) }',
  },
  // 1900 date serials: serial 60 is Excel's 29 February 1900 (a day that never was), so serials
  // before it count from 31 December 1899 and later ones from 30 December 1899. DATE as Excel
  // reads its year: 0 to 1899 is 1900 later, below 0 or from 10000 is #NUM!, as is a date before
  // serial 0 or after 31 December 9999 (LibreOffice would take 1049 as the year 1049); the days
  // count on from the month's first serial, so DATE(1900,2,29) is serial 60 as in Excel
  xl_ymd: {
    deps: [],
    body:
      'function($s) { ( $n := $floor($s); $n = 60 ? {"y": 1900, "m": 2, "d": 29} : $n = 0 ? {"y": 1900, "m": 1, "d": 0} : ' +
      '( $iso := $fromMillis((($n < 60 ? $n + 1 : $n) - 25569) * 86400000, "[Y0001]-[M01]-[D01]"); ' +
      '{"y": $number($substring($iso, 0, 4)), "m": $number($substring($iso, 5, 2)), "d": $number($substring($iso, 8, 2))} ) ) }',
  },
  xl_date: {
    deps: [],
    body:
      'function($y, $m, $d) { ( $y := $floor($y); $y < 0 or $y >= 10000 ? $nothing : ( ' +
      '$y := $y < 1900 ? $y + 1900 : $y; $t := $y * 12 + $floor($m) - 1; ' +
      '$yy := $floor($t / 12); $mm := $t - $yy * 12 + 1; $yy < 1 or $yy > 9999 ? $nothing : ( ' +
      '$ms := $toMillis($pad($string($yy), -4, "0") & ($mm < 10 ? "-0" : "-") & $string($mm) & "-01"); ' +
      '$f := $ms / 86400000 + 25569; $r := ($f < 61 ? $f - 1 : $f) + $floor($d) - 1; ' +
      '$r < 0 or $r >= 2958466 ? $nothing : $r ) ) ) }',
  },
  xl_eomonth: {
    deps: ['xl_ymd', 'xl_date'],
    body: 'function($s, $k) { ( $p := $xl_ymd($s); $xl_date($p.y, $p.m + $floor($k) + 1, 1) - 1 ) }',
  },
  xl_edate: {
    deps: ['xl_ymd', 'xl_date'],
    body:
      'function($s, $k) { ( $p := $xl_ymd($s); $m := $p.m + $floor($k); ' +
      '$min([$xl_date($p.y, $m, $p.d), $xl_date($p.y, $m + 1, 1) - 1]) ) }',
  },
  xl_weekday: {
    deps: [],
    body: 'function($s, $t) { $t = 1 ? ($floor($s) + 6) % 7 + 1 : $t = 2 ? ($floor($s) + 5) % 7 + 1 : $t = 3 ? ($floor($s) + 5) % 7 : $nothing }',
  },
  // weekdays from one serial to another, both counted (negative when the end comes first), less
  // the distinct holidays among them; serial 1 is a Sunday, as in WEEKDAY
  xl_networkdays: {
    deps: [],
    body:
      'function($s, $e, $h) { ( $a := $floor($s); $b := $floor($e); $lo := $a < $b ? $a : $b; $hi := $a < $b ? $b : $a; ' +
      '$days := $hi - $lo + 1; $k := ($lo + 5) % 7; ' +
      '$n := $floor($days / 7) * 5 + $count($filter([0..($days % 7) - 1], function($i) { ($k + $i) % 7 < 5 })); ' +
      '$hs := $distinct($filter($map($filter($h, function($v) { $type($v) = "number" }), function($v) { $floor($v) }), ' +
      'function($v) { $v >= $lo and $v <= $hi and ($v + 5) % 7 < 5 })); ' +
      '$n := $n - $count($hs); $a <= $b ? $n : -$n ) }',
  },
  // (1 + r)^n with the rounding of 1 + r taken back out (first order: (1 + δ)^n ≈ 1 + nδ), so a
  // small rate keeps its digits as the spreadsheet's exp(n·log1p(r)) does: PMT(0.5%, 360, …) then
  // agrees with the stored value to 15 digits where the plain power missed the last one
  xl_fv: {
    deps: [],
    body:
      'function($r, $n, $pmt, $pv, $t) { $r = 0 ? -($pv + $pmt * $n) : ' +
      '( $u := 1 + $r; $f := $power($u, $n) * (1 - $n * (($u - 1) - $r) / $u); -($pv * $f + $pmt * (1 + $r * $t) * ($f - 1) / $r) ) }',
  },
  xl_pv: {
    deps: [],
    body:
      'function($r, $n, $pmt, $fv, $t) { $r = 0 ? -($fv + $pmt * $n) : ' +
      '( $u := 1 + $r; $f := $power($u, $n) * (1 - $n * (($u - 1) - $r) / $u); -($fv + $pmt * (1 + $r * $t) * ($f - 1) / $r) / $f ) }',
  },
  // -r(pv·f + fv) / ((1 + rt)(f - 1)) written as -(pv·r + (pv + fv)·r / (f - 1)) / (1 + rt): the
  // same value, rounded in the order that gives Excel's last bits where a loan schedule's balance
  // chain carries them 240 rows on (amortization-farheen: 3299.7786960832873, where the other
  // order gave ...864 and the balance ended 3.4e-15 apart); both are within a few bits of exact
  xl_pmt: {
    deps: [],
    body:
      'function($r, $n, $pv, $fv, $t) { $r = 0 ? -($pv + $fv) / $n : ' +
      '( $u := 1 + $r; $m := $power($u, $n) * (1 - $n * (($u - 1) - $r) / $u) - 1; -($pv * $r + ($pv + $fv) * $r / $m) / (1 + $r * $t) ) }',
  },
  // the future value as LibreOffice's interest part computes it: the plain power of 1 + r
  xl_fv_plain: {
    deps: [],
    body:
      'function($r, $n, $pmt, $pv, $t) { $r = 0 ? -($pv + $pmt * $n) : ' +
      '( $f := $power(1 + $r, $n); -($pv * $f + $pmt * (1 + $r * $t) * ($f - 1) / $r) ) }',
  },
  // the interest part of payment $per (1 … $n; another is an error), as LibreOffice computes it:
  // the payment (log1p-exact, xl_pmt), then the balance before the period by the plain power; late
  // in a loan the interest is a small difference of large numbers, so the order matters
  xl_ipmt: {
    deps: ['xl_pmt', 'xl_fv_plain'],
    body:
      'function($r, $per, $n, $pv, $fv, $t) { $per < 1 or $per > $n ? $nothing : ( $p := $xl_pmt($r, $n, $pv, $fv, $t); ' +
      '$i := $per = 1 ? ($t = 1 ? 0 : -$pv) : $t = 1 ? $xl_fv_plain($r, $per - 2, $p, $pv, 1) - $p : $xl_fv_plain($r, $per - 1, $p, $pv, 0); ' +
      '$i * $r ) }',
  },
  xl_npv: {
    deps: [],
    body: 'function($r, $a) { $sum($map($a, function($v, $i) { $v / $power(1 + $r, $i + 1) })) }',
  },
  xl_find: {
    deps: [],
    body:
      'function($f, $w, $s) { ( $rest := $substring($w, $s - 1); ' +
      '$s >= 1 and $s <= $length($w) + 1 and $contains($rest, $f) ? $s + $length($substringBefore($rest, $f)) : $nothing ) }',
  },
  xl_median: {
    deps: [],
    body:
      'function($a) { ( $s := $sort($a); $n := $count($s); $n = 0 ? $nothing : ' +
      '$n % 2 = 1 ? $s[$floor($n / 2)] : ($s[$n / 2 - 1] + $s[$n / 2]) / 2 ) }',
  },
  xl_stdev: {
    deps: [],
    body:
      'function($a) { ( $n := $count($a); $m := $average($a); ' +
      '$n < 2 ? $nothing : $sqrt($sum($map($a, function($v) { ($v - $m) * ($v - $m) })) / ($n - 1)) ) }',
  },
  ...CRITERIA_HELPERS,
  ...FINANCE_HELPERS,
  ...EXTRA_HELPERS,
};

export type HelperName = keyof typeof HELPERS;

/** A top-level derivation the library adds: a lookup index, or an aggregate computed once. */
export interface Derived {
  name: string;
  table: string;
  column: string;
  expr: string;
  type?: 'number' | 'object';
  description?: string;
}

/** Every helper's name, in definition order. */
export const HELPER_NAMES = Object.keys(HELPERS);

export class LibraryBuilder {
  private readonly helpers = new Set<string>();

  /** `cancelBelow`: how far + and - cancel to 0 in the workbook's program (cancellation.ts). */
  constructor(private readonly cancelBelow = 2 ** -48) {}
  private readonly tables: { range: string; rows: JsonValue[]; approx: boolean }[] = [];
  /** Lookup indexes by `table.column`: the top-level field each becomes. */
  private readonly indexes = new Map<string, { name: string; table: string; column: string }>();
  /** Top-level derivations that aggregates read (criteria.ts), by expression. */
  private readonly aggregates = new Map<string, Derived>();

  /** Marks a helper as used and returns its call prefix (`$xl_round`). */
  use(name: HelperName): string {
    if (!this.helpers.has(name)) {
      this.helpers.add(name);
      // dependencies of dependencies too (xl_meets → xl_glob → xl_chars)
      for (const d of HELPERS[name]!.deps) this.use(d);
    }
    return `$${name}`;
  }

  /**
   * Registers a side table (deduplicated by range and match) and returns its lookup function's
   * name. An approximate one (its first column sorted ascending, checked by the caller) finds the
   * last row whose key is of the key's type and not above it.
   */
  table(range: string, rows: JsonValue[], approx = false): string {
    let i = this.tables.findIndex((t) => t.range === range && t.approx === approx);
    if (i < 0) {
      this.tables.push({ range, rows, approx });
      i = this.tables.length - 1;
    }
    this.use('xl_eq');
    return `vlookup_${i + 1}`;
  }

  /**
   * Registers the lookup index of a table column and returns its top-level field's name. The index
   * maps each key (xl_key) to `{i, r}`: its position from 1 and its row; the first row wins.
   */
  index(table: string, column: string, taken: Set<string>): string {
    const id = `${table}.${column}`;
    let entry = this.indexes.get(id);
    if (!entry) {
      entry = { name: fieldName(`${table} ${column} index`, 'lookup_index', taken), table, column };
      this.indexes.set(id, entry);
    }
    this.use('xl_key');
    return entry.name;
  }

  /**
   * Registers a top-level derivation an aggregate reads (computed once per recalculation instead
   * of once per row) and returns its field's name; the same expression gets the same field.
   */
  aggregate(expr: string, type: 'number' | 'object', description: string, taken: Set<string>): string {
    let entry = this.aggregates.get(expr);
    if (!entry) {
      const name = fieldName(`aggregate ${this.aggregates.size + 1}`, 'aggregate', taken);
      entry = { name, table: '', column: '', expr, type, description };
      this.aggregates.set(expr, entry);
    }
    return entry.name;
  }

  /** The derivations of the indexes and aggregates that `code` reads (`$$.<name>`). */
  indexDerivations(code: string): Derived[] {
    const indexes = [...this.indexes.values()]
      .filter((x) => code.includes(`$$.${x.name}`))
      .map((x) => ({
        ...x,
        expr: `$merge($reverse([${x.table}#$i.{ $xl_key(${x.column}): {"i": $i + 1, "r": $} }]))`,
      }));
    // an aggregate's own expression may read an index, never another aggregate
    const aggregates = [...this.aggregates.values()].filter((x) => code.includes(`$$.${x.name}`));
    return [...indexes, ...aggregates];
  }

  /** A fresh builder with the same side tables and indexes (so names stay stable across passes). */
  clone(): LibraryBuilder {
    const b = new LibraryBuilder(this.cancelBelow);
    b.tables.push(...this.tables);
    for (const [k, v] of this.indexes) b.indexes.set(k, v);
    for (const [k, v] of this.aggregates) b.aggregates.set(k, v);
    return b;
  }

  /** The library definition, or undefined when nothing is used. */
  define(usedTables: Set<string>): string | undefined {
    const lines: string[] = [];
    const exports: string[] = [];
    // an exact side table's function reads its key's wildcards (a pattern matches text only)
    this.tables.forEach((t, i) => {
      if (t.approx || !usedTables.has(`vlookup_${i + 1}`)) return;
      this.use('xl_glob');
      this.use('xl_wild');
    });
    for (const name of Object.keys(HELPERS)) {
      if (!this.helpers.has(name)) continue;
      lines.push(
        `  $${name} := ${HELPERS[name]!.body.replaceAll('CANCEL_BELOW', String(this.cancelBelow))};`,
      );
      exports.push(name);
    }
    this.tables.forEach((t, i) => {
      const fn = `vlookup_${i + 1}`;
      if (!usedTables.has(fn)) return;
      const table = `lookup_table_${i + 1}`;
      lines.push(`  $${table} := ${JSON.stringify(t.rows)};`);
      lines.push(
        t.approx
          ? `  $${fn} := function($key) { ( $t := $type($key); $k := function($v) { $t = "string" ? $lowercase($v) : $v }; ` +
              `$m := $t in ["number", "string"] ? $filter($${table}, function($r) { $type($r.c1) = $t and $k($r.c1) <= $k($key) }); $m[-1] ) };`
          : `  $${fn} := function($key) { ( $w := $xl_wild($key); $m := $exists($w) ? ` +
              `$filter($${table}, function($r) { $type($r.c1) = "string" and $xl_glob($lowercase($r.c1), $w) }) : ` +
              `$filter($${table}, function($r) { $xl_eq($r.c1, $key) }); $m[0] ) };`,
      );
      exports.push(table, fn);
    });
    if (exports.length === 0) return undefined;
    return `(\n${lines.join('\n')}\n  ${JSON.stringify(exports)}\n)`;
  }
}
