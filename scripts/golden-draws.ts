/**
 * Writes the golden-draw vectors, test/synth/golden-draws/vectors/<Component>.json, from the
 * current code: the first rows of every family in test/synth/golden-draws/families.ts for each
 * pinned seed. The vectors are the draw contract (docs/synth-draws.md): regenerate them only on
 * purpose, after checking the new draws (corpus replay, oracles), and say so in the commit.
 *
 *   npx tsx scripts/golden-draws.ts                 # writes only components that have no file yet
 *   npx tsx scripts/golden-draws.ts --overwrite     # rewrites every file
 *   npx tsx scripts/golden-draws.ts --overwrite Weibull Gamma   # rewrites those components only
 *
 * Without --overwrite an existing vector file is never touched: the script names the files it
 * kept although the current code would change them, and exits 1.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { listComponents } from '../src/synth/components/registry.js';
import { FAMILIES } from '../test/synth/golden-draws/families.js';
import type { ComponentVectors, FamilyVectors } from '../test/synth/golden-draws/harness.js';
import { drawFamily, openEnvironment, ROWS, SEEDS, VECTOR_DIR } from '../test/synth/golden-draws/harness.js';

export interface WriteOptions {
  /** Replace files that exist (default: keep them). */
  readonly overwrite?: boolean;
  /** Component names to write (case-insensitive); default: all. */
  readonly only?: readonly string[];
  /** Target folder; default: the committed vectors folder. */
  readonly dir?: string;
}

export interface WriteResult {
  /** Components whose file was written. */
  readonly written: string[];
  /** Components whose existing file was kept although the current code would change it. */
  readonly stale: string[];
}

/** The vector file text of one component, formatted as the repository's prettier formats JSON. */
async function vectorText(component: string, file: string): Promise<string> {
  const env = await openEnvironment();
  try {
    const families: FamilyVectors[] = [];
    for (const family of FAMILIES.filter((f) => f.component === component)) {
      const seeds = [];
      for (const seed of SEEDS) seeds.push(await drawFamily(family, seed, env));
      families.push({ family: family.family, nodes: family.nodes, seeds });
    }
    const vectors: ComponentVectors = { component, rows: ROWS, families };
    const options = (await resolveConfig(file)) ?? {};
    return await format(JSON.stringify(vectors), { ...options, parser: 'json', filepath: file });
  } finally {
    await env.close();
  }
}

/**
 * Writes the vector files; never replaces an existing one unless `overwrite`.
 * @throws Error when a registered component has no family or `only` names an unknown component
 */
export async function writeGoldenDraws(options: WriteOptions = {}): Promise<WriteResult> {
  const dir = options.dir ?? VECTOR_DIR;
  const components = listComponents().map((c) => c.descriptor.name);
  const missing = components.filter((name) => !FAMILIES.some((f) => f.component === name));
  if (missing.length > 0) throw new Error(`no family in families.ts for: ${missing.join(', ')}`);
  const only = new Set((options.only ?? []).map((n) => n.toLowerCase()));
  const unknown = [...only].filter((n) => !components.some((c) => c.toLowerCase() === n));
  if (unknown.length > 0) throw new Error(`not a registered component: ${unknown.join(', ')}`);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const stale: string[] = [];
  for (const component of components) {
    if (only.size > 0 && !only.has(component.toLowerCase())) continue;
    const file = join(dir, `${component}.json`);
    const text = await vectorText(component, file);
    if (existsSync(file) && options.overwrite !== true) {
      if (readFileSync(file, 'utf8') !== text) stale.push(component);
      continue;
    }
    writeFileSync(file, text);
    written.push(component);
  }
  // a file of a component no longer registered goes only when everything is rewritten
  if (options.overwrite === true && only.size === 0)
    for (const f of readdirSync(dir))
      if (f.endsWith('.json') && !components.includes(f.slice(0, -'.json'.length))) rmSync(join(dir, f));
  return { written, stale };
}

async function main(args: readonly string[]): Promise<number> {
  const flags = args.filter((a) => a.startsWith('--'));
  if (flags.some((f) => f !== '--overwrite')) {
    console.error(`unknown option in ${flags.join(' ')}; the only option is --overwrite`);
    return 2;
  }
  const only = args.filter((a) => !a.startsWith('--'));
  const { written, stale } = await writeGoldenDraws({ overwrite: flags.includes('--overwrite'), only });
  console.log(`wrote ${written.length} vector file(s) to ${VECTOR_DIR}`);
  if (stale.length === 0) return 0;
  console.error(
    `kept ${stale.length} existing file(s) the current code would change; rerun with --overwrite to replace them: ${stale.join(', ')}`,
  );
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(2);
    },
  );
}
