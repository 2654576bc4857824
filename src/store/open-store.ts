/**
 * Chooses a store from its spec text (`--store` / `MODELWORKS_STORE`):
 * - `memory`                         the in-process store (nothing survives the process)
 * - `sqlite:PATH`, `sqlite://PATH`   a SQLite file (created with its folder when missing)
 * - a bare path ending in .db, .sqlite or .sqlite3
 * - `postgres://…`, `postgresql://…` a PostgreSQL database (schema migrated on open)
 * - nothing (undefined or blank)     SQLite at `modelworks.db` in the user's data directory
 *                                    (data-dir.ts: `~/.local/share/modelworks` on Linux)
 *
 * The audit key of a durable store (audit-key.ts): `MODELWORKS_AUDIT_KEY`, else the file
 * `MODELWORKS_AUDIT_KEY_FILE`, else `audit.key` in the user's config directory, never the data
 * folder (a key earlier versions left beside the database is moved there once: the SQLite file's
 * folder; for PostgreSQL the user's data directory). The memory store makes its own for the process.
 */
import { dirname, join } from 'node:path';
import { CalcError } from '../calc/index.js';
import { AUDIT_KEY_FILE_NAME, defaultDataDir, resolveAuditKey } from './audit-key.js';
import { MemoryStore } from './memory-store.js';
import type { Store } from './store.js';

/** The default SQLite file under the user's data directory. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultDataDir(env), 'modelworks.db');
}

export type StoreLocation =
  { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/**
 * Parses a store spec without opening anything.
 * @throws CalcError INVALID_ARGUMENT for an unknown scheme or an empty path
 */
export function parseStoreSpec(
  spec: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StoreLocation {
  const text = (spec ?? '').trim();
  if (text === '') return { kind: 'sqlite', path: defaultStorePath(env) };
  if (text === 'memory') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: 'postgres', url: text };
  if (/^sqlite:/i.test(text)) {
    let path = text.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '') {
      throw new CalcError('INVALID_ARGUMENT', `store '${text}' names no file: use sqlite:PATH`);
    }
    return { kind: 'sqlite', path };
  }
  if (/\.(db|sqlite3?)$/i.test(text) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    return { kind: 'sqlite', path: text };
  throw new CalcError(
    'INVALID_ARGUMENT',
    `unknown store '${text}': use memory, sqlite:PATH (or a path ending in .db), or postgres://USER@HOST:PORT/DB`,
    { store: text },
  );
}

/**
 * Opens the store a spec names, with its audit key (see the module comment).
 * @throws CalcError INVALID_ARGUMENT (unknown spec, bad audit key setting), STORE_FAILURE (cannot
 *   open or migrate, key file unreadable, store checkpointed with another audit key)
 */
export async function openStore(
  spec: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Store> {
  const where = parseStoreSpec(spec, env);
  switch (where.kind) {
    case 'memory':
      return new MemoryStore();
    case 'sqlite': {
      // each store's module (and its driver) loads only when that store is opened: `mcp --store
      // memory` answers its first tools/list without better-sqlite3 or pg (issue 45)
      const { SqliteStore } = await import('./sqlite-store.js');
      // a database that ends with the process needs no key that outlives it
      if (where.path === ':memory:') return SqliteStore.open(where.path);
      return SqliteStore.open(where.path, {
        auditKey: resolveAuditKey(env, { legacyFile: join(dirname(where.path), AUDIT_KEY_FILE_NAME) }),
      });
    }
    case 'postgres': {
      const { PostgresStore } = await import('./postgres-store.js');
      return PostgresStore.open(where.url, {
        auditKey: resolveAuditKey(env, { legacyFile: join(defaultDataDir(env), AUDIT_KEY_FILE_NAME) }),
      });
    }
  }
}
