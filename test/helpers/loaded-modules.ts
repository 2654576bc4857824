// What a child process of the built CLI loaded, as source modules, whether `dist/cli/main.js` is
// the tsc build (one file per module) or the esbuild bundle (scripts/bundle-cli.mjs: chunks under
// dist/<folder>/, with a meta.json naming the modules each chunk holds). Tests that check what a
// start loads read modules, so they hold the same promise for both builds.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface BundleMeta {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

const metas = new Map<string, BundleMeta | undefined>();

/** The meta.json beside a bundle chunk, if the file is one. */
function metaFor(root: string, file: string): BundleMeta | undefined {
  const folder = dirname(join(root, file));
  if (!metas.has(folder)) {
    const path = join(folder, 'meta.json');
    metas.set(folder, existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as BundleMeta) : undefined);
  }
  return metas.get(folder);
}

/**
 * One name per module: `src/mcp/server` for our own (built as dist/mcp/server.js or bundled from
 * src/mcp/server.ts), `node_modules/<package>/<file>` for a package's, else the path itself.
 */
export function moduleName(path: string): string {
  const inPackage = /(?:^|\/)(node_modules\/.+)$/.exec(path);
  if (inPackage) return inPackage[1]!;
  const ours = /^(?:src|dist)\/(.+)\.(?:ts|js)$/.exec(path);
  return ours ? `src/${ours[1]!}` : path;
}

/**
 * The modules behind the files a process loaded (URLs or paths, relative to the repository root
 * or absolute): a bundle chunk stands for every module in it.
 */
export function loadedModules(root: string, loaded: readonly string[]): string[] {
  const names = new Set<string>();
  for (const entry of loaded) {
    const absolute = entry.startsWith('file:') ? fileURLToPath(entry) : entry;
    const file = isAbsolute(absolute) ? relative(root, absolute) : absolute;
    const meta = file.startsWith('dist/') ? metaFor(root, file) : undefined;
    const chunk = meta?.outputs[file];
    if (chunk) for (const input of Object.keys(chunk.inputs)) names.add(moduleName(input));
    else names.add(moduleName(file));
  }
  return [...names].sort();
}
