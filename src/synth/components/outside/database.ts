/**
 * Database (§4.2, §9.3): one row of a table or query per observation. The URL must be on the
 * database URL allowlist and `query` needs the query gate; both are checked before the port is
 * called. Tables are read whole during the load phase (pg is asynchronous), then emitted like a
 * FlatFile. `table` reads `SELECT *` in the database's own order; use a query with ORDER BY when
 * a sequential order must be fixed.
 */
import type { TableData } from '../../access/ports.js';
import { QUERY_SETTING, databaseAccess, refuseAccess } from '../../access/urls.js';
import { SynthError } from '../../errors.js';
import type { ComponentImpl, LoadContext } from '../component.js';
import { descriptorOf } from '../component.js';
import type { TypedCell } from './table-node.js';
import { tableNode } from './table-node.js';

/** `name` or `schema.name`, letters, digits, `_` and `$` only: no quoting tricks reach SQL. */
const TABLE_NAME = /^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)?$/;

function load(ctx: LoadContext): Promise<TableData> {
  const p = ctx.params;
  const what = `Database "${ctx.name}"`;
  const url = p.text('url') ?? '';
  const { allowlists } = ctx.access;
  const access = databaseAccess(url, allowlists.databaseUrlAllowlist, ctx.access.ports.files, ctx.access.cwd);
  refuseAccess(what, access.refusal);
  const target = access.target!;
  const table = p.text('table')?.trim();
  const query = p.text('query');
  if ((table === undefined || table === '') === (query === undefined || query.trim() === ''))
    throw new SynthError('SYNTH_LOAD', `${what}: give exactly one of "table" and "query"`);
  if (query !== undefined && !allowlists.databaseAllowQuery)
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: free-form queries are refused; set ${QUERY_SETTING} to true or read a "table"`,
    );
  if (table !== undefined && !TABLE_NAME.test(table))
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: table "${table}" is not a plain name (letters, digits, _; optionally schema.name)`,
    );
  const port = ctx.access.ports.database;
  if (port === undefined)
    throw new SynthError('SYNTH_LOAD', `${what}: no database port was given to this run`);
  if (!ctx.async)
    throw new SynthError(
      'SYNTH_LOAD',
      `${what}: databases are read in the asynchronous load phase (loadSynthModel)`,
    );
  const user = p.text('user');
  const password = p.text('password');
  return port.read({
    url,
    target,
    ...(user === undefined ? {} : { user }),
    ...(password === undefined ? {} : { password }),
    ...(query === undefined ? { table } : { query }),
  });
}

/** Database cells keep their driver types: numbers print as doubles, everything else as text. */
export function typedRows(data: TableData): TypedCell[][] {
  return data.rows.map((r) => r.map((c) => (c === null ? '' : c)));
}

export const DATABASE: ComponentImpl = {
  descriptor: descriptorOf('Database'),
  inputAttributes: [],
  load,
  create(ctx) {
    const data = ctx.outside as TableData | undefined;
    if (data === undefined) return ctx.params.reject('the table was not loaded (no load phase ran)');
    return tableNode(ctx, typedRows(data), data.columns);
  },
};
