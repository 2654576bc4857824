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
 * (expression and input paths) is printed once per derivation and reused, and the text goes into
 * the hash in chunks.
 */
import { createHash, hash, type Hash } from 'node:crypto';
import { canonicalJson } from '../calc/index.js';

/** How much text is gathered before it goes into the hash (one UTF-8 conversion per chunk). */
const CHUNK_CHARS = 32 * 1024;

/**
 * Text gathered into chunks and fed to a SHA-256 (pieces are whole JSON tokens, so no surrogate pair
 * is split). A record that fits one chunk takes the one-shot hash, half the cost of a Hash object
 * for a small record.
 */
class HashWriter {
  private text = '';
  private sha: Hash | undefined;
  add(piece: string): void {
    this.text += piece;
    if (this.text.length >= CHUNK_CHARS) {
      (this.sha ??= createHash('sha256')).update(this.text, 'utf8');
      this.text = '';
    }
  }
  digest(): string {
    if (this.sha === undefined) return hash('sha256', this.text, 'hex');
    this.sha.update(this.text, 'utf8');
    return this.sha.digest('hex');
  }
}

/**
 * SHA-256 (hex) of `prevHash`, a newline and the record's canonical content: the record without
 * prevHash/hash, null-valued fields left out.
 */
export function recordDigest(prevHash: string, record: object): string {
  const out = new HashWriter();
  out.add(`${prevHash}\n{`);
  const fields = record as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(fields).sort()) {
    const value = fields[key];
    if (key === 'prevHash' || key === 'hash' || value === null || value === undefined) continue;
    out.add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (key === 'traces' && Array.isArray(value)) writeTraces(out, value);
    else out.add(canonicalJson(value));
  }
  out.add('}');
  return out.digest();
}

function writeTraces(out: HashWriter, traces: readonly unknown[]): void {
  out.add('[');
  for (let i = 0; i < traces.length; i++) {
    if (i > 0) out.add(',');
    const trace: unknown = traces[i];
    out.add(traceText(trace) ?? canonicalJson(trace));
  }
  out.add(']');
}

/** The six fields of a trace (DerivationTrace), in canonical (sorted) order. */
const TRACE_FIELDS = ['constraintPassed', 'errorMessage', 'expression', 'inputPaths', 'result', 'targetPath'];

/**
 * The canonical text of a trace of exactly the known shape (a plain object with the six fields,
 * typed as the engine writes them), or undefined for anything else, which the generic printer takes.
 */
function traceText(trace: unknown): string | undefined {
  if (typeof trace !== 'object' || trace === null || Array.isArray(trace)) return undefined;
  const proto: unknown = Object.getPrototypeOf(trace);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const keys = Object.keys(trace);
  if (keys.length !== TRACE_FIELDS.length) return undefined;
  for (const field of TRACE_FIELDS) if (!Object.hasOwn(trace, field)) return undefined;
  const t = trace as Record<string, unknown>;
  const { constraintPassed, errorMessage, expression, inputPaths, result, targetPath } = t;
  if (constraintPassed !== null && typeof constraintPassed !== 'boolean') return undefined;
  if (errorMessage !== null && typeof errorMessage !== 'string') return undefined;
  if (typeof expression !== 'string' || typeof targetPath !== 'string') return undefined;
  if (!Array.isArray(inputPaths) || result === undefined) return undefined; // undefined: the key is left out
  const source = sourceText(expression, inputPaths);
  if (source === undefined) return undefined;
  const resultText = typeof result === 'number' ? JSON.stringify(result) : canonicalJson(result);
  const head =
    constraintPassed === null && errorMessage === null
      ? source.plainHead
      : `{"constraintPassed":${String(constraintPassed)},"errorMessage":${errorMessage === null ? 'null' : JSON.stringify(errorMessage)}${source.middle},"result":`;
  if (source.targetPath !== targetPath) {
    // rows of one `[*]` rule share a list; the text of the latest target is kept
    source.targetPath = targetPath;
    source.tail = `,"targetPath":${JSON.stringify(targetPath)}}`;
  }
  return head + resultText + source.tail;
}

/** A derivation's unchanging trace text, and what it was printed from. */
interface SourceText {
  expression: string;
  inputPaths: string[];
  /** `,"expression":…,"inputPaths":[…]` */
  middle: string;
  /** Everything before the result when constraintPassed and errorMessage are null (a derivation's value). */
  plainHead: string;
  targetPath: string;
  /** `,"targetPath":…}` */
  tail: string;
}

/**
 * Every trace of one derivation shares its input-path list (the same array, cycle after cycle), so
 * the text is kept by that array. It is reused only while the array still holds what it was
 * printed from (checked item by item) under the same expression, so a list changed in place is
 * printed afresh: a record altered in memory still fails verification.
 */
const sourceTexts = new WeakMap<readonly unknown[], SourceText>();

function sourceText(expression: string, inputPaths: readonly unknown[]): SourceText | undefined {
  const known = sourceTexts.get(inputPaths);
  if (known !== undefined && known.expression === expression && sameItems(known.inputPaths, inputPaths))
    return known;
  for (const p of inputPaths) if (typeof p !== 'string') return undefined;
  const paths = inputPaths.slice() as string[];
  const middle = `,"expression":${JSON.stringify(expression)},"inputPaths":${JSON.stringify(paths)}`;
  const made: SourceText = {
    expression,
    inputPaths: paths,
    middle,
    plainHead: `{"constraintPassed":null,"errorMessage":null${middle},"result":`,
    targetPath: '',
    tail: ',"targetPath":""}',
  };
  sourceTexts.set(inputPaths, made);
  return made;
}

function sameItems(a: readonly string[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
