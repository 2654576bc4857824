/**
 * Runs a golden-draw family and turns its first rows into vectors: each row as the CSV line the
 * CLI prints (`text`) and as its raw data points (`raw`: doubles as their IEEE-754 bits, so a
 * change in the last bit shows, ints as numbers, text as text, composites with their fields).
 * Shared by test/synth/golden-draws.test.ts and scripts/golden-draws.ts, so both run a family the
 * same way. Needs neither ../shared nor a JDK.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadSynthModel } from '../../../src/synth/engine/prepare.js';
import { COMPOSITE, DOUBLE, INT } from '../../../src/synth/engine/row.js';
import type { Row } from '../../../src/synth/engine/row.js';
import { SynthRun } from '../../../src/synth/engine/run.js';
import { parseModel } from '../../../src/synth/model/io.js';
import { renderRow } from '../../../src/synth/output/format.js';
import { realPorts } from '../../../src/synth-io/index.js';
import type { Family } from './families.js';

/** Rows pinned per family and seed. */
export const ROWS = 20;
/** The two seeds every family is pinned for: a small one and one using all 64 bits. */
export const SEEDS: readonly string[] = ['1', '-7046029254386353131'];
export const GOLDEN_DIR = import.meta.dirname;
export const VECTOR_DIR = join(GOLDEN_DIR, 'vectors');
export const TABLES_DIR = join(GOLDEN_DIR, 'tables');

/** One data point as stored: an int, `{ d }` double bits, `{ s }` text, `{ c, s, f }` composite. */
export type RawCell =
  number | { d: string } | { s: string } | { c: string; s: string; f: Record<string, string> };

export interface SeedVectors {
  seed: string;
  text: string[];
  raw: RawCell[][];
}

export interface FamilyVectors {
  family: string;
  /** The model as run (placeholders unresolved), so a changed family shows as a changed model. */
  nodes: string;
  seeds: SeedVectors[];
}

/** The contents of `vectors/<Component>.json`. */
export interface ComponentVectors {
  component: string;
  rows: number;
  families: FamilyVectors[];
}

/** Where the outside-data families find their table, database and service. */
export interface GoldenEnvironment {
  readonly dbUrl: string;
  readonly serviceUrl: string;
  close(): Promise<void>;
}

/** Creates the SQLite database and the local HTTP service the outside-data families read. */
export async function openEnvironment(): Promise<GoldenEnvironment> {
  const work = mkdtempSync(join(tmpdir(), 'mw-golden-'));
  const file = join(work, 'people.sqlite');
  const db = new Database(file);
  db.exec(
    "CREATE TABLE people (w INTEGER, name TEXT, code TEXT); INSERT INTO people VALUES (2, 'Bob, Jr.', 'x1'), (1, 'Ann', '007'), (5, 'Cy', NULL), (3, 'Dee', 'z9');",
  );
  db.close();
  const server: Server = createServer((req, res) => {
    if (req.url === '/static') res.end('7,seven\n8,eight\n9,nine\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    dbUrl: `jdbc:sqlite:${file}`,
    serviceUrl: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** The family's model text with its placeholders resolved. */
export function modelText(family: Family, env: GoldenEnvironment): string {
  const nodes = family.nodes
    .replaceAll('{{TABLES}}', TABLES_DIR)
    .replaceAll('{{DB}}', env.dbUrl)
    .replaceAll('{{SERVICE}}', env.serviceUrl);
  return `<dataset><root node="X"/><nodes>${nodes}</nodes></dataset>`;
}

function doubleBits(v: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return b.toString('hex');
}

function rawCell(row: Row, i: number): RawCell {
  const kind = row.kinds[i];
  if (kind === INT) return row.nums[i]!;
  if (kind === DOUBLE) return { d: doubleBits(row.nums[i]!) };
  const text = row.strs[i] ?? '';
  const composite = kind === COMPOSITE ? row.objs[i] : undefined;
  if (composite === undefined) return { s: text };
  const fields: Record<string, string> = {};
  for (const name of composite.fieldNames) fields[name] = composite.field(name) ?? '';
  return { c: composite.type, s: text, f: fields };
}

/** The first `rows` rows of a family for one seed. */
export async function drawFamily(
  family: Family,
  seed: string,
  env: GoldenEnvironment,
  rows = ROWS,
): Promise<SeedVectors> {
  try {
    return await draw(family, seed, env, rows);
  } catch (e) {
    throw new Error(`${family.component} family "${family.family}" seed ${seed}: ${(e as Error).message}`);
  }
}

async function draw(
  family: Family,
  seed: string,
  env: GoldenEnvironment,
  rows: number,
): Promise<SeedVectors> {
  const prepared = await loadSynthModel(parseModel(modelText(family, env)), {
    cwd: TABLES_DIR,
    allowlists: {
      flatFilePathAllowlist: [TABLES_DIR],
      databaseUrlAllowlist: [env.dbUrl],
      databaseAllowQuery: true,
      serviceUrlAllowlist: [env.serviceUrl],
    },
    ports: realPorts(),
  });
  const run = new SynthRun(prepared, BigInt(seed));
  const names = run.header();
  const text: string[] = [];
  const raw: RawCell[][] = [];
  for (let r = 0; r < rows; r++) {
    const row = run.next();
    text.push(renderRow(row, run.dimension, 'csv', names).replace(/\n$/, ''));
    raw.push(Array.from({ length: run.dimension }, (_, i) => rawCell(row, i)));
  }
  return { seed, text, raw };
}

/** The first place two seed vectors differ, in words (undefined when equal). */
export function firstDifference(expected: SeedVectors, actual: SeedVectors): string | undefined {
  const n = Math.max(expected.text.length, actual.text.length);
  for (let i = 0; i < n; i++) {
    const wantRaw = JSON.stringify(expected.raw[i]);
    const gotRaw = JSON.stringify(actual.raw[i]);
    if (expected.text[i] !== actual.text[i] || wantRaw !== gotRaw)
      return (
        `first difference at row index ${i}:\n` +
        `  expected text ${JSON.stringify(expected.text[i])}\n` +
        `  actual   text ${JSON.stringify(actual.text[i])}\n` +
        `  expected raw  ${wantRaw}\n` +
        `  actual   raw  ${gotRaw}`
      );
  }
  return undefined;
}
