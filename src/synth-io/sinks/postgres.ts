/**
 * The PostgreSQL sink: `postgres://[user[:password]@]host[:port]/database/[schema.]table`.
 * The table holds `_row bigint PRIMARY KEY` (the row's number in the whole generation, so
 * `ORDER BY _row` gives the grind order back) and one column per model column (bigint, double
 * precision or text). It is created when absent; an existing table must have exactly these
 * columns, and its types win (a value that does not fit them is a SINK_TYPE error).
 *
 * One write is one transaction: it deletes the rows of its range, then COPYs the new ones in, under
 * an advisory lock on (table, range), so a partition written twice (a retried job) ends with its
 * rows once. Identifiers are quoted; row data only ever travels inside COPY, never in SQL text.
 */
import { once } from 'node:events';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DOUBLE, INT } from '../../synth/engine/row.js';
import { parseDatabaseUrl, valueText } from '../../synth/index.js';
import type { ColumnType, RowBatch, RowSink, SinkColumn, SinkFactory } from './sink.js';
import { SinkError } from './sink.js';

/** Where a `--to` URL points: the database URL (for the allowlist) and the table. */
export interface PostgresTarget {
  /** The URL without its table segment (what the database allowlist is checked against). */
  readonly databaseUrl: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user?: string;
  readonly password?: string;
  /** `[schema, table]` or `[table]`. */
  readonly table: readonly string[];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * Parses a `--to` URL.
 * @throws SinkError SINK_TARGET naming what is wrong
 */
export function parsePostgresTarget(text: string): PostgresTarget {
  const m = /^(postgres(?:ql)?:\/\/[^/?#]*\/[^/?#]+)\/([^/?#]+)$/i.exec(text.trim());
  const bad = (why: string): never => {
    throw new SinkError(
      'SINK_TARGET',
      `--to ${why} (expected postgres://[user@]host[:port]/database/[schema.]table)`,
    );
  };
  if (m === null) return bad('is not a PostgreSQL table URL');
  const databaseUrl = m[1]!;
  const table = decodeURIComponent(m[2]!).split('.');
  if (table.length > 2 || !table.every((part) => IDENTIFIER.test(part)))
    return bad(`names the table "${m[2]}", which is not a plain name or schema.name`);
  const target = parseDatabaseUrl(databaseUrl);
  if (target?.kind !== 'postgres') return bad('is not a PostgreSQL URL');
  const url = new URL(databaseUrl.replace(/^postgres(?:ql)?:/i, 'postgres:'));
  return {
    databaseUrl,
    host: target.host,
    port: Number(target.port),
    database: target.database,
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    table,
  };
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const SQL_TYPES: Record<ColumnType, string> = { int: 'bigint', double: 'double precision', text: 'text' };
const FROM_SQL = new Map<string, ColumnType>([
  ['bigint', 'int'],
  ['double precision', 'double'],
  ['text', 'text'],
]);

/** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyText(text: string): string {
  return /[\\\t\n\r]/.test(text)
    ? text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!)
    : text;
}

function copyRows(columns: readonly SinkColumn[], batch: RowBatch): string {
  const kinds = columns.map((c) => (c.type === 'int' ? INT : c.type === 'double' ? DOUBLE : -1));
  let out = '';
  for (let r = 0; r < batch.length; r++) {
    out += String(batch.firstRow + r);
    for (let i = 0; i < columns.length; i++) {
      const v = batch.values[i]![r]!;
      // \N is COPY's NULL: a missing value is NULL, not an empty text
      out += '\t' + (v === null ? '\\N' : kinds[i] === -1 ? copyText(v as string) : valueText(v, kinds[i]!));
    }
    out += '\n';
  }
  return out;
}

/** A pg failure in our words: the server's own message and SQLSTATE, or the connection's code. */
export function postgresFailure(err: unknown, what: string): SinkError {
  if (err instanceof SinkError) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    return new SinkError('SINK_WRITE', `${what}: PostgreSQL says: ${message} (${e.code})`);
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code))
    return new SinkError('SINK_WRITE', `${what}: cannot connect (${e.code})`);
  return new SinkError('SINK_WRITE', `${what}: the write failed unexpectedly`);
}

/** A connected client with this sink's budgets: 10 s to connect, 30 s for a lock, 10 min a statement. */
export async function connectTarget(target: PostgresTarget): Promise<pg.Client> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    database: target.database,
    user: target.user,
    password: target.password,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 600_000,
    lock_timeout: 30_000,
  });
  client.on('error', () => undefined); // a dropped connection fails the pending query instead
  await client.connect();
  return client;
}

/** The existing table's columns (in order), or undefined when there is no such table. */
async function existingColumns(client: pg.Client, table: readonly string[]) {
  const { rows } = await client.query<{ name: string; type: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [table.map(quoteIdentifier).join('.')],
  );
  return rows.length === 0 ? undefined : rows;
}

/**
 * The table's columns, creating it when absent (inside the caller's transaction, under a lock per
 * table, so concurrent writers wait for the creator and then see its table); returns the types the
 * table has.
 */
async function ensureTable(client: pg.Client, target: PostgresTarget, columns: readonly SinkColumn[]) {
  const name = target.table.map(quoteIdentifier).join('.');
  let found = await existingColumns(client, target.table);
  if (found === undefined) {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), 0)', [`modelworks synth ${name}`]);
    found = await existingColumns(client, target.table);
  }
  if (found === undefined) {
    const defs = columns.map((c) => `${quoteIdentifier(c.name)} ${SQL_TYPES[c.type]}`);
    await client.query(`CREATE TABLE ${name} (_row bigint PRIMARY KEY, ${defs.join(', ')})`);
    return [...columns];
  }
  const expected = ['_row', ...columns.map((c) => c.name)];
  const types = found.slice(1).map((c) => FROM_SQL.get(c.type));
  if (
    found.length !== expected.length ||
    found.some((c, i) => c.name !== expected[i]) ||
    types.includes(undefined)
  )
    throw new SinkError(
      'SINK_TARGET',
      `the table ${target.table.join('.')} exists with columns (${found.map((c) => `${c.name} ${c.type}`).join(', ')}); ` +
        `this model writes (_row bigint, ${columns.map((c) => `${c.name} bigint|double precision|text`).join(', ')})`,
    );
  return columns.map((c, i) => ({ name: c.name, type: types[i]! }));
}

/** A sink writing into one PostgreSQL table (see the file comment). */
export function postgresTableSink(target: PostgresTarget): SinkFactory {
  const tableName = target.table.join('.');
  return async (columns, range) => {
    let client: pg.Client;
    try {
      client = await connectTarget(target);
    } catch (err) {
      throw postgresFailure(err, `connecting to ${target.host}:${target.port}/${target.database}`);
    }
    let open = true;
    const end = async (): Promise<void> => {
      if (open) await client.end().catch(() => undefined);
      open = false;
    };
    let copy: ReturnType<typeof copyFrom> | undefined;
    let failed: unknown;
    let tableColumns: SinkColumn[];
    try {
      // one transaction: a table created here and the rows vanish together on abort
      await client.query('BEGIN');
      tableColumns = await ensureTable(client, target, columns);
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
        `modelworks synth ${tableName}`,
        `${range.start}-${range.end}`,
      ]);
      const name = target.table.map(quoteIdentifier).join('.');
      await client.query(`DELETE FROM ${name} WHERE _row >= $1 AND _row < $2`, [range.start, range.end]);
      const names = ['_row', ...columns.map((c) => c.name)].map(quoteIdentifier).join(', ');
      copy = client.query(copyFrom(`COPY ${name} (${names}) FROM STDIN`));
      copy.on('error', (err) => (failed ??= err));
    } catch (err) {
      await end();
      throw postgresFailure(err, `preparing ${tableName}`);
    }
    const stream = copy;
    return {
      columns: tableColumns,
      async write(batch) {
        if (failed !== undefined) throw postgresFailure(failed, `writing ${tableName}`);
        if (!stream.write(copyRows(tableColumns, batch)))
          await Promise.race([once(stream, 'drain'), once(stream, 'error')]).catch(() => undefined);
        if (failed !== undefined) throw postgresFailure(failed, `writing ${tableName}`);
      },
      async commit() {
        try {
          stream.end();
          if (failed === undefined) await once(stream, 'finish');
          if (failed === undefined) await client.query('COMMIT');
          else throw postgresFailure(failed, `writing ${tableName}`);
        } catch (err) {
          throw postgresFailure(err, `writing ${tableName}`);
        } finally {
          await end();
        }
      },
      async abort() {
        // ending the connection rolls the open transaction back
        await end();
      },
    } satisfies RowSink & { columns: SinkColumn[] };
  };
}
