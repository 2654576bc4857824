/**
 * Tamper tests (issue 4, acceptance 3): audit rows edited, deleted and swapped directly in SQLite
 * and PostgreSQL; verify_audit names the first bad record and why.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CalcService } from '../../src/service/calc-service.js';
import { recordHash } from '../../src/service/audit.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import {
  counterSpec,
  freshSchema,
  openPostgres,
  POSTGRES_SKIP_REASON,
  POSTGRES_URL,
  tempDbPath,
  withPg,
} from './helpers.js';

/** Runs SQL written with $1, $2 … placeholders (each once, in order); returns rows changed. */
type Exec = (sql: string, params: unknown[]) => Promise<number>;

const ALTERED = 'content hash mismatch (record was altered)';
const MOVED = 'prevHash does not match the preceding record (reorder or deletion)';

interface Case {
  name: string;
  tamper: (exec: Exec, id: string, service: CalcService) => Promise<void>;
  first: number;
  detail: string;
}

const CASES: Case[] = [
  {
    name: 'a record content edited',
    tamper: async (exec, id) => {
      const n = await exec(
        `UPDATE audit SET record = replace(record, '"$.counters.a":3', '"$.counters.a":300') WHERE model_id = $1 AND sequence = 2`,
        [id],
      );
      expect(n).toBe(1);
    },
    first: 2,
    detail: ALTERED,
  },
  {
    name: 'a record edited and its own hash recomputed',
    tamper: async (exec, id, service) => {
      const r = (await service.store.auditRecords(id))[2]!;
      const forged = { ...r, mutations: { '$.counters.a': 300 } };
      await exec(
        `UPDATE audit SET record = replace(record, '"$.counters.a":3', '"$.counters.a":300'), hash = $1 WHERE model_id = $2 AND sequence = 2`,
        [recordHash(r.prevHash!, forged), id],
      );
    },
    first: 3,
    detail: MOVED,
  },
  {
    name: 'the stored prevHash of a record edited',
    tamper: async (exec, id) => {
      await exec(`UPDATE audit SET prev_hash = $1 WHERE model_id = $2 AND sequence = 2`, [
        'f'.repeat(64),
        id,
      ]);
    },
    first: 2,
    detail: MOVED,
  },
  {
    name: 'a middle record deleted',
    tamper: async (exec, id) => {
      expect(await exec(`DELETE FROM audit WHERE model_id = $1 AND sequence = 3`, [id])).toBe(1);
    },
    first: 4,
    detail: MOVED,
  },
  {
    name: 'the first record deleted',
    tamper: async (exec, id) => {
      expect(await exec(`DELETE FROM audit WHERE model_id = $1 AND sequence = 0`, [id])).toBe(1);
    },
    first: 1,
    detail: MOVED,
  },
  {
    name: "two records' sequences swapped",
    tamper: async (exec, id) => {
      await exec(`UPDATE audit SET sequence = -1 WHERE model_id = $1 AND sequence = 1`, [id]);
      await exec(`UPDATE audit SET sequence = 1 WHERE model_id = $1 AND sequence = 4`, [id]);
      await exec(`UPDATE audit SET sequence = 4 WHERE model_id = $1 AND sequence = -1`, [id]);
    },
    first: 1,
    detail: MOVED,
  },
  {
    name: 'a record replaced by text that is not JSON',
    tamper: async (exec, id) => {
      await exec(`UPDATE audit SET record = $1 WHERE model_id = $2 AND sequence = 5`, ['{not json', id]);
    },
    first: 5,
    detail: ALTERED,
  },
];

async function tamperSuite(open: () => Promise<Store>, exec: Exec): Promise<void> {
  const writer = new CalcService(await open());
  for (const k of CASES.keys()) {
    const id = `tamper-${k}`;
    await writer.createModel(counterSpec(id));
    for (let i = 0; i < 6; i++) await writer.mutate(id, { '$.counters.a': i + 1 });
    expect(await writer.verifyAudit(id)).toMatchObject({
      valid: true,
      recordsChecked: 6,
      firstBrokenSequence: null,
      detail: 'ok',
    });
  }
  for (const [k, c] of CASES.entries()) await c.tamper(exec, `tamper-${k}`, writer);
  await writer.close();

  const reader = new CalcService(await open());
  try {
    for (const [k, c] of CASES.entries()) {
      const v = await reader.verifyAudit(`tamper-${k}`);
      expect({ case: c.name, ...v }).toMatchObject({
        case: c.name,
        valid: false,
        firstBrokenSequence: c.first,
        detail: c.detail,
      });
    }
    // the model itself still reads and writes
    expect(await reader.getField('tamper-0', '$.total')).toBe(6);
  } finally {
    await reader.close();
  }
}

describe('tampered audit trails', () => {
  it('sqlite: verify_audit names the first bad record', async () => {
    const path = tempDbPath();
    const exec: Exec = (sql, params) => {
      const db = new Database(path);
      try {
        return Promise.resolve(db.prepare(sql.replace(/\$\d+/g, '?')).run(...params).changes);
      } finally {
        db.close();
      }
    };
    await tamperSuite(() => Promise.resolve(SqliteStore.open(path)), exec);
  });

  it.skipIf(!POSTGRES_URL)(
    `postgres: verify_audit names the first bad record${POSTGRES_URL ? '' : ` (skipped: ${POSTGRES_SKIP_REASON})`}`,
    async () => {
      const schema = freshSchema();
      const exec: Exec = (sql, params) =>
        withPg(schema, async (c) => (await c.query(sql, params)).rowCount ?? 0);
      await tamperSuite(() => openPostgres(schema), exec);
    },
  );
});

describe('a stored record whose text carries a __proto__ key', () => {
  it('is read back as plain data and reported as altered', async () => {
    const path = tempDbPath();
    const service = new CalcService(SqliteStore.open(path));
    try {
      await service.createModel(counterSpec('proto'));
      for (let i = 1; i <= 2; i++) await service.mutate('proto', { '$.counters.a': i });
      const db = new Database(path);
      try {
        db.prepare(`UPDATE audit SET record = ? WHERE model_id = 'proto' AND sequence = 1`).run(
          '{"__proto__":{"source":"patch","polluted":true},"mutations":{}}',
        );
      } finally {
        db.close();
      }
      const [, edited] = await service.store.auditRecords('proto');
      expect(Object.getPrototypeOf(edited)).toBe(Object.prototype);
      expect(Object.hasOwn(edited!, '__proto__')).toBe(true);
      expect(await service.verifyAudit('proto')).toMatchObject({
        valid: false,
        firstBrokenSequence: 1,
        detail: ALTERED,
      });
    } finally {
      await service.close();
    }
  });
});
