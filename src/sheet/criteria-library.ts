/**
 * Run-time criteria of SUMIF, COUNTIFS, MAXIFS and the rest, as JSONata library helpers. A
 * criterion is parsed when the model runs, never at compile time only, because its operator may
 * live in a cell (`=SUMIF(A:A,H1,B:B)` with H1 holding ">5") or be built by the formula
 * (`">"&A2`). The rules are Excel's: an operator (`=`, `<>`, `<`, `<=`, `>`, `>=`) then an operand;
 * a numeric operand compares numbers (and text that reads as a number, as Excel's COUNTIF does);
 * `TRUE`/`FALSE` match booleans; other text matches text without case, with `*`, `?` and `~`
 * escapes; `""` matches blank cells and empty text, `"="` blank cells only, `"<>"` any non-blank
 * cell; a blank criterion cell is 0.
 *
 * Wildcards are matched by a small glob walker (xl_glob), not a regular expression: JSONata can
 * only run regex literals, and building one from a cell's text would be an injection anyway.
 */

/** The helpers, by name: their dependencies and JSONata bodies (see library.ts). */
export const CRITERIA_HELPERS: Record<string, { deps: string[]; body: string }> = {
  // a number written as text ("10", " -2.5 ", "1e3", "15%"), or no value; bounded digits, so
  // $number never sees an overflow
  xl_tonum: {
    deps: [],
    body:
      'function($s) { ( $t := $trim($s); $p := $substring($t, -1) = "%"; ' +
      '$b := $p ? $substring($t, 0, $length($t) - 1) : $t; $b := $substring($b, 0, 1) = "+" ? $substring($b, 1) : $b; ' +
      '$contains($b, /^-?[0-9]{1,20}(\\.[0-9]{1,20})?([eE][-+]?[0-9]{1,2})?$/) ? ($p ? $number($b) / 100 : $number($b)) : $nothing ) }',
  },
  // a string as an object position → character, for constant-time reads in xl_glob
  xl_chars: {
    deps: [],
    body: 'function($s) { $s = "" ? {} : $merge([$map($split($s, ""), function($c, $i) { {$string($i): $c} })]) }',
  },
  // a wildcard pattern (lower case): its tokens (1 for `*`, 2 for `?`, a character otherwise) by
  // position, and, when it has no `?`, its literal pieces between the stars; `~*`, `~?` and `~~`
  // are the characters themselves, and `~` before any other character escapes it too (`~b` is `b`,
  // as in Excel and LibreOffice); a `~` at the end is itself
  xl_pattern: {
    deps: ['xl_chars'],
    body:
      'function($s) { ( $r := $replace($replace($replace($replace($s, "~~", "\\u0001"), "~*", "\\u0002"), "~?", "\\u0003"), /~([\\s\\S])/, "$1"); ' +
      '$lit := function($p) { $replace($replace($replace($p, "\\u0001", "~"), "\\u0002", "*"), "\\u0003", "?") }; ' +
      '$cs := $split($r, ""); ' +
      '$ts := $map($cs, function($c) { $c = "*" ? 1 : $c = "?" ? 2 : $lit($c) }); ' +
      '{"n": $count($cs), "t": $count($cs) = 0 ? {} : $merge([$map([$ts], function($t, $i) { {$string($i): $t} })]), ' +
      '"p": $contains($r, "?") ? $nothing : [$map($split($r, "*"), $lit)]} ) }',
  },
  // whether text $s (lower case) matches pattern $p (xl_pattern). Without `?`: the first piece
  // starts the text, the last ends it and the others follow in order between (native string
  // search, linear). With `?`: the classic walk that remembers the last `*` and retries from one
  // character further (time ≤ length × pattern length).
  xl_glob: {
    deps: ['xl_chars'],
    body:
      'function($s, $p) { $exists($p.p) ? ( $ps := $p.p; $k := $count($ps); $a := $ps[0]; $z := $ps[-1]; ' +
      '$k = 1 ? $s = $a : ( $length($s) >= $length($a) + $length($z) and $substring($s, 0, $length($a)) = $a and ' +
      '$substring($s, $length($s) - $length($z)) = $z and ( ' +
      '$mid := $substring($s, $length($a), $length($s) - $length($a) - $length($z)); ' +
      '$k = 2 ? true : $reduce($ps#$i[$i > 0 and $i < $k - 1], function($rest, $q) { ' +
      '$type($rest) = "string" and $contains($rest, $q) ? $substringAfter($rest, $q) : false }, $mid) != false ) ) ) : ( ' +
      '$c := $xl_chars($s); $ns := $count($split($s, "")); ' +
      '$tok := function($j) { $lookup($p.t, $string($j)) }; ' +
      '$rest := function($j) { $j >= $p.n ? true : $tok($j) = 1 ? $rest($j + 1) : false }; ' +
      '$go := function($i, $j, $st, $mk) { $i < $ns ? ( $t := $tok($j); ' +
      '$j < $p.n and ($t = 2 or $t = $lookup($c, $string($i))) ? $go($i + 1, $j + 1, $st, $mk) : ' +
      '$j < $p.n and $t = 1 ? $go($i, $j + 1, $j, $i) : ' +
      '$st >= 0 ? $go($mk + 1, $st + 1, $st, $mk + 1) : false ) : $rest($j) }; ' +
      '$go(0, 0, -1, 0) ) }',
  },
  // a criterion as {o: operator, x: an operator was written, e: empty operand, n: number,
  // b: boolean, s: text in lower case, w: wildcard pattern}
  xl_crit: {
    deps: ['xl_tonum', 'xl_pattern'],
    body:
      'function($c) { ( $t := $type($c); ' +
      '$t = "number" ? {"o": "=", "n": $c} : $t = "boolean" ? {"o": "=", "b": $c} : $t = "string" ? ( ' +
      '$o2 := $substring($c, 0, 2); $o1 := $substring($c, 0, 1); ' +
      '$o := $o2 = "<=" or $o2 = ">=" or $o2 = "<>" ? $o2 : $o1 = "<" or $o1 = ">" or $o1 = "=" ? $o1 : ""; ' +
      '$r := $substring($c, $length($o)); $u := $uppercase($r); $eq := $o = "" or $o = "=" or $o = "<>"; ' +
      '{"o": $o = "" ? "=" : $o, "x": $o != "", "e": $r = "", "n": $xl_tonum($r), ' +
      '"b": $u = "TRUE" ? true : $u = "FALSE" ? false : $nothing, "s": $lowercase($r), ' +
      '"w": $eq and $contains($r, /[*?~]/) ? $xl_pattern($lowercase($r)) : $nothing} ' +
      ') : {"o": "=", "n": 0} ) }',
  },
  // whether a cell value meets a parsed criterion (xl_crit)
  xl_meets: {
    deps: ['xl_tonum', 'xl_glob'],
    body:
      'function($v, $k) { ( $t := $type($v); $blank := $not($exists($v)) or $t = "null"; ' +
      '$num := $t = "number" ? $v : $t = "string" and $exists($k.n) ? $xl_tonum($v) : $nothing; ' +
      '$k.o = "=" or $k.o = "<>" ? ( ' +
      '$hit := $k.e ? ($k.x ? $blank : ($blank or $v = "")) : ' +
      '$exists($k.n) ? ($exists($num) and $num = $k.n) : ' +
      '$exists($k.b) ? ($t = "boolean" and $v = $k.b) : ' +
      '$t != "string" ? false : $exists($k.w) ? $xl_glob($lowercase($v), $k.w) : $lowercase($v) = $k.s; ' +
      '$k.o = "=" ? $hit : $not($hit) ) : ' +
      '$k.e ? false : $exists($k.n) ? ( $exists($num) and ' +
      '($k.o = "<" ? $num < $k.n : $k.o = "<=" ? $num <= $k.n : $k.o = ">" ? $num > $k.n : $num >= $k.n) ) : ' +
      '$t = "string" and ( $l := $lowercase($v); $k.o = "<" ? $l < $k.s : $k.o = "<=" ? $l <= $k.s : $k.o = ">" ? $l > $k.s : $l >= $k.s ) ) }',
  },
  // the key a cell value has for an equality criterion: a number (or text reading as one), a
  // boolean, text without case; "e" for a blank; a type letter first keeps keys apart
  xl_ckey: {
    deps: ['xl_tonum'],
    body:
      'function($v) { ( $t := $type($v); $t = "number" ? "n" & $string($v) : $t = "boolean" ? "b" & $string($v) : ' +
      '$t = "string" ? ( $n := $xl_tonum($v); $exists($n) ? "n" & $string($n) : "s" & $lowercase($v) ) : "e" ) }',
  },
  // the key of a criterion that is a plain equality (no operator but "=", no wildcard, not empty),
  // or no value: such a criterion can read a grouped total instead of scanning the rows
  xl_critkey: {
    deps: [],
    body:
      'function($k) { $k.o = "=" and $not($k.e) and $not($exists($k.w)) ? ' +
      '($exists($k.n) ? "n" & $string($k.n) : $exists($k.b) ? "b" & $string($k.b) : "s" & $k.s) : $nothing }',
  },
  // a cell value as an ordering criterion with a numeric operand reads it: a number, or text
  // that reads as one; no value otherwise
  xl_cnum: {
    deps: ['xl_tonum'],
    body: 'function($v) { $type($v) = "number" ? $v : $type($v) = "string" ? $xl_tonum($v) : $nothing }',
  },
  // how many of the positions 0…$n-1 satisfy $f, which holds for a first stretch of them only
  // (a binary search over sorted values)
  xl_bcount: {
    deps: [],
    body:
      'function($n, $f) { ( $go := function($lo, $hi) { $lo < $hi ? ( $m := $floor(($lo + $hi) / 2); ' +
      '$f($m) ? $go($m + 1, $hi) : $go($lo, $m) ) : $lo }; $go(0, $n) ) }',
  },
  // running totals over values by position ($g: position → value), combined by $f one after
  // another from the first ($up) or from the last, starting from $zero: position → the total so
  // far. Split in halves, so that each value is added once, in order, and the objects merge
  // natively (a list appended to one element at a time costs its length each time).
  xl_running: {
    deps: [],
    body:
      'function($g, $n, $up, $f, $zero) { ( ' +
      '$go := function($lo, $hi, $base) { $hi - $lo = 1 ? {$string($lo): $f($base, $lookup($g, $string($lo)))} : ( ' +
      '$mid := $floor(($lo + $hi) / 2); ' +
      '$up ? ( $l := $go($lo, $mid, $base); $merge([$l, $go($mid, $hi, $lookup($l, $string($mid - 1)))]) ) : ' +
      '( $r := $go($mid, $hi, $base); $merge([$go($lo, $mid, $lookup($r, $string($mid))), $r]) ) ) }; ' +
      '$n = 0 ? {} : $go(0, $n, $zero) ) }',
  },
};
