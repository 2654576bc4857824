/**
 * The canonical text of an audit record, written piece by piece into a hash instead of built as
 * one string. The text is exactly `canonicalJson` of the record's hashed content (keys sorted,
 * null-valued record fields left out), so every chain written before this module verifies the
 * same (test/store/audit-hash.test.ts holds it to that, on random records and on stored chains).
 *
 * Why not `canonicalJson(record)`: a cycle of 2,000 derivations has 2,000 traces whose keys are
 * in the order the engine shows them (`targetPath` first), so the generic printer copied every
 * trace to sort its keys, then printed and hashed one 400 KB string. Here a trace of the known
 * shape is printed in sorted key order directly, the unchanging part of a derivation's trace
 * (expression and input paths) is printed and UTF-8 encoded once per derivation and reused, and
 * the bytes go into the hash in 64 KB chunks of one reusable buffer.
 */
import { createHash, hash, type Hash } from 'node:crypto';
import { canonicalJson } from '../calc/index.js';

/** Bytes gathered before they go into the hash (one `update` per chunk). */
const CHUNK_BYTES = 64 * 1024;

/**
 * One reusable byte buffer: `recordDigest` is synchronous, so no two digests ever share it at once.
 * Gathering bytes here instead of concatenating strings spares V8 building a rope of thousands of
 * pieces and flattening and UTF-8 converting it for the hash (most of the old cost: the SHA-256
 * itself is about 0.3 ms for a 400 KB record on this box).
 */
const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
/** Pieces longer than this (a record's path lists, its mutations) are encoded by Buffer.write in one call. */
const LONG_PIECE = 256;

/**
 * Text and ready-made bytes gathered into `chunk` and fed to a SHA-256. A record that fits one
 * chunk takes the one-shot hash, half the cost of a Hash object for a small record.
 */
class HashWriter {
  private length = 0;
  private sha: Hash | undefined;

  /** The UTF-8 bytes of `piece` (pieces are whole JSON tokens, so no surrogate pair is split). */
  add(piece: string): void {
    const n = piece.length;
    if (this.length + 3 * n > CHUNK_BYTES) {
      this.flush();
      if (3 * n > CHUNK_BYTES) {
        this.hashObject().update(piece, 'utf8');
        return;
      }
    }
    if (n > LONG_PIECE) {
      this.length += chunk.write(piece, this.length, 'utf8');
      return;
    }
    // short ASCII pieces (numbers, punctuation, names) are copied by hand: a Buffer.write per
    // piece costs more than the copy
    let at = this.length;
    for (let i = 0; i < n; i++) {
      const c = piece.charCodeAt(i);
      if (c >= 0x80) {
        this.length += chunk.write(piece, this.length, 'utf8');
        return;
      }
      chunk[at++] = c;
    }
    this.length = at;
  }

  /** Bytes already encoded (a derivation's unchanging trace text). */
  addBytes(bytes: Uint8Array): void {
    if (this.length + bytes.length > CHUNK_BYTES) {
      this.flush();
      if (bytes.length > CHUNK_BYTES) {
        this.hashObject().update(bytes);
        return;
      }
    }
    chunk.set(bytes, this.length);
    this.length += bytes.length;
  }

  digest(): string {
    const rest = chunk.subarray(0, this.length);
    this.length = 0;
    if (this.sha === undefined) return hash('sha256', rest, 'hex');
    return this.sha.update(rest).digest('hex');
  }

  private hashObject(): Hash {
    return (this.sha ??= createHash('sha256'));
  }

  private flush(): void {
    if (this.length === 0) return;
    this.hashObject().update(chunk.subarray(0, this.length));
    this.length = 0;
  }
}

/**
 * SHA-256 (hex) of `prevHash`, a newline and the record's canonical content: the record without
 * prevHash/hash, null-valued fields left out.
 */
export function recordDigest(prevHash: string, record: object): string {
  const out = new HashWriter();
  out.add(prevHash);
  out.add('\n{');
  const fields = record as Record<string, unknown>;
  const present = knownFieldsPresent(fields);
  let first = true;
  const writeField = (key: string, keyText: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (!first) out.add(',');
    out.add(keyText);
    first = false;
    if (key === 'traces' && Array.isArray(value)) writeTraces(out, value);
    else out.add(canonicalJson(value));
  };
  if (present >= 0) {
    // the record's fields are all known ones: printed in their sorted order, no key list to sort
    for (let i = 0; i < RECORD_FIELDS.length; i++)
      if ((present & (1 << i)) !== 0)
        writeField(RECORD_FIELDS[i]!, RECORD_KEY_TEXT[i]!, fields[RECORD_FIELDS[i]!]);
  } else {
    for (const key of Object.keys(fields).sort())
      if (key !== 'prevHash' && key !== 'hash') writeField(key, `${JSON.stringify(key)}:`, fields[key]);
  }
  out.add('}');
  return out.digest();
}

/**
 * The hashed fields of an AuditRecord in canonical (sorted) order, and each one's key as printed
 * (`"name":`). A record has these and nothing else but `prevHash` and `hash`, which are not hashed.
 */
const RECORD_FIELDS = [
  'derivedUpdated',
  'dispatchedEffects',
  'flaggedConstraints',
  'modelId',
  'modelVersion',
  'mutations',
  'origin',
  'sequence',
  'source',
  'stateHash',
  'timestamp',
  'traces',
] as const;
const RECORD_KEY_TEXT = RECORD_FIELDS.map((key) => `${JSON.stringify(key)}:`);
const RECORD_FIELD_BIT = new Map<string, number>(RECORD_FIELDS.map((key, i) => [key, 1 << i]));

/**
 * Which known fields the record has, as bits in RECORD_FIELDS order, when every key JSON would
 * print is a known field (or prevHash/hash) and its own; -1 otherwise (another key, or an
 * inherited enumerable one), for the generic printer. Walked with `for…in`, which allocates
 * nothing: sorting the record's key list made an array or two per record.
 */
function knownFieldsPresent(fields: Record<string, unknown>): number {
  let present = 0;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) return -1;
    const bit = RECORD_FIELD_BIT.get(key);
    if (bit !== undefined) present |= bit;
    else if (key !== 'prevHash' && key !== 'hash') return -1;
  }
  return present;
}

function writeTraces(out: HashWriter, traces: readonly unknown[]): void {
  out.add('[');
  for (let i = 0; i < traces.length; i++) {
    if (i > 0) out.add(',');
    const trace: unknown = traces[i];
    if (!writeTrace(out, trace)) out.add(canonicalJson(trace));
  }
  out.add(']');
}

/** The six fields of a trace (DerivationTrace), in canonical (sorted) order. */
const TRACE_FIELDS = ['constraintPassed', 'errorMessage', 'expression', 'inputPaths', 'result', 'targetPath'];
/** The same fields in the order the engine creates them (traces.ts), compared first. */
const ENGINE_ORDER = ['targetPath', 'expression', 'inputPaths', 'result', 'constraintPassed', 'errorMessage'];

/**
 * Whether an object's enumerable own keys (what JSON prints) are exactly the six trace fields. A
 * field present but not enumerable is not printed, so it does not count (hasOwn would count it).
 * The engine's order is compared first with `for…in`, which allocates nothing (Object.keys made an
 * array per trace); anything else (another order, an enumerable key inherited from a changed
 * Object.prototype, which JSON does not print) is settled by the own keys, sorted.
 */
function hasTraceKeys(trace: object): boolean {
  let i = 0;
  let inEngineOrder = true;
  for (const key in trace) {
    if (key !== ENGINE_ORDER[i]) {
      inEngineOrder = false;
      break;
    }
    i++;
  }
  if (inEngineOrder) return i === ENGINE_ORDER.length;
  const keys = Object.keys(trace);
  if (keys.length !== TRACE_FIELDS.length) return false;
  keys.sort();
  for (let k = 0; k < keys.length; k++) if (keys[k] !== TRACE_FIELDS[k]) return false;
  return true;
}

/**
 * Writes the canonical text of a trace of exactly the known shape (a plain object with the six
 * fields, typed as the engine writes them) and says true; anything else is left to the generic
 * printer (false, nothing written).
 */
function writeTrace(out: HashWriter, trace: unknown): boolean {
  if (typeof trace !== 'object' || trace === null || Array.isArray(trace)) return false;
  const proto: unknown = Object.getPrototypeOf(trace);
  if (proto !== Object.prototype && proto !== null) return false;
  if (!hasTraceKeys(trace)) return false;
  const t = trace as Record<string, unknown>;
  const { constraintPassed, errorMessage, expression, inputPaths, result, targetPath } = t;
  if (constraintPassed !== null && typeof constraintPassed !== 'boolean') return false;
  if (errorMessage !== null && typeof errorMessage !== 'string') return false;
  if (typeof expression !== 'string' || typeof targetPath !== 'string') return false;
  if (!Array.isArray(inputPaths) || result === undefined) return false; // undefined: the key is left out
  const source = sourceText(expression, inputPaths, targetPath);
  if (source === undefined) return false;
  if (constraintPassed === null && errorMessage === null) out.addBytes(source.plainHead);
  else
    out.add(
      `{"constraintPassed":${String(constraintPassed)},"errorMessage":${errorMessage === null ? 'null' : JSON.stringify(errorMessage)}${source.middle},"result":`,
    );
  out.add(typeof result === 'number' ? JSON.stringify(result) : canonicalJson(result));
  if (source.targetPath !== targetPath) {
    // rows of one `[*]` rule share a list; the bytes of the latest target are kept
    source.targetPath = targetPath;
    source.tail = Buffer.from(`,"targetPath":${JSON.stringify(targetPath)}}`, 'utf8');
  }
  out.addBytes(source.tail);
  return true;
}

/** A derivation's unchanging trace text, and what it was printed from. */
interface SourceText {
  expression: string;
  inputPaths: string[];
  /** The list was frozen when printed, so it still holds what it was printed from. */
  frozen: boolean;
  /** `,"expression":…,"inputPaths":[…]` */
  middle: string;
  /** The UTF-8 of everything before the result when constraintPassed and errorMessage are null (a derivation's value). */
  plainHead: Uint8Array;
  targetPath: string;
  /** The UTF-8 of `,"targetPath":…}` */
  tail: Uint8Array;
}

/**
 * Every trace of one derivation shares its input-path list (the same array, cycle after cycle), so
 * the text is kept by that array. It is reused only while the array still holds what it was
 * printed from (checked item by item) under the same expression, so a list changed in place is
 * printed afresh: a record altered in memory still fails verification. The engine freezes its
 * lists, so a list frozen when printed needs no check (a list frozen later is checked as before).
 */
const sourceTexts = new WeakMap<readonly unknown[], SourceText>();

function sourceText(
  expression: string,
  inputPaths: readonly unknown[],
  targetPath: string,
): SourceText | undefined {
  const known = sourceTexts.get(inputPaths);
  if (
    known !== undefined &&
    known.expression === expression &&
    (known.frozen || sameItems(known.inputPaths, inputPaths))
  )
    return known;
  for (const p of inputPaths) if (typeof p !== 'string') return undefined;
  // a frozen list cannot change, so it is kept as it is; any other is kept as a copy to compare with
  const frozen = Object.isFrozen(inputPaths);
  const paths = (frozen ? inputPaths : inputPaths.slice()) as string[];
  const middle = `,"expression":${JSON.stringify(expression)},"inputPaths":${JSON.stringify(paths)}`;
  const made: SourceText = {
    expression,
    inputPaths: paths,
    frozen,
    middle,
    plainHead: Buffer.from(`{"constraintPassed":null,"errorMessage":null${middle},"result":`, 'utf8'),
    // printed for the trace at hand: a derivation's traces keep one target (rows of a `[*]` rule change it)
    targetPath,
    tail: Buffer.from(`,"targetPath":${JSON.stringify(targetPath)}}`, 'utf8'),
  };
  sourceTexts.set(inputPaths, made);
  return made;
}

function sameItems(a: readonly string[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
