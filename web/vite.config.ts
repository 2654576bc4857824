// Builds the model card into ONE self-contained HTML file (scripts and styles inlined), which the
// MCP server serves as ui://valem/model-card.html and the share routes serve outside any chat.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  plugins: [react(), viteSingleFile()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    // the sandbox (vite.sandbox.config.ts) builds into the same folder: keep its file
    emptyOutDir: false,
    rollupOptions: { input: fileURLToPath(new URL('model-card.html', import.meta.url)) },
  },
});
