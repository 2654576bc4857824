/**
 * Audit key custody (issue 47): the key lives in the user's config directory, not beside the
 * database, so whoever can write the data folder cannot forge a trail with a key of their own; a
 * key earlier versions left beside the database is moved once; rotation keeps old checkpoints
 * verifiable under the retired key's id. SQLite stores through `openStore`, as a server opens them.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordHash } from '../../src/service/audit.js';
import { CalcService } from '../../src/service/calc-service.js';
import { stateHashOf } from '../../src/store/audit-chain.js';
import { makeCheckpoint } from '../../src/store/audit-checkpoint.js';
import { AUDIT_KEY_FILE_NAME, AuditKey, defaultAuditKeyFile } from '../../src/store/audit-key.js';
import { rotateAuditKey } from '../../src/store/audit-key-rotation.js';
import { openStore } from '../../src/store/open-store.js';
import { auditContent, auditFromRow } from '../../src/store/row-codec.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { GENESIS_HASH } from '../../src/store/store.js';
import { run } from '../cli/cli-process.js';
import { counterSpec, tempDbPath } from './helpers.js';

/** An environment of its own: a config directory no other test (nor the user) shares. */
function isolatedEnv(): NodeJS.ProcessEnv {
  return { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'mw-custody-config-')) };
}

async function service(path: string, env: NodeJS.ProcessEnv): Promise<CalcService> {
  return new CalcService(await openStore(`sqlite:${path}`, env));
}

/** A model with `n` cycles, by a server that is stopped again. */
async function seeded(path: string, env: NodeJS.ProcessEnv, id: string, n: number): Promise<void> {
  const s = await service(path, env);
  await s.createModel(counterSpec(id));
  for (let i = 1; i <= n; i++) await s.mutate(id, { '$.counters.a': i });
  await s.close();
}

async function verify(path: string, env: NodeJS.ProcessEnv, id: string) {
  const s = await service(path, env);
  try {
    return await s.verifyAudit(id);
  } finally {
    await s.close();
  }
}

/**
 * What someone who can write the data folder (but not read the config directory) does: puts a key
 * of their own beside the database, rewrites the trail with every hash recomputed, names their key
 * in the store and checkpoints the rewritten trail with it.
 */
function forgeWithOwnKey(path: string, id: string): AuditKey {
  const secret = 'f'.repeat(64);
  writeFileSync(join(dirname(path), AUDIT_KEY_FILE_NAME), `${secret}\n`, { mode: 0o600 });
  const forger = AuditKey.fromText(secret, 'the forger');
  const db = new Database(path);
  try {
    const rows = db
      .prepare('SELECT sequence, record, prev_hash, hash FROM audit WHERE model_id = ? ORDER BY sequence')
      .all(id) as Parameters<typeof auditFromRow>[1][];
    let prev = GENESIS_HASH;
    const update = db.prepare(
      'UPDATE audit SET record = ?, prev_hash = ?, hash = ? WHERE model_id = ? AND sequence = ?',
    );
    for (const row of rows) {
      const r = auditFromRow(id, row);
      r.mutations = { '$.counters.a': 1000 + r.sequence };
      r.prevHash = prev;
      r.hash = recordHash(prev, r);
      update.run(auditContent(r), r.prevHash, r.hash, id, r.sequence);
      prev = r.hash;
    }
    const model = db.prepare('SELECT state, next_sequence FROM models WHERE id = ?').get(id) as {
      state: string;
      next_sequence: number;
    };
    const head = { nextSequence: model.next_sequence, lastHash: prev, stateHash: stateHashOf(model.state) };
    db.prepare('UPDATE models SET last_hash = ?, audit_checkpoint = ? WHERE id = ?').run(
      prev,
      makeCheckpoint(forger, id, head, 0).text,
      id,
    );
    db.prepare(`UPDATE audit_meta SET value = ? WHERE name = 'key_id'`).run(forger.id);
  } finally {
    db.close();
  }
  return forger;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('audit key custody', () => {
  it('the default key is in the config directory (mode 0600), nothing is beside the database', async () => {
    const env = isolatedEnv();
    const path = tempDbPath();
    await seeded(path, env, 'm', 1);
    expect(existsSync(join(dirname(path), AUDIT_KEY_FILE_NAME))).toBe(false);
    expect(statSync(defaultAuditKeyFile(env)).mode & 0o777).toBe(0o600);
  });

  it('a trail signed with a key put in the data folder does not verify as authentic', async () => {
    const env = isolatedEnv();
    const path = tempDbPath();
    await seeded(path, env, 'm', 3);
    const forger = forgeWithOwnKey(path, 'm');
    // the server keeps its own key: the store named the forger's key, so it is not opened at all
    let verdict: unknown;
    try {
      verdict = await verify(path, env, 'm');
    } catch (err) {
      verdict = err;
    }
    expect(verdict).toMatchObject({
      code: 'STORE_FAILURE',
      details: { cause: 'AUDIT_KEY_MISMATCH', storeKeyId: forger.id },
    });
    // and with the key id put back, verify_audit finds a checkpoint its key did not make
    const db = new Database(path);
    db.prepare(`UPDATE audit_meta SET value = ? WHERE name = 'key_id'`).run(
      AuditKey.fromFile(defaultAuditKeyFile(env)).id,
    );
    db.close();
    expect(await verify(path, env, 'm')).toMatchObject({
      valid: false,
      detail: expect.stringContaining(`made with audit key ${forger.id}`) as unknown,
    });
  });

  it('a key earlier versions left beside the database is moved once, with a note, and keeps verifying', async () => {
    const env = isolatedEnv();
    const path = tempDbPath();
    const legacyFile = join(dirname(path), AUDIT_KEY_FILE_NAME);
    // the earlier layout: the store made with the key file in its own folder
    const legacy = AuditKey.fromFile(legacyFile);
    const s = new CalcService(SqliteStore.open(path, { auditKey: legacy }));
    await s.createModel(counterSpec('old'));
    await s.mutate('old', { '$.counters.a': 1 });
    await s.close();
    const legacyText = readFileSync(legacyFile, 'utf8');

    const notes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (notes.push(String(chunk)), true));
    expect(await verify(path, env, 'old')).toMatchObject({ valid: true, keyId: legacy.id });
    expect(notes).toEqual([
      `modelworks: moved the audit key from ${legacyFile} to ${defaultAuditKeyFile(env)}: beside the database, anyone who can write that folder could replace it and forge a trail (docs/stores.md)\n`,
    ]);
    expect(existsSync(legacyFile)).toBe(false);
    expect(readFileSync(defaultAuditKeyFile(env), 'utf8')).toBe(legacyText);
    expect(statSync(defaultAuditKeyFile(env)).mode & 0o777).toBe(0o600);

    notes.length = 0;
    expect(await verify(path, env, 'old')).toMatchObject({ valid: true, keyId: legacy.id });
    expect(notes).toEqual([]); // once

    // a key file that shows up beside the database later is ignored, and said so
    writeFileSync(legacyFile, `${'p'.repeat(64)}\n`, { mode: 0o600 });
    expect(await verify(path, env, 'old')).toMatchObject({ valid: true, keyId: legacy.id });
    expect(notes.join('')).toContain(`ignoring the audit key file ${legacyFile} beside the database`);
  });

  it('rotation: new checkpoints use the new key, older ones verify under the retired key id', async () => {
    const env = isolatedEnv();
    const path = tempDbPath();
    await seeded(path, env, 'touched', 2);
    await seeded(path, env, 'untouched', 2);
    const old = AuditKey.fromFile(defaultAuditKeyFile(env));

    const rotated = rotateAuditKey(env);
    expect(rotated).toEqual({
      file: defaultAuditKeyFile(env),
      keyId: expect.any(String),
      retiredIds: [old.id],
    });
    expect(rotated.keyId).not.toBe(old.id);
    expect(statSync(rotated.file).mode & 0o777).toBe(0o600);

    expect(await verify(path, env, 'touched')).toMatchObject({ valid: true, keyId: old.id });
    const s = await service(path, env);
    await s.mutate('touched', { '$.counters.a': 9 });
    await s.createModel(counterSpec('new'));
    await s.mutate('new', { '$.counters.a': 1 });
    await s.close();
    expect(await verify(path, env, 'touched')).toMatchObject({
      valid: true,
      keyId: rotated.keyId,
      recordsChecked: 3,
    });
    expect(await verify(path, env, 'new')).toMatchObject({ valid: true, keyId: rotated.keyId });
    expect(await verify(path, env, 'untouched')).toMatchObject({ valid: true, keyId: old.id });

    // a second rotation keeps both older keys
    const again = rotateAuditKey(env);
    expect(again.retiredIds).toEqual([rotated.keyId, old.id]);
    expect(await verify(path, env, 'untouched')).toMatchObject({ valid: true, keyId: old.id });

    // dropping the retired keys: what they checkpointed no longer verifies
    writeFileSync(rotated.file, `${readFileSync(rotated.file, 'utf8').split('\n')[0]}\n`, { mode: 0o600 });
    expect(await verify(path, env, 'untouched')).toMatchObject({
      valid: false,
      detail: expect.stringContaining(`made with audit key ${old.id}`) as unknown,
    });
  });

  it('rotation refuses a key given in MODELWORKS_AUDIT_KEY and leaves a bad key file as it was', () => {
    expect(() => rotateAuditKey({ MODELWORKS_AUDIT_KEY: 'k'.repeat(40) })).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('MODELWORKS_AUDIT_KEY') as unknown,
      }) as unknown,
    );
    const file = join(mkdtempSync(join(tmpdir(), 'mw-custody-')), 'audit.key');
    writeFileSync(file, 'short\n', { mode: 0o600 });
    expect(() => rotateAuditKey({ MODELWORKS_AUDIT_KEY_FILE: file })).toThrow(/needs at least 32/);
    expect(readFileSync(file, 'utf8')).toBe('short\n');
    chmodSync(file, 0o644);
    expect(() => rotateAuditKey({ MODELWORKS_AUDIT_KEY_FILE: file })).toThrow(/open to other users/);
  });

  it(
    '`modelworks audit rotate-key` rotates the default key file and says which ids',
    { timeout: 60_000 },
    () => {
      const env = isolatedEnv() as Record<string, string>;
      const file = defaultAuditKeyFile(env);
      const first = run(['audit', 'rotate-key'], { env: { ...env, MODELWORKS_AUDIT_KEY: '' } });
      expect(first).toMatchObject({ code: 0, stderr: '' });
      const made = AuditKey.fromFile(file);
      expect(first.stdout).toBe(
        `rotated the audit key in ${file}: new key id ${made.id} (there was no key yet); restart every server that shares a store to use it\n`,
      );
      const second = run(['audit', 'rotate-key'], { env: { ...env, MODELWORKS_AUDIT_KEY: '' } });
      const now = AuditKey.fromFile(file);
      expect(second).toMatchObject({ code: 0, stderr: '' });
      expect(second.stdout).toBe(
        `rotated the audit key in ${file}: new key id ${now.id}; retired key ${made.id} still verifies the checkpoints made before; restart every server that shares a store to use it\n`,
      );
      expect(now.retiredIds).toEqual([made.id]);
      const refused = run(['audit', 'rotate-key'], { env: { ...env, MODELWORKS_AUDIT_KEY: 'k'.repeat(40) } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^modelworks: the audit key comes from MODELWORKS_AUDIT_KEY/);
    },
  );
});
