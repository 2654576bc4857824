/**
 * Starting a worker thread on one of src/service's worker entries, shared by the fit, sheet and
 * comparison runners: the compiled `<name>.js` beside this module, or, running from TypeScript
 * sources (vitest, `node --import tsx`), its `<name>.ts` loaded through tsx.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Starts `<name>` (a module beside this one, without extension) in a worker with `options`. */
export function startModuleWorker(name: string, options: WorkerOptions): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, import.meta.url), options);
  // from sources there is no .js beside this file, and a worker does not inherit tsx's loader,
  // so the worker loads its .ts entry through tsx's ESM API
  const entry = JSON.stringify(new URL(`./${name}.ts`, import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then((tsx) => tsx.tsImport(${entry}, ${entry}))`, {
    ...options,
    eval: true,
  });
}
