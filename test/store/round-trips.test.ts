/**
 * The write path does no avoidable work: a cycle on a model this process last wrote reads nothing
 * before it writes. On PostgreSQL that is one statement per cycle (the compare-and-set UPDATE, the
 * audit row and the notification together), prepared once per connection; on SQLite one UPDATE
 * and one INSERT in one transaction. (The stores' statements are internals: these tests watch
 * them through the driver objects the stores keep.)
 */
import type pg from 'pg';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  TEST_AUDIT_KEY,
  tempDbPath,
} from './helpers.js';

describe('statements per committed cycle', () => {
  it('sqlite: one UPDATE and one INSERT, nothing read', async () => {
    const store = SqliteStore.open(tempDbPath(), { auditKey: TEST_AUDIT_KEY });
    const service = new CalcService(store);
    await service.createModel(counterSpec('rt'));
    await service.mutate('rt', { '$.counters.a': 1 });
    const db = (store as unknown as { db: Database.Database }).db;
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    // statements are prepared once and kept; count their runs
    const statements = (store as unknown as { statements: Map<string, Database.Statement> }).statements;
    for (const [sql, stmt] of statements) {
      for (const method of ['run', 'get', 'all'] as const) {
        const call: (...args: unknown[]) => unknown = stmt[method].bind(stmt);
        (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          seen.push(sql.trim().split(/\s+/).slice(0, 3).join(' '));
          return call(...args);
        };
      }
    }
    (db as unknown as { prepare: (sql: string) => unknown }).prepare = (sql: string) => {
      seen.push(`prepare ${sql.trim().split(/\s+/).slice(0, 3).join(' ')}`);
      return prepare(sql);
    };
    for (let i = 2; i <= 4; i++) await service.mutate('rt', { '$.counters.a': i });
    expect(seen).toEqual(Array(3).fill(['UPDATE models SET', 'INSERT INTO audit']).flat());
    expect(await service.verifyAudit('rt')).toMatchObject({ valid: true, recordsChecked: 4 });
    await service.close();
  });

  it.skipIf(!POSTGRES_URL)(
    `postgres: one prepared statement${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const store = await openPostgres(freshSchema());
      const service = new CalcService(store);
      await service.createModel(counterSpec('rt'));
      await service.mutate('rt', { '$.counters.a': 1 });
      const pool = (store as unknown as { pool: pg.Pool }).pool;
      const seen: unknown[] = [];
      const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
      (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { name?: string };
        seen.push(typeof first === 'string' ? first.trim().split(/\s+/)[0] : { name: first.name });
        return query(...args);
      };
      for (let i = 2; i <= 4; i++) await service.mutate('rt', { '$.counters.a': i });
      expect(seen).toEqual(Array(3).fill({ name: 'modelworks_commit_cycle_3' }));
      expect(await service.verifyAudit('rt')).toMatchObject({ valid: true, recordsChecked: 4 });
      await service.close();
    },
  );
});
