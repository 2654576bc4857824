/**
 * A bounded reader for the zip container of an .xlsx: the central directory is read first, the
 * declared sizes are checked against the limit before anything is inflated, and inflation stops
 * as soon as an entry produces more bytes than it declared (a lying zip bomb).
 */
import { Inflate } from 'fflate';
import { SheetError } from './errors.js';

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_ENTRIES = 10_000;
const CHUNK = 64 * 1024;

const fail = (message: string): never => {
  throw new SheetError('PARSE_FAILED', message);
};

/** True when the bytes start like a zip archive. */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 3 && bytes[3] === 4;
}

/** The entries of the central directory, by name. */
export function readCentralDirectory(bytes: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) fail('the zip archive has no end-of-central-directory record (truncated or corrupt)');
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff) fail('zip64 archives are not supported');
  if (count > MAX_ENTRIES) fail(`the zip archive lists ${count} entries (limit ${MAX_ENTRIES})`);
  if (cdOffset + cdSize > bytes.length) fail('the zip central directory lies outside the file');
  const entries = new Map<string, ZipEntry>();
  let p = cdOffset;
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CENTRAL) fail('corrupt zip central directory');
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const compressedSize = view.getUint32(p + 20, true);
    const size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const localOffset = view.getUint32(p + 42, true);
    if (p + 46 + nameLen > bytes.length) fail('corrupt zip central directory');
    const name = decoder.decode(bytes.subarray(p + 46, p + 46 + nameLen));
    if (size === 0xffffffff || compressedSize === 0xffffffff) fail('zip64 archives are not supported');
    entries.set(name, { name, method, flags, compressedSize, size, localOffset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/**
 * Inflates one entry, never producing more than its declared size; `budget` is what the caller
 * still allows (checked against the declared size before any work).
 */
export function readEntry(bytes: Uint8Array, entry: ZipEntry, budget: number): Uint8Array {
  const out = new Uint8Array(entry.size);
  let written = 0;
  inflateEntry(bytes, entry, budget, (chunk) => {
    out.set(chunk, written);
    written += chunk.length;
  });
  return out;
}

/**
 * Inflates one entry chunk by chunk (about 64 KB each) into `onChunk`, with the checks of
 * `readEntry`: the whole entry is never in memory at once. A chunk is valid only during the call.
 */
export function inflateEntry(
  bytes: Uint8Array,
  entry: ZipEntry,
  budget: number,
  onChunk: (chunk: Uint8Array) => void,
): void {
  if (entry.size > budget) {
    throw new SheetError(
      'FILE_TOO_LARGE',
      `${entry.name} would inflate to ${entry.size} bytes, past the ${budget}-byte limit on uncompressed content (zip-bomb guard)`,
    );
  }
  if (entry.flags & 1) throw new SheetError('UNSUPPORTED_FORMAT', `${entry.name} is encrypted`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const p = entry.localOffset;
  if (p + 30 > bytes.length || view.getUint32(p, true) !== LOCAL)
    fail(`corrupt local header of ${entry.name}`);
  const start = p + 30 + view.getUint16(p + 26, true) + view.getUint16(p + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) fail(`${entry.name} is truncated`);
  const data = bytes.subarray(start, end);
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.size) fail(`${entry.name}: stored size disagrees with its header`);
    for (let i = 0; i < data.length; i += CHUNK) onChunk(data.subarray(i, Math.min(i + CHUNK, data.length)));
    return;
  }
  if (entry.method !== 8) fail(`${entry.name} uses unsupported compression method ${entry.method}`);
  let written = 0;
  let ended = false;
  let overflow = false;
  let failure: unknown;
  const inflater = new Inflate((chunk, final) => {
    if (written + chunk.length > entry.size) {
      overflow = true;
      throw new SheetError(
        'FILE_TOO_LARGE',
        `${entry.name} inflates past its declared ${entry.size} bytes; refusing a possible zip bomb`,
      );
    }
    written += chunk.length;
    try {
      onChunk(chunk);
    } catch (err) {
      // the reader's own failure (a malformed part, a budget) is passed on as it is
      failure = err;
      throw err;
    }
    if (final) ended = true;
  });
  try {
    for (let i = 0; i < data.length; i += CHUNK) {
      inflater.push(data.subarray(i, Math.min(i + CHUNK, data.length)), i + CHUNK >= data.length);
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    if (failure !== undefined) throw failure as Error;
    if (overflow || err instanceof SheetError) throw err;
    fail(`${entry.name} does not inflate: ${(err as Error).message}`);
  }
  if (!ended || written !== entry.size)
    fail(`${entry.name} inflated to ${written} bytes, not the declared ${entry.size}`);
}
