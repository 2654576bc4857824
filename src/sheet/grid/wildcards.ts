/**
 * Excel's wildcards, for the cell-grid evaluator: the criteria functions (COUNTIF, SUMIFS …) and the
 * exact-match lookups (VLOOKUP, HLOOKUP and MATCH with a text key) read `*` as any run of
 * characters, `?` as one character and `~` as "the next character as it is" (`~*`, `~?`, `~~`, and
 * `~b` is `b`: Excel's MATCH of a cell holding `a~b` does not find that cell; LibreOffice agrees);
 * a `~` at the end is itself. Text is compared without case; only text matches a pattern.
 */

/** Whether a key holds any of the characters that make it a pattern. */
export const hasWildcards = (key: string): boolean => /[*?~]/.test(key);

/**
 * Whether `s` matches the wildcard pattern `p` (both lower case). The greedy walk with one
 * remembered star: time ≤ |s| × |p|, no regex.
 */
export function wildcardMatch(s: string, p: string): boolean {
  const tokens: (string | 1 | 2)[] = [];
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]!;
    if (ch === '~' && i + 1 < p.length) tokens.push(p[++i]!);
    else tokens.push(ch === '*' ? 1 : ch === '?' ? 2 : ch);
  }
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < s.length) {
    const t = tokens[j];
    if (j < tokens.length && (t === 2 || t === s[i])) {
      i++;
      j++;
    } else if (j < tokens.length && t === 1) {
      star = j++;
      mark = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (j < tokens.length && tokens[j] === 1) j++;
  return j === tokens.length;
}
