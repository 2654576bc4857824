/**
 * The audit key: the secret behind the audit checkpoints (HMAC-SHA256). It lives outside the
 * database, so someone who can write the database but cannot read the key cannot make a rewritten
 * trail look checkpointed.
 *
 * Where it comes from (`resolveAuditKey`, read by `openStore` at start-up):
 * - `MODELWORKS_AUDIT_KEY`: the key itself, at least 32 characters (e.g. `openssl rand -hex 32`);
 * - else `MODELWORKS_AUDIT_KEY_FILE`: a file holding it;
 * - else `audit.key` in the data directory (the SQLite file's folder; for PostgreSQL the user's
 *   modelworks data directory), created with mode 0600 on first start when absent.
 * Setting both variables is refused: which one was meant is not ours to guess.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { CalcError } from '../calc/index.js';

export const AUDIT_KEY_ENV = 'MODELWORKS_AUDIT_KEY';
export const AUDIT_KEY_FILE_ENV = 'MODELWORKS_AUDIT_KEY_FILE';
export const AUDIT_KEY_FILE_NAME = 'audit.key';
export const MIN_AUDIT_KEY_CHARS = 32;

/** The per-OS data directory (data-dir.ts), re-exported for the stores that import it from here. */
export { defaultDataDir } from './data-dir.js';

export class AuditKey {
  /** Names the key without revealing it (stored with every checkpoint). */
  readonly id: string;
  readonly #secret: Buffer;

  private constructor(
    secret: Buffer,
    /** Where the key came from, for messages: never the key itself. */
    readonly source: string,
  ) {
    this.#secret = secret;
    this.id = createHmac('sha256', secret).update('modelworks audit key id').digest('hex').slice(0, 16);
  }

  /** HMAC-SHA256 of `text`, hex. */
  mac(text: string): string {
    return createHmac('sha256', this.#secret).update(text).digest('hex');
  }

  /**
   * A key given as text (the env setting, or a file's content).
   * @throws CalcError INVALID_ARGUMENT when it is shorter than MIN_AUDIT_KEY_CHARS
   */
  static fromText(text: string, source: string): AuditKey {
    const key = text.trim();
    if (key.length < MIN_AUDIT_KEY_CHARS) {
      throw new CalcError(
        'INVALID_ARGUMENT',
        `the audit key from ${source} has ${key.length} characters; it needs at least ${MIN_AUDIT_KEY_CHARS} (e.g. the output of \`openssl rand -hex 32\`)`,
      );
    }
    return new AuditKey(Buffer.from(key, 'utf8'), source);
  }

  /** A key that lives and dies with this process (the memory store's: nothing it keeps outlives it). */
  static ephemeral(): AuditKey {
    return new AuditKey(randomBytes(32), 'a key made for this process');
  }

  /**
   * Reads the key file at `path`, creating it (mode 0600, 32 random bytes as hex) when it is absent.
   * @throws CalcError STORE_FAILURE when it cannot be read or created, INVALID_ARGUMENT when it is
   *   too short, too open (others may read it, or its group may change it) or not a file
   */
  static fromFile(path: string): AuditKey {
    let text = readKeyFile(path);
    if (text === undefined) {
      createKeyFile(path);
      text = readKeyFile(path);
      if (text === undefined) {
        throw new CalcError('STORE_FAILURE', `the audit key file ${path} vanished as it was created`);
      }
    }
    return AuditKey.fromText(text, `the file ${path}`);
  }
}

/** The key file's text, or undefined when there is no file. */
function readKeyFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw keyFileFailure(err, `cannot read the audit key file ${path}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CalcError('INVALID_ARGUMENT', `the audit key file ${path} is not a file`);
    // others must not read it, nor its group change it (a changed key would vouch for anything)
    if (process.platform !== 'win32' && (st.mode & 0o027) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      throw new CalcError(
        'INVALID_ARGUMENT',
        `the audit key file ${path} is open to other users (mode ${mode}); make it private: chmod 600 ${path}`,
      );
    }
    return readFileSync(fd, 'utf8');
  } catch (err) {
    throw keyFileFailure(err, `cannot read the audit key file ${path}`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a new key to a private temporary file, then links it into place: a process starting at
 * the same moment either wins the link or reads the complete file the winner linked.
 */
function createKeyFile(path: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600); // whatever the umask says
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // someone else's key won
    }
  } catch (err) {
    throw keyFileFailure(err, `cannot create the audit key file ${path}`);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // never created, or already gone
    }
  }
}

function keyFileFailure(err: unknown, what: string): CalcError {
  if (err instanceof CalcError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new CalcError('STORE_FAILURE', `${what}${code ? ` (${code})` : ''}`, code ? { cause: code } : {});
}

/**
 * The key a store uses, from the environment (see the module comment); `defaultFile` is the key
 * file used when neither variable is set.
 * @throws CalcError INVALID_ARGUMENT for a bad or ambiguous setting, STORE_FAILURE for a key file
 *   that cannot be read or created
 */
export function resolveAuditKey(env: NodeJS.ProcessEnv, defaultFile: string): AuditKey {
  const text = env[AUDIT_KEY_ENV];
  const file = env[AUDIT_KEY_FILE_ENV];
  const hasText = text !== undefined && text !== '';
  const hasFile = file !== undefined && file.trim() !== '';
  if (hasText && hasFile) {
    throw new CalcError(
      'INVALID_ARGUMENT',
      `both ${AUDIT_KEY_ENV} and ${AUDIT_KEY_FILE_ENV} are set; set one of them`,
    );
  }
  if (hasText) return AuditKey.fromText(text, AUDIT_KEY_ENV);
  return AuditKey.fromFile(hasFile ? file.trim() : defaultFile);
}

/**
 * The failure of opening a store whose checkpoints were made with another key: writing with this
 * one would leave every model's trail unverifiable, so the store is not opened at all.
 */
export function wrongAuditKey(where: string, storeKeyId: string, key: AuditKey): CalcError {
  return new CalcError(
    'STORE_FAILURE',
    `the store at ${where} is checkpointed with audit key ${storeKeyId}, but this server's audit key (from ${key.source}) is ${key.id}: start it with the key the store was made with (${AUDIT_KEY_ENV}, ${AUDIT_KEY_FILE_ENV} or the ${AUDIT_KEY_FILE_NAME} file of its data directory); see docs/stores.md`,
    { cause: 'AUDIT_KEY_MISMATCH', storeKeyId, keyId: key.id },
  );
}
