// One web page built into ONE self-contained HTML file (scripts and styles inlined) in dist/web.
// Single-file output takes one entry per build, so each page has its own config calling this.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type UserConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

export function singlePageConfig(html: string): UserConfig {
  return defineConfig({
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [react(), viteSingleFile()],
    logLevel: 'warn',
    build: {
      outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
      // both pages build into the same folder: keep the other's file
      emptyOutDir: false,
      rollupOptions: { input: fileURLToPath(new URL(html, import.meta.url)) },
    },
  });
}
