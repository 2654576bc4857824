/**
 * The audit key: the secret behind the audit checkpoints (HMAC-SHA256). It lives apart from the
 * database and its folder, so someone who can write the database (or drop a file beside it) but
 * cannot read the key cannot make a rewritten trail look checkpointed.
 *
 * Where it comes from (`resolveAuditKey`, read by `openStore` at start-up):
 * - `MODELWORKS_AUDIT_KEY`: the key itself, at least 32 characters (e.g. `openssl rand -hex 32`);
 * - else `MODELWORKS_AUDIT_KEY_FILE`: a file holding it;
 * - else `audit.key` in the user's config directory (data-dir.ts: `~/.config/modelworks` on
 *   Linux), created with mode 0600 on first start when absent. Earlier versions kept it beside the
 *   database; such a key is moved there once (audit-key-custody.ts), and after that a key file
 *   beside the database is ignored.
 * Setting both variables is refused: which one was meant is not ours to guess.
 *
 * A key file is a keyring: one key per line, the first the current key (it makes checkpoints), the
 * others retired by `modelworks audit rotate-key` (they only verify the checkpoints they made).
 * Blank lines and lines starting with `#` are skipped.
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
import { dirname, join, resolve } from 'node:path';
import { CalcError } from '../calc/index.js';
import { defaultConfigDir } from './data-dir.js';

export const AUDIT_KEY_ENV = 'MODELWORKS_AUDIT_KEY';
export const AUDIT_KEY_FILE_ENV = 'MODELWORKS_AUDIT_KEY_FILE';
export const AUDIT_KEY_FILE_NAME = 'audit.key';
export const MIN_AUDIT_KEY_CHARS = 32;

/** The per-OS data directory (data-dir.ts), re-exported for the stores that import it from here. */
export { defaultDataDir } from './data-dir.js';

/** The default key file: `audit.key` in the user's config directory (outside the data folder). */
export function defaultAuditKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultConfigDir(env), AUDIT_KEY_FILE_NAME);
}

export class AuditKey {
  /** Names the key without revealing it (stored with every checkpoint). */
  readonly id: string;
  readonly #secret: Buffer;
  /** Keys retired by rotation, by id: they verify the checkpoints they made, never make new ones. */
  readonly #retired = new Map<string, AuditKey>();

  private constructor(
    secret: Buffer,
    /** Where the key came from, for messages: never the key itself. */
    readonly source: string,
    retired: readonly AuditKey[] = [],
  ) {
    this.#secret = secret;
    this.id = createHmac('sha256', secret).update('modelworks audit key id').digest('hex').slice(0, 16);
    for (const key of retired) if (key.id !== this.id) this.#retired.set(key.id, key);
  }

  /** The ids of the retired keys this key carries, newest first. */
  get retiredIds(): string[] {
    return [...this.#retired.keys()];
  }

  /** The key (this one or a retired one) whose id is `id`, to verify what it made. */
  verifierFor(id: string): AuditKey | undefined {
    return id === this.id ? this : this.#retired.get(id);
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

  /**
   * A keyring's text (see the module comment): the first key current, the others retired.
   * @throws CalcError INVALID_ARGUMENT when it holds no key or a key that is too short
   */
  static fromKeyringText(text: string, source: string): AuditKey {
    const lines = text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    if (lines.length === 0) throw new CalcError('INVALID_ARGUMENT', `the audit key from ${source} is empty`);
    const keys = lines.map((line) => AuditKey.fromText(line, source));
    return new AuditKey(keys[0]!.#secret, source, keys.slice(1));
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
    return AuditKey.fromKeyringText(text, `the file ${path}`);
  }
}

/** The key file's text, or undefined when there is no file. */
export function readKeyFile(path: string): string | undefined {
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
export function createKeyFile(path: string, text = `${randomBytes(32).toString('hex')}\n`): void {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      fchmodSync(fd, 0o600); // whatever the umask says
      writeSync(fd, text);
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

export function keyFileFailure(err: unknown, what: string): CalcError {
  if (err instanceof CalcError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  return new CalcError('STORE_FAILURE', `${what}${code ? ` (${code})` : ''}`, code ? { cause: code } : {});
}

export interface ResolveAuditKeyOptions {
  /**
   * Where earlier versions kept the key (`audit.key` beside the database): moved to the default
   * file once, when that does not exist yet (see `adoptLegacyKey`).
   */
  legacyFile?: string;
  /** Where the notes on a moved or ignored legacy key go; default stderr (never stdout). */
  notice?: (line: string) => void;
}

/**
 * The key a store uses, from the environment (see the module comment).
 * @throws CalcError INVALID_ARGUMENT for a bad or ambiguous setting, STORE_FAILURE for a key file
 *   that cannot be read or created
 */
export function resolveAuditKey(env: NodeJS.ProcessEnv, options: ResolveAuditKeyOptions = {}): AuditKey {
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
  if (hasFile) return AuditKey.fromFile(file.trim());
  const keyFile = defaultAuditKeyFile(env);
  if (options.legacyFile !== undefined) {
    const notice = options.notice ?? ((line: string) => void process.stderr.write(`${line}\n`));
    adoptLegacyKey(options.legacyFile, keyFile, notice);
  }
  return AuditKey.fromFile(keyFile);
}

/**
 * A key file beside the database (where earlier versions made it) is moved to `keyFile` once:
 * only while `keyFile` does not exist, so an existing installation keeps verifying after the
 * upgrade. Once the key lives in the config directory, a key file that appears beside the database
 * is ignored (with a note): whoever can write that folder could have put it there.
 */
function adoptLegacyKey(legacyFile: string, keyFile: string, notice: (line: string) => void): void {
  if (resolve(legacyFile) === resolve(keyFile)) return;
  const legacy = readKeyFile(legacyFile);
  if (legacy === undefined) return;
  if (readKeyFile(keyFile) !== undefined) {
    notice(
      `modelworks: ignoring the audit key file ${legacyFile} beside the database: the audit key is ${keyFile} (a key in the data folder is not trusted; docs/stores.md says how to adopt an old key)`,
    );
    return;
  }
  AuditKey.fromKeyringText(legacy, `the file ${legacyFile}`); // refuse a bad key before moving it
  createKeyFile(keyFile, legacy.endsWith('\n') ? legacy : `${legacy}\n`);
  const adopted = readKeyFile(keyFile);
  if (adopted !== legacy && adopted !== `${legacy}\n`) {
    // another process made the key file first (with its own key, or this one): keep ours beside
    notice(
      `modelworks: ignoring the audit key file ${legacyFile} beside the database: ${keyFile} was created meanwhile`,
    );
    return;
  }
  try {
    unlinkSync(legacyFile);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
    notice(
      `modelworks: copied the audit key from ${legacyFile} to ${keyFile} but cannot remove it (${code}): remove it`,
    );
    return;
  }
  notice(
    `modelworks: moved the audit key from ${legacyFile} to ${keyFile}: beside the database, anyone who can write that folder could replace it and forge a trail (docs/stores.md)`,
  );
}

/**
 * The failure of opening a store whose checkpoints were made with another key: writing with this
 * one would leave every model's trail unverifiable, so the store is not opened at all.
 */
export function wrongAuditKey(where: string, storeKeyId: string, key: AuditKey): CalcError {
  return new CalcError(
    'STORE_FAILURE',
    `the store at ${where} is checkpointed with audit key ${storeKeyId}, but this server's audit key (from ${key.source}) is ${key.id}: start it with the key the store was made with (${AUDIT_KEY_ENV}, ${AUDIT_KEY_FILE_ENV} or ${AUDIT_KEY_FILE_NAME} in the config directory, where a retired key may follow the current one); see docs/stores.md`,
    { cause: 'AUDIT_KEY_MISMATCH', storeKeyId, keyId: key.id },
  );
}
