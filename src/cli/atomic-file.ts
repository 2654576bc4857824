/**
 * Output files are written whole or not at all: the bytes go to a temporary file beside the target
 * (the same folder, so the rename is atomic on one file system) that is renamed onto the target on
 * success. A failure removes the temporary file; an interrupt (SIGINT, SIGTERM, SIGHUP) removes it
 * and says so. Written here rather than taken from write-file-atomic: `synth grind` streams
 * gigabytes, which that library's whole-buffer writeFile cannot, and the interrupt line is ours.
 *
 * Only a regular file or a missing one is replaced that way; a device, FIFO, socket or standard
 * stream is written in place and a symlink's target file is replaced, the link kept
 * (synth-io/output-target.ts says why).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, unlinkSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { constants } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { openInPlace, outputTarget, type OutputTarget } from '../synth-io/output-target.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type Signal = (typeof SIGNALS)[number];

/**
 * Until the returned function is called, an interrupt writes `line(signal)` to stderr and exits
 * with 128 + the signal's number (130 for Ctrl-C), as shells report a command a signal stopped.
 */
export function onInterrupt(line: (signal: Signal) => string): () => void {
  const handler = (signal: Signal): void => {
    dispose();
    process.stderr.write(`${line(signal)}\n`);
    process.exit(128 + constants.signals[signal]);
  };
  const dispose = (): void => {
    for (const s of SIGNALS) process.removeListener(s, handler);
  };
  for (const s of SIGNALS) process.on(s, handler);
  return dispose;
}

export interface AtomicFile {
  readonly path: string;
  /** The temporary file; undefined for a target written in place (a device, FIFO, socket, stream). */
  readonly tempPath: string | undefined;
  readonly stream: Writable;
  /** Ends the stream and renames the temporary file onto the target. */
  commit(): Promise<void>;
  /** Removes the temporary file (after a failure); the target is left as it was. */
  discard(): Promise<void>;
}

export interface AtomicOptions {
  /** The interrupt line's prefix: `modelworks`, `modelworks synth`. */
  prefix: string;
  /** What was done when the run was interrupted (`after 1,024 of 10,000,000 rows`). */
  progress?: () => string;
}

/**
 * Opens the temporary file for `path` (or, for a target written in place, the target itself).
 * Throws a system error (`ENOENT` for a missing folder, `EACCES`, `EISDIR` when the target is a
 * folder) before anything is written.
 */
export async function openAtomic(path: string, opts: AtomicOptions): Promise<AtomicFile> {
  const target = outputTarget(path);
  if (target.how === 'in-place') return openInPlaceFile(path, target, opts);
  const existing = target.existing;
  const finalPath = target.path;
  // hidden, random and exclusive ('wx'): never someone else's file, never an existing one
  const tempPath = join(
    dirname(finalPath),
    `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.partial`,
  );
  const handle = await open(tempPath, 'wx');
  // a replaced file keeps its permissions
  if (existing) await handle.chmod(existing.mode & 0o7777).catch(() => undefined);
  const stream = handle.createWriteStream();
  let settled = false;
  const removeNow = (): void => {
    if (settled) return;
    settled = true;
    try {
      closeSync(handle.fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(tempPath);
    } catch {
      // already gone
    }
  };
  const stopWatching = onInterrupt((signal) => {
    const done = opts.progress?.();
    removeNow();
    return (
      `${opts.prefix}: interrupted (${signal})${done ? ` ${done}` : ''}; removed the unfinished ` +
      `temporary file ${tempPath}; ${path} ${existing ? 'is left as it was' : 'was not written'}`
    );
  });
  // any other early exit (process.exit elsewhere) leaves no temporary file either
  process.on('exit', removeNow);
  const release = (): void => {
    stopWatching();
    process.removeListener('exit', removeNow);
  };
  const discard = async (): Promise<void> => {
    release();
    if (settled) return;
    settled = true;
    stream.destroy();
    await finished(stream).catch(() => undefined);
    await unlink(tempPath).catch(() => undefined);
  };
  const commit = async (): Promise<void> => {
    try {
      stream.end();
      await finished(stream);
      await rename(tempPath, finalPath);
      settled = true;
    } catch (err) {
      await discard();
      throw err;
    } finally {
      release();
    }
  };
  return { path, tempPath, stream, commit, discard };
}

/**
 * A target written in place: nothing to rename or remove. An interrupt says the target holds part
 * of the output (a FIFO's reader has had it, a device has taken it).
 */
async function openInPlaceFile(
  path: string,
  target: Extract<OutputTarget, { how: 'in-place' }>,
  opts: AtomicOptions,
): Promise<AtomicFile> {
  const stream = await openInPlace(target);
  const stopWatching = onInterrupt((signal) => {
    const done = opts.progress?.();
    return `${opts.prefix}: interrupted (${signal})${done ? ` ${done}` : ''}; ${path} (a ${target.kind}) was written in place and holds part of the output`;
  });
  const discard = async (): Promise<void> => {
    stopWatching();
    stream.destroy();
    await finished(stream).catch(() => undefined);
  };
  const commit = async (): Promise<void> => {
    try {
      stream.end();
      await finished(stream);
    } catch (err) {
      await discard();
      throw err;
    } finally {
      stopWatching();
    }
  };
  return { path, tempPath: undefined, stream, commit, discard };
}

/** Writes `text` to `path` through a temporary file (see openAtomic). */
export async function writeFileAtomic(path: string, text: string, opts: AtomicOptions): Promise<void> {
  const file = await openAtomic(path, opts);
  try {
    file.stream.write(text);
  } catch (err) {
    await file.discard();
    throw err;
  }
  await file.commit();
}
