/**
 * Database adapters for the synth database port: better-sqlite3 for `jdbc:sqlite:` (opened
 * read-only, must exist) and pg for PostgreSQL. They connect to the target the allowlist check
 * parsed, never to a re-parsed URL. Numbers come back as numbers; dates and other values as text.
 */
// the drivers load with the first read of their kind: a server that reads no database (most)
// starts without them (pg alone is ~60 files and loads undici; issue 45)
import type { Cell, DatabasePort, DatabaseRequest, TableData } from '../synth/index.js';

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return JSON.stringify(value);
}

function quoteName(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

function sql(request: DatabaseRequest): string {
  return request.query ?? `SELECT * FROM ${quoteName(request.table!)}`;
}

async function readSqlite(path: string, request: DatabaseRequest): Promise<TableData> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const statement = db.prepare(sql(request));
    if (!statement.reader)
      throw new Error('the query returns no rows (only SELECT-like statements are read)');
    const columns = statement.columns().map((c) => c.name);
    const rows = (statement.raw(true).all() as unknown[][]).map((r) => r.map(cell));
    return { columns, rows };
  } finally {
    db.close();
  }
}

// PostgreSQL numeric types arrive as text by default; the engine wants numbers for them.
const NUMERIC_TYPES = [20, 21, 23, 700, 701, 1700];
const TEXT_TYPES = [1082, 1083, 1114, 1184, 1266];

async function readPostgres(
  target: { host: string; port: string; database: string },
  request: DatabaseRequest,
): Promise<TableData> {
  let user = request.user;
  let password = request.password;
  // Credentials may also ride in the URL (postgres://user:pw@host/db).
  const m = /^(?:jdbc:postgresql:|postgres:|postgresql:)(\/\/.*)$/i.exec(request.url.trim());
  if (m !== null) {
    const url = new URL('postgres:' + m[1]!);
    if (user === undefined && url.username !== '') user = decodeURIComponent(url.username);
    if (password === undefined && url.password !== '') password = decodeURIComponent(url.password);
    user ??= url.searchParams.get('user') ?? undefined;
    password ??= url.searchParams.get('password') ?? undefined;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    host: target.host,
    port: Number(target.port),
    database: target.database || undefined,
    user,
    password,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 60_000,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (NUMERIC_TYPES.includes(oid)) return (v: string) => Number(v);
        if (TEXT_TYPES.includes(oid)) return (v: string) => v;
        return pg.types.getTypeParser(oid, format as 'text');
      }) as typeof pg.types.getTypeParser,
    },
  });
  await client.connect();
  try {
    // Read-only: a query cannot change the database even when queries are allowed.
    await client.query('BEGIN READ ONLY');
    const result = await client.query({ text: sql(request), rowMode: 'array' });
    await client.query('ROLLBACK');
    const rows = (result.rows as unknown[][]).map((r) => r.map(cell));
    return { columns: result.fields.map((f) => f.name), rows };
  } finally {
    await client.end();
  }
}

/**
 * A driver failure as a plain Error in our words: the database's own message (what SQLite or the
 * PostgreSQL server said, e.g. "no such table: t") is kept, a connection failure is named by its
 * code, and anything else (engine text) is not passed on.
 */
function readFailure(err: unknown, what: string): Error {
  const e = err as { name?: unknown; code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.name === 'SqliteError') return new Error(`${what}: SQLite says: ${message}`);
  // pg's DatabaseError: the server's own message, with its SQLSTATE code
  if (e?.name === 'error' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code))
    return new Error(`${what}: PostgreSQL says: ${message} (${e.code})`);
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code))
    return new Error(`${what}: cannot connect (${e.code})`);
  if (err instanceof Error && Object.getPrototypeOf(err) === Error.prototype)
    return new Error(`${what}: ${message}`);
  return new Error(`${what}: the read failed unexpectedly`);
}

export const nodeDatabasePort: DatabasePort = {
  async read(request: DatabaseRequest): Promise<TableData> {
    const target = request.target;
    try {
      if (target.kind === 'sqlite') return await readSqlite(target.path, request);
      return await readPostgres(target, request);
    } catch (err) {
      throw readFailure(
        err,
        target.kind === 'sqlite' ? 'reading the SQLite database' : 'reading the PostgreSQL database',
      );
    }
  },
};
