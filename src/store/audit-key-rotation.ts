/**
 * Audit key rotation (`modelworks audit rotate-key`): a new random key becomes the first line of
 * the key file and the keys before it stay below it, retired. New checkpoints are made with the new
 * key; a checkpoint made before the rotation still verifies with the retired key that made it, and
 * is rewritten with the new key by the model's next change. Servers read the key at start-up:
 * every server sharing a store is restarted after a rotation.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CalcError } from '../calc/index.js';
import {
  AUDIT_KEY_ENV,
  AUDIT_KEY_FILE_ENV,
  AuditKey,
  createKeyFile,
  defaultAuditKeyFile,
  keyFileFailure,
  readKeyFile,
} from './audit-key.js';

export interface RotatedKey {
  /** The key file rewritten. */
  file: string;
  /** The new current key's id. */
  keyId: string;
  /** The retired keys' ids, newest first (empty when there was no key yet). */
  retiredIds: string[];
}

/**
 * Rotates the key file the environment names (`MODELWORKS_AUDIT_KEY_FILE`, else the default file
 * in the config directory); creates it when there is none yet.
 * @throws CalcError INVALID_ARGUMENT when the key is given as `MODELWORKS_AUDIT_KEY` (not a file
 *   we may rewrite) or the file holds a bad key, STORE_FAILURE when it cannot be read or written
 */
export function rotateAuditKey(env: NodeJS.ProcessEnv): RotatedKey {
  if (env[AUDIT_KEY_ENV] !== undefined && env[AUDIT_KEY_ENV] !== '') {
    throw new CalcError(
      'INVALID_ARGUMENT',
      `the audit key comes from ${AUDIT_KEY_ENV}, which this command cannot rewrite: put the new key first and the old one after it in a file and name that file in ${AUDIT_KEY_FILE_ENV} instead (docs/stores.md, "Rotating the audit key")`,
    );
  }
  const named = env[AUDIT_KEY_FILE_ENV]?.trim();
  const file = named ? named : defaultAuditKeyFile(env);
  const before = readKeyFile(file);
  const fresh = `${randomBytes(32).toString('hex')}\n`;
  if (before === undefined) {
    createKeyFile(file, fresh);
    return { file, keyId: AuditKey.fromKeyringText(readKeyFile(file) ?? '', file).id, retiredIds: [] };
  }
  const old = AuditKey.fromKeyringText(before, `the file ${file}`); // a bad keyring is not rotated
  const text = `${fresh}# retired ${new Date().toISOString()}: the keys below verify older checkpoints only\n${before.endsWith('\n') ? before : `${before}\n`}`;
  replaceKeyFile(file, text);
  const rotated = AuditKey.fromKeyringText(text, file);
  return { file, keyId: rotated.id, retiredIds: [old.id, ...old.retiredIds] };
}

/** Writes `text` to a private temporary file beside `file`, then renames it onto `file`. */
function replaceKeyFile(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already renamed
    }
    throw keyFileFailure(err, `cannot rewrite the audit key file ${file}`);
  }
}
