import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// the audit key's default home is the user's config directory: tests get a throwaway one
const configHome = mkdtempSync(join(tmpdir(), 'modelworks-test-config-'));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // fails any test that leaves a new property on Object.prototype or Array.prototype
    setupFiles: ['test/setup/prototype-guard.ts'],
    // servers spawned by tests keep models in memory unless a test chooses a store itself,
    // so no test touches the user's default SQLite file
    env: { MODELWORKS_STORE: 'memory', XDG_CONFIG_HOME: configHome },
  },
});
