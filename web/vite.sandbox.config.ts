// Builds the browser sandbox (`modelworks serve` at /sandbox) into ONE self-contained HTML file next
// to the model card; it reuses the card's view renderer. Runs after build:card, so it keeps dist/web.
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
    emptyOutDir: false,
    rollupOptions: { input: fileURLToPath(new URL('sandbox.html', import.meta.url)) },
  },
});
