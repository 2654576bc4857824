// The row worker of parallel generation (src/synth-io/parallel/worker.ts) as one module: after tsc,
// dist/synth-io/parallel/worker.js and the ~115 modules it imports are bundled into that same
// file, so a worker thread starts by loading one module instead of resolving and reading every
// one of them (see docs/synth-workers.md). Running tsc alone writes the plain module back, which
// works the same, only with a slower start.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const dir = fileURLToPath(new URL('../dist/synth-io/parallel', import.meta.url));

export default defineConfig({
  logLevel: 'warn',
  publicDir: false,
  build: {
    ssr: `${dir}/worker.js`,
    outDir: dir,
    emptyOutDir: false,
    minify: false,
    target: 'node20',
    rollupOptions: { output: { entryFileNames: 'worker.js', format: 'es' } },
  },
  // dependencies too: they are most of the modules a worker loads
  ssr: { noExternal: true, target: 'node' },
});
