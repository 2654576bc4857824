// node:fs with the globSync Node 22 added, for Node 20: patterns of `*`, `?` and `**` segments,
// matched against paths relative to `cwd` (forward slashes), files and folders alike.
import fs from 'node:fs';
import { join } from 'node:path';

export * from 'node:fs';
export default fs;

/** A glob pattern as a regular expression over relative paths. */
function patternRegex(pattern) {
  let out = '';
  const parts = pattern.split('/');
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    if (part === '**') {
      out += last ? '.*' : '(?:.*/)?';
      return;
    }
    for (const ch of part) {
      if (ch === '*') out += '[^/]*';
      else if (ch === '?') out += '[^/]';
      else out += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    if (!last) out += '/';
  });
  return new RegExp(`^${out}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const regexes = patterns.map(patternRegex);
  if (!fs.existsSync(cwd)) return [];
  return fs
    .readdirSync(cwd, { recursive: true })
    .map((p) => String(p).split('\\').join('/'))
    .filter((p) => regexes.some((r) => r.test(p)))
    .map((p) => (options.withFileTypes ? fs.statSync(join(cwd, p)) : p));
}
