/**
 * Tool counts in the docs match the server's own tools/list (issue 38: the docs said 40 tools where
 * the server listed 42). Counts are written between `<!-- tools:KEY -->` markers by
 * scripts/docs-tool-counts.ts; a bare "N tools" without one is refused so no count escapes the
 * check. Needs dist/ (npm test builds it first).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, docFiles, marksIn, measure, rewrite } from '../../scripts/docs-tool-counts.js';

const built = existsSync(CLI);
if (!built) console.warn('[docs tool counts] SKIPPED: dist/cli/main.js not built (npm run build)');

describe.skipIf(!built)('tool counts in the docs', () => {
  it('every marked count is what the built server lists', async () => {
    const measured = await measure();
    expect(Number(measured.get('default'))).toBeGreaterThan(Number(measured.get('calc')));
    const marks = docFiles().flatMap(([path, text]) => marksIn(text).map((m) => ({ path, ...m })));
    expect(marks.map((m) => m.key)).toEqual(expect.arrayContaining(['default', 'calc', 'synth']));
    for (const m of marks) expect(m.written, `${m.path}: ${m.key}`).toBe(measured.get(m.key));
  }, 60_000);

  it('no count of tools is written outside a marker', () => {
    for (const [path, text] of docFiles()) {
      const outside = text.replace(/<!-- tools:[a-z-]+ -->[^<]*<!-- \/tools -->/g, '');
      expect(outside.match(/\b\d+ (?:MCP |model |synth )?tools\b/g), path).toBeNull();
    }
  });

  it('the generator rewrites a stale count and leaves unknown keys alone', () => {
    const text = 'about <!-- tools:default -->40<!-- /tools --> tools, <!-- tools:other -->7<!-- /tools -->';
    expect(rewrite(text, new Map([['default', '42']]))).toBe(
      'about <!-- tools:default -->42<!-- /tools --> tools, <!-- tools:other -->7<!-- /tools -->',
    );
  });
});
