// One web page built into ONE self-contained HTML file (scripts and styles inlined) in dist/web.
// Single-file output takes one entry per build, so each page has its own config calling this.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const ZOD_LOCALES = '\0zod-english-only';

/**
 * zod (which the MCP Apps SDK validates messages with) re-exports all of its ~50 message locales
 * from one module, and the bundler cannot drop the ones nobody uses: about 110 KB of the card.
 * The pages use zod's default English messages only, so that module is replaced by one exporting
 * English alone (`z.locales.<other>` is absent in the pages; nothing here calls it).
 */
function englishOnlyZodLocales(): Plugin {
  return {
    name: 'zod-english-only',
    enforce: 'pre',
    resolveId(source, importer) {
      if (
        source === '../locales/index.js' &&
        importer &&
        /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(importer)
      )
        return ZOD_LOCALES;
      return null;
    },
    load(id) {
      return id === ZOD_LOCALES ? "export { default as en } from 'zod/v4/locales/en.js';" : null;
    },
  };
}

export function singlePageConfig(html: string): UserConfig {
  return defineConfig({
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [englishOnlyZodLocales(), react(), viteSingleFile()],
    // Preact's React-compatible layer instead of React: the same components and hooks in a fraction
    // of the bytes (react-dom was the largest part of the card)
    resolve: {
      alias: [
        { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
        { find: /^react-dom$/, replacement: 'preact/compat' },
        { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
        { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
        { find: /^react$/, replacement: 'preact/compat' },
      ],
    },
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
      // both pages build into the same folder: keep the other's file
      emptyOutDir: false,
      rollupOptions: { input: fileURLToPath(new URL(html, import.meta.url)) },
    },
  });
}
