/**
 * Acceptance 3 of issue 26: Parquet read back by an independent reader (DuckDB) and the
 * PostgreSQL sink's table both equal the CSV output, values and types.
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLOSED_ALLOWLISTS,
  SynthRun,
  loadSynthModel,
  parseModel,
  renderChunks,
  valueText,
} from '../../src/synth/index.js';
import type { PreparedModel } from '../../src/synth/index.js';
import { DOUBLE } from '../../src/synth/engine/row.js';
import { fileLoadOptions } from '../../src/synth-io/index.js';
import { partitionSeed, partitionRange } from '../../src/synth-io/partition.js';
import { SinkError, writeRows, type ColumnType } from '../../src/synth-io/sinks/sink.js';
import { parquetFileSink } from '../../src/synth-io/sinks/parquet.js';
import { generateToSink, openTarget } from '../../src/synth-io/sinks/target.js';

const POSTGRES_URL = process.env.MODELWORKS_TEST_POSTGRES_URL;
if (!POSTGRES_URL) console.warn('[sinks] PostgreSQL runs skipped: MODELWORKS_TEST_POSTGRES_URL is not set');

const work = mkdtempSync(join(tmpdir(), 'mw-sinks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Text with every character COPY and CSV escape, a mixed int/double column, ints and doubles. */
const TEXT_MODEL = `<dataset seed="7"><root node="Row"/><nodes>
  <Append name="Row"><input name="Word"/><input name="N"/><input name="X"/><input name="Either"/></Append>
  <Mix name="Word"><input name="A"/><input name="B"/><input name="C"/></Mix>
  <Constant name="A" value="say &quot;hi&quot;, then&#9;tab" type="string"/>
  <Constant name="B" value="back\\slash&#10;new line&#13;" type="string"/>
  <Constant name="C" value="" type="string"/>
  <Poisson name="N" lambda="3"/>
  <Normal name="X" mean="0" sd="1e6"/>
  <Mix name="Either"><input name="I" weight="1"/><input name="D" weight="9"/></Mix>
  <Constant name="I" value="2" type="int"/>
  <Constant name="D" value="2" type="double"/>
</nodes></dataset>`;

const MODELS: Record<string, { text: string; types: ColumnType[] }> = {
  'support-queue': {
    text: readFileSync('examples/synth/support-queue.xml', 'utf8'),
    types: ['int', 'int', 'double', 'int', 'double', 'double', 'int'],
  },
  skirmish: { text: readFileSync('examples/synth/skirmish.xml', 'utf8'), types: ['int', 'text', 'text'] },
  text: { text: TEXT_MODEL, types: ['text', 'int', 'double', 'text'] },
};

async function prepare(text: string): Promise<PreparedModel> {
  return loadSynthModel(parseModel(text), fileLoadOptions(undefined, CLOSED_ALLOWLISTS));
}

function csvOf(prepared: PreparedModel, seed: bigint, count: number, header = true): string {
  return [...renderChunks(new SynthRun(prepared, seed), { count, format: 'csv', header })].join('');
}

/** A value read back, printed as grind's CSV prints it. */
function csvField(value: unknown, type: ColumnType): string {
  if (value === null) return ''; // a missing value: an empty CSV field
  if (type === 'int') return String(value);
  if (type === 'double') return valueText(value as number, DOUBLE);
  const text = value as string;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvFromRows(names: string[], types: ColumnType[], rows: unknown[][]): string {
  return [names.join(','), ...rows.map((r) => r.map((v, i) => csvField(v, types[i]!)).join(','))]
    .map((line) => line + '\n')
    .join('');
}

const DUCK_TYPES: Record<string, ColumnType> = { BIGINT: 'int', DOUBLE: 'double', VARCHAR: 'text' };

async function readParquet(
  paths: string[],
): Promise<{ names: string[]; types: ColumnType[]; rows: unknown[][] }> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const list = paths.map((p) => `'${p}'`).join(', ');
    // file_row_number keeps the written order within each file; the list keeps the files' order
    const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet([${list}])`);
    const types = reader
      .columnTypes()
      .map((t) => DUCK_TYPES[String(t)] ?? (`unexpected ${String(t)}` as ColumnType));
    return { names: reader.columnNames(), types, rows: reader.getRowsJS() };
  } finally {
    connection.closeSync();
    db.closeSync();
  }
}

/** A numeric column with missing cells, as `synth fit` writes it: Missing empties X where Key is 1. */
const MISSING_MODEL = `<dataset seed="3"><root node="M"/><nodes>
  <Missing name="M" key="0" indexes="1" value="1"><input name="Row"/></Missing>
  <Append name="Row"><input name="Key"/><input name="X"/></Append>
  <Bernoulli name="Key" p="0.3"/>
  <Normal name="X" mean="10" sd="2"/>
</nodes></dataset>`;

describe('missing values are null, not empty text (issue 40)', () => {
  it('Parquet: the column keeps its number type and the missing cells read back as NULL', async () => {
    const prepared = await prepare(MISSING_MODEL);
    const path = join(work, 'missing.parquet');
    const { columns } = await generateToSink({ prepared, seed: 5n, total: 2000 }, parquetFileSink(path));
    expect(columns.map((c) => c.type)).toEqual(['int', 'double']);
    const back = await readParquet([path]);
    expect(back.types).toEqual(['int', 'double']);
    const missing = back.rows.filter((r) => r[1] === null);
    expect(missing.length).toBeGreaterThan(400);
    expect(missing.every((r) => r[0] === 1n || r[0] === 1)).toBe(true);
    expect(back.rows.filter((r) => r[1] !== null).every((r) => typeof r[1] === 'number')).toBe(true);
    expect(csvFromRows(back.names, back.types, back.rows)).toBe(csvOf(prepared, 5n, 2000));
  });

  it('ndjson and json: a missing cell is null', async () => {
    const prepared = await prepare(MISSING_MODEL);
    for (const format of ['ndjson', 'json'] as const) {
      const text = [...renderChunks(new SynthRun(prepared, 5n), { count: 200, format, header: false })].join(
        '',
      );
      const rows = (
        format === 'json'
          ? JSON.parse(text)
          : text
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l))
      ) as {
        dim0: number;
        dim1: number | null;
      }[];
      expect(rows.some((r) => r.dim1 === null)).toBe(true);
      expect(rows.every((r) => (r.dim0 === 1 ? r.dim1 === null : typeof r.dim1 === 'number'))).toBe(true);
      expect(text).not.toContain('""');
    }
  });
});

describe('Parquet sink (read back by DuckDB)', () => {
  for (const [name, model] of Object.entries(MODELS))
    it(`${name}: equals the CSV output, values and types`, async () => {
      const prepared = await prepare(model.text);
      const path = join(work, `${name}.parquet`);
      const count = 3000;
      const { columns } = await generateToSink({ prepared, seed: 11n, total: count }, parquetFileSink(path));
      expect(columns.map((c) => c.type)).toEqual(model.types);
      const back = await readParquet([path]);
      expect(back.types).toEqual(model.types);
      expect(csvFromRows(back.names, back.types, back.rows)).toBe(csvOf(prepared, 11n, count));
    });

  it('partitions: each file is its own stream, their union in order is the K partition runs', async () => {
    const prepared = await prepare(MODELS['support-queue']!.text);
    const total = 1000;
    const paths: string[] = [];
    let expected = 'dim0,dim1,dim2,dim3,dim4,dim5,dim6\n';
    for (let index = 1; index <= 3; index++) {
      const path = join(work, `part-${index}.parquet`);
      paths.push(path);
      await generateToSink(
        { prepared, seed: 5n, total, partition: { index, count: 3 } },
        parquetFileSink(path),
      );
      const { start, end } = partitionRange(total, { index, count: 3 });
      expected += csvOf(prepared, partitionSeed(5n, index), end - start, false);
    }
    const back = await readParquet(paths);
    expect(back.rows).toHaveLength(total);
    expect(csvFromRows(back.names, back.types, back.rows)).toBe(expected);
    // a different stream from the single-stream output of the same seed
    expect(expected).not.toBe(csvOf(prepared, 5n, total));
  });

  it('a column that changes kind after the probe is widened to text and written again', async () => {
    const prepared = await prepare(TEXT_MODEL);
    const path = join(work, 'widened.parquet');
    let attempts = 0;
    const columns = await writeRows({
      newRun: () => (attempts++, new SynthRun(prepared, 11n)),
      range: { start: 0, end: 500 },
      open: parquetFileSink(path),
      probeRows: 1, // the first row of dim3 is a double; a later int does not fit
      batchRows: 64,
    });
    expect(attempts).toBeGreaterThan(2); // the probe, the first attempt, the widened one
    expect(columns.map((c) => c.type)).toEqual(['text', 'int', 'double', 'text']);
    const back = await readParquet([path]);
    expect(csvFromRows(back.names, back.types, back.rows)).toBe(csvOf(prepared, 11n, 500));
  });

  it('a probe that sees every kind writes once', async () => {
    const prepared = await prepare(TEXT_MODEL);
    let runs = 0;
    await writeRows({
      newRun: () => (runs++, new SynthRun(prepared, 11n)),
      range: { start: 0, end: 3000 },
      open: parquetFileSink(join(work, 'once.parquet')),
    });
    expect(runs).toBe(2); // the probe and the one write
  });

  it('fixed types that a row does not fit are a SINK_TYPE error, and no file is left', async () => {
    const prepared = await prepare(TEXT_MODEL);
    const path = join(work, 'fixed.parquet');
    const write = writeRows({
      newRun: () => new SynthRun(prepared, 11n),
      range: { start: 0, end: 500 },
      open: parquetFileSink(path),
      types: ['text', 'int', 'double', 'double'],
    });
    await expect(write).rejects.toMatchObject({ code: 'SINK_TYPE', message: expect.stringMatching(/dim3/) });
    await expect(write).rejects.toBeInstanceOf(SinkError);
    expect(() => readFileSync(path)).toThrow(/ENOENT/);
  });

  it('a stop between batches aborts the sink: no file and no temporary is left', async () => {
    const prepared = await prepare(MODELS['support-queue']!.text);
    const dir = mkdtempSync(join(work, 'stopped-'));
    const stop = new AbortController();
    let batches = 0;
    const write = generateToSink(
      {
        prepared,
        seed: 3n,
        total: 100_000,
        signal: stop.signal,
        onProgress: () => {
          if (++batches === 2) stop.abort('SIGINT');
        },
      },
      parquetFileSink(join(dir, 'big.parquet')),
    );
    await expect(write).rejects.toBe('SIGINT');
    expect(batches).toBe(2); // it stopped at the next batch, not at the end
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a symlink keeps its link and gets its target replaced; a device node is written in place', async () => {
    const prepared = await prepare(MODELS['support-queue']!.text);
    const dir = mkdtempSync(join(work, 'targets-'));
    mkdirSync(join(dir, 'real'));
    const link = join(dir, 'rows.parquet');
    symlinkSync(join('real', 'rows.parquet'), link);
    await generateToSink({ prepared, seed: 3n, total: 200 }, parquetFileSink(link));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect((await readParquet([join(dir, 'real', 'rows.parquet')])).rows).toHaveLength(200);
    expect(readdirSync(join(dir, 'real'))).toEqual(['rows.parquet']);
    // mknod needs root; the node lives in the temporary folder, never /dev itself
    if (process.getuid?.() !== 0) return console.warn('[sinks] device-node check skipped: mknod needs root');
    const device = join(dir, 'null');
    expect(spawnSync('mknod', ['-m', '666', device, 'c', '1', '3']).status).toBe(0);
    await generateToSink({ prepared, seed: 3n, total: 200 }, parquetFileSink(device));
    expect(lstatSync(device).isCharacterDevice()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['null', 'real', 'rows.parquet']);
  });

  it('a symlink in an allowed folder does not lead a write outside it', () => {
    const inside = mkdtempSync(join(work, 'allowed-'));
    const outside = mkdtempSync(join(tmpdir(), 'mw-outside-'));
    symlinkSync(join(outside, 'x.parquet'), join(inside, 'x.parquet'));
    const spec = { kind: 'parquet' as const, path: join(inside, 'x.parquet') };
    expect(() => openTarget(spec, { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [inside] })).toThrow(
      /where .*x\.parquet leads\) is refused/,
    );
    rmSync(outside, { recursive: true, force: true });
  });

  it('writes only into the working directory or an allowlisted folder', () => {
    const spec = { kind: 'parquet' as const, path: join(work, 'x.parquet') };
    expect(() => openTarget(spec, CLOSED_ALLOWLISTS, '/nonexistent-cwd')).toThrow(
      /outside the working directory/,
    );
    expect(() => openTarget(spec, CLOSED_ALLOWLISTS)).toThrow(/outside every folder/);
    expect(() => openTarget(spec, { ...CLOSED_ALLOWLISTS, flatFilePathAllowlist: [work] })).not.toThrow();
    expect(() => openTarget(spec, CLOSED_ALLOWLISTS, work)).not.toThrow();
  });
});

describe.skipIf(!POSTGRES_URL)('PostgreSQL sink', () => {
  const suffix = Math.random().toString(36).slice(2, 8);
  console.log(`[sinks] PostgreSQL tables end in _${suffix}`);
  const allow = () => ({ ...CLOSED_ALLOWLISTS, databaseUrlAllowlist: [POSTGRES_URL!] });
  const tableUrl = (table: string) => `${POSTGRES_URL}/${table}`;

  async function query(sql: string): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      return await client.query({ text: sql, rowMode: 'array' });
    } finally {
      await client.end();
    }
  }

  async function readTable(table: string) {
    const result = await query(`SELECT * FROM ${table} ORDER BY _row`);
    const pgTypes: Record<number, ColumnType> = { 20: 'int', 701: 'double', 25: 'text' };
    const fields = result.fields.slice(1);
    const types = fields.map((f) => pgTypes[f.dataTypeID] ?? ('unexpected' as ColumnType));
    const rows = (result.rows as unknown[][]).map((r) => r.slice(1));
    return {
      names: fields.map((f) => f.name),
      types,
      rows,
      rowNumbers: result.rows.map((r) => Number((r as string[])[0])),
    };
  }

  afterAll(async () => {
    const { rows } = await query(`SELECT tablename FROM pg_tables WHERE tablename LIKE '%\\_${suffix}'`);
    for (const [name] of rows as string[][]) await query(`DROP TABLE "${name}"`);
  });

  for (const [name, model] of Object.entries(MODELS))
    it(`${name}: the table equals the CSV output, values and types`, async () => {
      const prepared = await prepare(model.text);
      const table = `${name.replace('-', '_')}_${suffix}`;
      const open = openTarget({ kind: 'postgres', url: tableUrl(table) }, allow());
      await generateToSink({ prepared, seed: 11n, total: 3000 }, open);
      const back = await readTable(table);
      expect(back.types).toEqual(model.types);
      expect(csvFromRows(back.names, back.types, back.rows)).toBe(csvOf(prepared, 11n, 3000));
    });

  it('a missing cell is NULL in a double column, not empty text (issue 40)', async () => {
    const prepared = await prepare(MISSING_MODEL);
    const table = `missing_${suffix}`;
    await generateToSink(
      { prepared, seed: 5n, total: 2000 },
      openTarget({ kind: 'postgres', url: tableUrl(table) }, allow()),
    );
    const back = await readTable(table);
    expect(back.types).toEqual(['int', 'double']);
    const nulls = back.rows.filter((r) => r[1] === null);
    expect(nulls.length).toBeGreaterThan(400);
    expect(csvFromRows(back.names, back.types, back.rows)).toBe(csvOf(prepared, 5n, 2000));
  });

  it('partitions written in any order, and twice, leave each row once', async () => {
    const prepared = await prepare(MODELS['support-queue']!.text);
    const table = `parts_${suffix}`;
    const open = openTarget({ kind: 'postgres', url: tableUrl(table) }, allow());
    const types = MODELS['support-queue']!.types;
    for (const index of [3, 1, 2, 3, 1])
      await generateToSink({ prepared, seed: 5n, total: 1000, partition: { index, count: 3 }, types }, open);
    const back = await readTable(table);
    expect(back.rowNumbers).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    let expected = 'dim0,dim1,dim2,dim3,dim4,dim5,dim6\n';
    for (let index = 1; index <= 3; index++) {
      const { start, end } = partitionRange(1000, { index, count: 3 });
      expected += csvOf(prepared, partitionSeed(5n, index), end - start, false);
    }
    expect(csvFromRows(back.names, back.types, back.rows)).toBe(expected);
  });

  it('refuses a database off the allowlist, a malformed table name, and a table with other columns', async () => {
    expect(() => openTarget({ kind: 'postgres', url: tableUrl('t') }, CLOSED_ALLOWLISTS)).toThrow(
      /databases are disabled/,
    );
    for (const bad of ['x;drop table y', 'a.b.c', '"q"', '1abc'])
      expect(() => openTarget({ kind: 'postgres', url: tableUrl(encodeURIComponent(bad)) }, allow())).toThrow(
        /not a plain name/,
      );
    const table = `other_${suffix}`;
    await query(`CREATE TABLE ${table} (_row bigint PRIMARY KEY, dim0 bigint)`);
    const prepared = await prepare(MODELS['support-queue']!.text);
    const open = openTarget({ kind: 'postgres', url: tableUrl(table) }, allow());
    await expect(generateToSink({ prepared, seed: 1n, total: 10 }, open)).rejects.toMatchObject({
      code: 'SINK_TARGET',
      message: expect.stringMatching(/exists with columns \(_row bigint, dim0 bigint\)/),
    });
  });
});
