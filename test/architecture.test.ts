// Engines stay pure: nothing under src/calc (or the other engines) may import MCP, HTTP, storage
// or the file system. dependency-cruiser enforces the same in `npm test`; this test keeps the rule
// visible next to the code and fails with the offending import named.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENGINES = ['src/calc', 'src/synth', 'src/sheet'];
const FORBIDDEN = [
  /^@modelcontextprotocol\//,
  /^fastify/,
  /^@fastify\//,
  /^better-sqlite3$/,
  /^pg$/,
  /^ws$/,
  /^prom-client$/,
  /^(node:)?(fs|fs\/promises|http|https|http2|net|child_process)$/,
  /\/(service|store|mcp|http|cli)\//,
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier in a file: static imports, re-exports and dynamic imports. */
export function importsOf(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(
    /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g,
  )) {
    out.push((m[1] ?? m[2] ?? m[3])!);
  }
  return out;
}

describe('architecture', () => {
  it('the import scanner sees static, side-effect and dynamic imports', () => {
    expect(
      importsOf(
        `import a from 'x';\nimport { b } from "y";\nexport { c } from 'z';\nimport 'w';\nawait import('v');`,
      ),
    ).toEqual(['x', 'y', 'z', 'w', 'v']);
  });

  for (const engine of ENGINES) {
    const dir = join(root, engine);
    it.runIf(existsSync(dir))(`${engine} imports nothing of MCP, HTTP, storage or the file system`, () => {
      const offences: string[] = [];
      for (const file of files(dir)) {
        for (const spec of importsOf(readFileSync(file, 'utf8'))) {
          if (FORBIDDEN.some((re) => re.test(spec)))
            offences.push(`${relative(root, file)} imports '${spec}'`);
        }
      }
      expect(offences).toEqual([]);
    });
  }
});
