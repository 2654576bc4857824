/**
 * Docs that stay true (issue 27 point 5): every `modelworks …` line in a shell block of README.md
 * and docs/*.md names a command and options the built CLI has (checked against its --help), and
 * every self-contained line (no placeholders, every file it names is in the repository, not a
 * server) runs against the built CLI and exits 0. Needs dist/ (npm test builds it first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const built = existsSync(CLI);
if (!built) console.warn('[docs commands] SKIPPED: dist/cli/main.js not built (npm run build)');

interface DocCommand {
  file: string;
  line: string;
  argv: string[];
}

/**
 * Shell words (single and double quotes, no expansion); undefined when the line needs a shell
 * (pipes, redirections, substitutions, or a variable such as `$Q` the reader sets first).
 */
function words(line: string): string[] | undefined {
  if (/[|><;&`]|\$[({A-Za-z_]/.test(line.replace(/'[^']*'|"[^"]*"/g, ''))) return undefined;
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** `dir/*.json` as the shell expands it (a `*` in the last segment only); unmatched stays as written. */
function expandGlob(word: string): string[] {
  const slash = word.lastIndexOf('/');
  const [dir, name] = [word.slice(0, slash + 1), word.slice(slash + 1)];
  if (!name.includes('*') || dir.includes('*') || !existsSync(join(ROOT, dir || '.'))) return [word];
  const re = new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  const hits = readdirSync(join(ROOT, dir || '.'))
    .filter((f) => re.test(f))
    .sort();
  return hits.length > 0 ? hits.map((f) => dir + f) : [word];
}

function commands(): DocCommand[] {
  const files = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: DocCommand[] = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const block of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
      const joined = block[1]!.replace(/\\\n\s*/g, ' ');
      for (const raw of joined.split('\n')) {
        const line = raw.replace(/\s+#\s.*$/, '').trim();
        if (!/^modelworks(\s|$)/.test(line)) continue;
        const argv = words(line);
        if (argv !== undefined) out.push({ file, line, argv: argv.slice(1).flatMap(expandGlob) });
      }
    }
  }
  return out;
}

/** The subcommand path of a line: leading words up to the first option or argument. */
function commandPath(argv: string[]): string[] {
  const path: string[] = [];
  for (const w of argv) {
    if (!/^[a-z][a-z-]*$/.test(w) || path.length === 2) break;
    path.push(w);
  }
  return path;
}

const help = new Map<string, string>();
function helpOf(path: string[]): { status: number | null; text: string } {
  const key = path.join(' ');
  if (!help.has(key)) {
    const r = spawnSync(process.execPath, [CLI, ...path, '--help'], { encoding: 'utf8', cwd: ROOT });
    help.set(key, r.status === 0 ? r.stdout : `\u0000${r.status} ${r.stderr}`);
  }
  const text = help.get(key)!;
  return text.startsWith('\u0000')
    ? { status: Number(text.slice(1).split(' ')[0]), text }
    : { status: 0, text };
}

/** Why a line cannot run here as written, or undefined when it can. */
function notSelfContained(c: DocCommand): string | undefined {
  if (/[<[\]]|\.\.\./.test(c.line)) return 'a usage line with placeholders';
  if (/\bserve\b|\bmcp\b|\bconsole\b/.test(c.argv.slice(0, 2).join(' ')))
    return 'starts a server or a session';
  const missing = c.argv
    .filter((w) => !w.startsWith('-') && /\.(json|xml|sgm|xlsx|csv)$|\//.test(w) && !/^\$/.test(w))
    .filter((w) => !existsSync(join(ROOT, w)));
  return missing.length > 0 ? `names files not in the repository: ${missing.join(', ')}` : undefined;
}

const ALL = commands();

describe.skipIf(!built)('commands shown in README.md and docs/', () => {
  it('finds the documented command lines', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(12);
    expect(ALL.filter((c) => c.file === 'README.md').length).toBeGreaterThan(8);
  });

  it.each(ALL.map((c) => [`${c.file}: ${c.line}`, c] as const))('exists with its options: %s', (_l, c) => {
    const path = commandPath(c.argv);
    const { status, text } = helpOf(path);
    expect(status, `modelworks ${path.join(' ')} --help: ${text}`).toBe(0);
    for (const flag of c.argv.filter((w) => /^--[a-z][a-z-]*/.test(w)).map((w) => w.split('=')[0]!))
      expect(text, `${flag} is not an option of modelworks ${path.join(' ')}`).toContain(flag);
  });

  const runnable = ALL.filter((c) => notSelfContained(c) === undefined);
  for (const c of ALL)
    if (!runnable.includes(c)) console.log(`[docs commands] not run: ${c.line} (${notSelfContained(c)})`);

  it('runs at least the README quick-start commands', () => {
    expect(runnable.filter((c) => c.file === 'README.md').length).toBeGreaterThanOrEqual(4);
  });

  it.each(runnable.map((c) => [`${c.file}: ${c.line}`, c] as const))(
    'runs and exits 0: %s',
    (_l, c) => {
      const r = spawnSync(process.execPath, [CLI, ...c.argv], {
        encoding: 'utf8',
        cwd: ROOT,
        timeout: 60_000,
      });
      expect(r.status, `${c.line}\n${r.stderr}`).toBe(0);
    },
    90_000,
  );
});
