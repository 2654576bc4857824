/**
 * Database against real engines: SQLite through better-sqlite3 always, PostgreSQL through pg when
 * MODELWORKS_TEST_POSTGRES_URL is set (.ci/run starts one). Modes, weight columns by index and
 * name, the query gate when open, value typing, and the synchronous load refusing databases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_ALLOWLISTS } from '../../src/synth/access/allowlists.js';
import type { Allowlists } from '../../src/synth/access/allowlists.js';
import { loadSynthModel, prepareModel } from '../../src/synth/engine/prepare.js';
import { SynthRun } from '../../src/synth/engine/run.js';
import type { SynthError } from '../../src/synth/errors.js';
import { parseModel } from '../../src/synth/model/io.js';
import { L64X128MixRandom } from '../../src/synth/random/l64x128-mix-random.js';
import { validateModelAsync } from '../../src/synth/validate/validator.js';
import { realPorts } from '../../src/synth-io/index.js';
import { render, xmlModel } from './helpers.js';

const POSTGRES_URL = process.env.MODELWORKS_TEST_POSTGRES_URL;
const PG_SKIP = 'MODELWORKS_TEST_POSTGRES_URL is not set (.ci/run starts a throwaway PostgreSQL and sets it)';
if (!POSTGRES_URL) console.warn(`[synth database] PostgreSQL runs skipped: ${PG_SKIP}`);

const work = mkdtempSync(join(tmpdir(), 'mw-database-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function grindDb(node: string, allow: Partial<Allowlists>, seed = 3, count = 4): Promise<string> {
  const prepared = await loadSynthModel(parseModel(xmlModel('D', node)), {
    cwd: work,
    allowlists: { ...CLOSED_ALLOWLISTS, ...allow },
    ports: realPorts(),
  });
  return render(new SynthRun(prepared, BigInt(seed)), count);
}

/** Every mode against one engine; `url` must be allowlisted by `allow`, `table` holds the rows. */
function modeSuite(url: () => string, table: () => string, allow: () => Partial<Allowlists>): void {
  it('sequential reads the rows in order, numbers as doubles and text verbatim', async () => {
    const out = await grindDb(
      `<Database name="D" url="${url()}" query="SELECT w, name, code FROM ${table()} ORDER BY w" mode="sequential" onExhaustion="repeat"/>`,
      { ...allow(), databaseAllowQuery: true },
      1,
      4,
    );
    expect(out).toBe('1.0,Ann,007\n2.0,"Bob, Jr.",x1\n5.0,Cy,\n1.0,Ann,007\n');
  });

  it('unweighted draws one row per nextDouble; weighted drops the weight column (by index or name)', async () => {
    const unweighted = await grindDb(
      `<Database name="D" url="${url()}" table="${table()}"/>`,
      allow(),
      8,
      30,
    );
    const rows = unweighted.trim().split('\n');
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.split(',')[0]))).toEqual(new Set(['1.0', '2.0', '5.0']));
    const byIndex = await grindDb(
      `<Database name="D" url="${url()}" query="SELECT w, name FROM ${table()} ORDER BY w" mode="weighted"/>`,
      { ...allow(), databaseAllowQuery: true },
      8,
      50,
    );
    const byName = await grindDb(
      `<Database name="D" url="${url()}" query="SELECT name, w FROM ${table()} ORDER BY w" mode="weighted" weightColumn="w"/>`,
      { ...allow(), databaseAllowQuery: true },
      8,
      50,
    );
    expect(byName).toBe(byIndex);
    const rng = new L64X128MixRandom(8n);
    const expected = Array.from({ length: 50 }, () => {
      const u = rng.nextDouble();
      return u < 1 / 8 ? 'Ann' : u < 3 / 8 ? '"Bob, Jr."' : 'Cy';
    });
    expect(byIndex.trim().split('\n')).toEqual(expected);
  });
}

describe('Database on SQLite', () => {
  const file = join(work, 'people.sqlite');
  const url = `jdbc:sqlite:${file}`;
  beforeAll(() => {
    const db = new Database(file);
    db.exec(
      "CREATE TABLE people (w INTEGER, name TEXT, code TEXT); INSERT INTO people VALUES (2, 'Bob, Jr.', 'x1'), (1, 'Ann', '007'), (5, 'Cy', NULL);",
    );
    db.close();
  });
  modeSuite(
    () => url,
    () => 'people',
    () => ({ databaseUrlAllowlist: [`jdbc:sqlite:${work}`] }),
  );

  it('resolves a relative SQLite path against the working directory', async () => {
    const out = await grindDb(
      '<Database name="D" url="jdbc:sqlite:people.sqlite" table="people" mode="sequential"/>',
      { databaseUrlAllowlist: [`jdbc:sqlite:${work}`] },
      1,
      1,
    );
    expect(out).toBe('2.0,"Bob, Jr.",x1\n');
  });

  it('needs the asynchronous load: the synchronous one refuses after the policy checks', () => {
    const model = parseModel(xmlModel('D', `<Database name="D" url="${url}" table="people"/>`));
    const sync = (allow: string[]): string => {
      try {
        prepareModel(model, {
          cwd: work,
          allowlists: { ...CLOSED_ALLOWLISTS, databaseUrlAllowlist: allow },
          ports: realPorts(),
        });
      } catch (err) {
        return (err as SynthError).message;
      }
      return 'no error';
    };
    expect(sync([])).toMatch(/databases are disabled/);
    expect(sync([url])).toMatch(/asynchronous load phase \(loadSynthModel\)/);
  });

  it('reports a missing table as a load error, and validates a good model', async () => {
    const allow = { ...CLOSED_ALLOWLISTS, databaseUrlAllowlist: [url] };
    await expect(grindDb(`<Database name="D" url="${url}" table="nope"/>`, allow)).rejects.toThrow(
      /no such table: nope/,
    );
    const v = await validateModelAsync(
      parseModel(xmlModel('D', `<Database name="D" url="${url}" table="people"/>`)),
      {
        cwd: work,
        allowlists: allow,
        ports: realPorts(),
      },
    );
    expect(v).toMatchObject({ valid: true, nodeCount: 1 });
  });
});

describe.skipIf(!POSTGRES_URL)(
  `Database on PostgreSQL${POSTGRES_URL ? '' : ` (skipped: ${PG_SKIP})`}`,
  () => {
    const schema = `mw_synth_${process.pid}_${Date.now()}`;
    let client: pg.Client;
    beforeAll(async () => {
      client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(
        `CREATE TABLE ${schema}.people (w bigint, name text, code text, born date, amount numeric)`,
      );
      await client.query(
        `INSERT INTO ${schema}.people VALUES (2, 'Bob, Jr.', 'x1', '1990-02-03', 12.5), (1, 'Ann', '007', '1980-01-01', 3), (5, 'Cy', NULL, NULL, NULL)`,
      );
    });
    afterAll(async () => {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    });
    modeSuite(
      () => POSTGRES_URL!,
      () => `${schema}.people`,
      () => ({ databaseUrlAllowlist: [POSTGRES_URL!] }),
    );

    it('accepts the jdbc:postgresql form and prints dates as text and numerics as numbers', async () => {
      const u = new URL(POSTGRES_URL!);
      const jdbc = `jdbc:postgresql://${u.host}${u.pathname}`;
      const out = await grindDb(
        `<Database name="D" url="${jdbc}" user="${decodeURIComponent(u.username)}" password="${decodeURIComponent(u.password)}" query="SELECT born, amount FROM ${schema}.people ORDER BY w" mode="sequential"/>`,
        { databaseUrlAllowlist: [POSTGRES_URL!], databaseAllowQuery: true },
        1,
        3,
      );
      expect(out).toBe('1980-01-01,3.0\n1990-02-03,12.5\n,\n');
    });

    it('runs queries read-only even when queries are allowed', async () => {
      await expect(
        grindDb(
          `<Database name="D" url="${POSTGRES_URL!}" query="INSERT INTO ${schema}.people (w) VALUES (9) RETURNING w"/>`,
          { databaseUrlAllowlist: [POSTGRES_URL!], databaseAllowQuery: true },
        ),
      ).rejects.toThrow(/read-only transaction/);
      const count = await client.query(`SELECT count(*)::int AS n FROM ${schema}.people`);
      expect(count.rows[0]).toEqual({ n: 3 });
    });
  },
);
