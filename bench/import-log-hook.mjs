// Used by bench/mcp-start.mjs with BENCH_IMPORTS=1 (node --import): appends the URL of every module
// the process loads through the ES module loader (one line each, node: built-ins left out) to the
// file BENCH_IMPORTS_LOG names. The hook runs on the loader's thread, before the module evaluates,
// so the file holds every module loaded before any moment the process is seen to reach.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
const log = process.env.BENCH_IMPORTS_LOG;
export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (log && !url.startsWith('node:')) appendFileSync(log, url + '\\n');
  return loaded;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
