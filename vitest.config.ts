import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// the audit key's default home is the user's config directory: tests get a throwaway one
const configHome = mkdtempSync(join(tmpdir(), 'modelworks-test-config-'));

/**
 * Test files that take the machine to themselves: they start processes, browsers, LibreOffice or
 * worker threads, read a clock or the heap, or wait for something for a set time, so a second file
 * running beside them would make them slow or their figures wrong. Read from each file's text, so
 * a new test lands on the safe side by itself: anything that does one of these runs alone.
 */
const NEEDS_THE_MACHINE =
  /spawn|fork\(|exec(File)?\(|chromium|playwright|[Ww]orker|soffice|SOFFICE|\.listen\(|StdioClientTransport|gc\(|heapUsed|memoryUsage|performance\.now|Date\.now|setTimeout|setInterval|waitFor|sleep\(|delay\(|dist\//;

/** Every test file that does none of that: these run two at a time (CI has two cores). */
function sharingFiles(): string[] {
  return readdirSync('test', { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => !NEEDS_THE_MACHINE.test(readFileSync(file, 'utf8')) && !file.includes('workers'));
}
const sharing = sharingFiles();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // fails any test that leaves a new property on Object.prototype or Array.prototype
    setupFiles: ['test/setup/prototype-guard.ts'],
    // servers spawned by tests keep models in memory unless a test chooses a store itself,
    // so no test touches the user's default SQLite file
    env: { MODELWORKS_STORE: 'memory', XDG_CONFIG_HOME: configHome },
    projects: [
      // first the files that share the machine, two at a time, then the rest one at a time
      {
        extends: true,
        test: { name: 'shared', include: sharing, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: ['test/**/*.test.ts'],
          exclude: sharing,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
