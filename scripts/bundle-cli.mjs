// Bundles the `modelworks` CLI (src/cli/main.ts) with esbuild into a few ES module files under
// dist/bundle/ (issue 45: `modelworks mcp` answering `initialize` soon after spawn). Node spends
// most of a cold start finding, reading and compiling hundreds of small module files; one file
// per chunk removes that. Splitting keeps what the code imports lazily (tool modules, engines,
// the HTTP server, the language-model clients) in chunks loaded on demand, and puts every shared
// module — the MCP SDK, zod, Ajv — in exactly one chunk, so each keeps one instance.
//
// Runs after `tsc -p tsconfig.build.json` (npm run build): the worker entries (expression,
// sheet, synth pipeline workers) stay the tsc-built files under dist/<folder>/, which the bundle
// starts by path, and dist/cli/main.js — the `modelworks` bin — is replaced by a two-line file
// that imports the bundle's entry. A later tsc-only build rewrites dist/cli/main.js with the
// unbundled program, so a stale bundle is never what the bin runs.
//
// Usage: node scripts/bundle-cli.mjs [--outdir dist/<folder>] [--no-bin]
//   --outdir  where the bundle goes; it must be one folder below dist/ (tests use their own)
//   --no-bin  leave dist/cli/main.js as it is
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const src = join(root, 'src');
const { values: args } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist/bundle' }, 'no-bin': { type: 'boolean' } },
});
const outdir = resolve(root, args.outdir);
if (dirname(outdir) !== dist)
  throw new Error(`--outdir must be a folder directly under dist/ (got ${outdir})`);
if (!existsSync(join(dist, 'cli', 'main.js')))
  throw new Error('dist/ is missing: run `tsc -p tsconfig.build.json` before bundling');

/**
 * Packages left to node's resolver: native parts (better-sqlite3, re2, duckdb), files read
 * relative to their own location (pg-boss's migrations), or large optional stacks only some
 * commands use (playwright-core, the PostgreSQL client). pino is bundled: its transports (worker
 * files it starts by path) would not survive that, and the logger uses none (a stderr destination).
 */
const external = [
  'better-sqlite3',
  're2',
  '@duckdb/node-api',
  'pg',
  'pg-boss',
  'pg-copy-streams',
  'pg-native',
  'playwright-core',
  // optional native speed-ups that ws and others try to require inside try/catch
  'bufferutil',
  'utf-8-validate',
  // @datadog/sketches-js's protobuf encoding, which we never call (its package is not installed)
  'protobufjs',
  'protobufjs/*',
  // the SDK's ajv validator, required when first asked for (src/mcp/sdk-node-shims.ts)
  '@modelcontextprotocol/server/validators/ajv',
];

/**
 * Every `import.meta.url` in our sources means "where this module's tsc-built file is"
 * (dist/<folder>/<file>.js): the guides, web assets and worker entries are found relative to it.
 * In a bundle a module's `import.meta.url` is its chunk's, so each use is rewritten to the URL
 * of the module's own dist file, computed from the chunk's location (all chunks sit in outdir).
 */
const keepModuleUrl = {
  name: 'keep-module-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (loaded) => {
      const text = readFileSync(loaded.path, 'utf8');
      if (!loaded.path.startsWith(src + sep) || !text.includes('import.meta.url')) return undefined;
      const built = join(dist, relative(src, loaded.path)).replace(/\.ts$/, '.js');
      const fromChunk = relative(outdir, built).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/**
 * The MCP SDK's Node shims module (`@modelcontextprotocol/server/_shims`) gives every Server a
 * default JSON Schema validator on the SDK's own copy of ajv: 0.3 MB parsed before `initialize` is
 * answered (issue 45), for a check ours never needs (a form elicitation's answer). Its bundled
 * stand-in, src/mcp/sdk-node-shims.ts, loads that validator when first asked for one.
 */
const lazySdkValidator = {
  name: 'lazy-sdk-validator',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: join(src, 'mcp', 'sdk-node-shims.ts'),
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: join(src, 'cli', 'main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // no maps, as tsconfig.build.json: the package ships dist/ without src/, so a map would point at
  // sources nobody has (test/install/pack.test.ts); to debug, run the sources with tsx or a
  // tsc-only build (`npx tsc -p tsconfig.build.json`), whose files are one per module
  sourcemap: false,
  // the chunks sit beside the entry, so every chunk's import.meta.url has the same folder
  chunkNames: '[name]-[hash]',
  external,
  // CommonJS packages inside an ES module bundle still call require() (for node built-ins)
  banner: {
    js: "import { createRequire as __mwCreateRequire } from 'node:module'; const require = __mwCreateRequire(import.meta.url);",
  },
  plugins: [keepModuleUrl, lazySdkValidator],
  metafile: true,
  logLevel: 'warning',
  legalComments: 'linked',
});
// which source modules each output file holds: the import-count bench and the start tests read it
writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
if (!args['no-bin']) {
  const entry = relative(join(dist, 'cli'), join(outdir, 'main.js')).split(sep).join('/');
  // the bin: run the bundle (its first line keeps `modelworks` runnable as a script)
  writeFileSync(join(dist, 'cli', 'main.js'), `#!/usr/bin/env node\nimport '${entry}';\n`);
}
const chunks = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
process.stderr.write(
  `bundled src/cli/main.ts into ${chunks.length} files under ${relative(root, outdir)}/\n`,
);
