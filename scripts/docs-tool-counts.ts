/**
 * Tool counts in the docs, generated from the server's own tools/list (issue 38: the docs said 40
 * where the server listed 42). A count in README.md or docs/*.md is written between markers,
 * `<!-- tools:default -->42<!-- /tools -->`, naming the `modelworks mcp` flavour it counts
 * (`default`, `calc`, `synth`).
 *
 *   npx tsc -p tsconfig.build.json && npx tsx scripts/docs-tool-counts.ts          # rewrite
 *   npx tsx scripts/docs-tool-counts.ts --check                                    # exit 1 if stale
 *
 * test/docs/tool-counts.test.ts checks the same markers against the built server.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';

export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** The server flavours a marker can name, as `modelworks mcp` arguments. */
export const FLAVOURS: Record<string, string[]> = {
  default: [],
  calc: ['--tools', 'calc'],
  synth: ['--tools', 'synth'],
};

/** `<!-- tools:KEY -->VALUE<!-- /tools -->` */
const MARK = /<!-- tools:([a-z-]+) -->([^<]*)<!-- \/tools -->/g;

/** What each marker key stands for, read from the built server (memory store, no files touched). */
export async function measure(cli = CLI): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [flavour, args] of Object.entries(FLAVOURS)) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', ...args],
      env: { ...process.env, MODELWORKS_STORE: 'memory' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'docs-tool-counts', version: '1.0.0' });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      out.set(flavour, String(listed.tools.length));
    } finally {
      await client.close();
    }
  }
  return out;
}

/** README.md and every docs/*.md, as [path, text]. */
export function docFiles(): [string, string][] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f));
  return [join(ROOT, 'README.md'), ...docs].map((p) => [p, readFileSync(p, 'utf8')]);
}

export interface Mark {
  key: string;
  written: string;
}

export function marksIn(text: string): Mark[] {
  return [...text.matchAll(MARK)].map((m) => ({ key: m[1]!, written: m[2]! }));
}

/** The text with every marker's value replaced by the measured one (unknown keys left as written). */
export function rewrite(text: string, measured: ReadonlyMap<string, string>): string {
  return text.replace(MARK, (whole, key: string) => {
    const value = measured.get(key);
    return value === undefined ? whole : `<!-- tools:${key} -->${value}<!-- /tools -->`;
  });
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const measured = await measure();
  let stale = 0;
  for (const [path, text] of docFiles()) {
    const next = rewrite(text, measured);
    if (next === text) continue;
    stale++;
    if (check) console.error(`${path}: tool counts are stale`);
    else writeFileSync(path, next);
  }
  console.error(`tool counts: ${[...measured].map(([k, v]) => `${k}=${v}`).join(', ')}`);
  if (check && stale > 0) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
