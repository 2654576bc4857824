/**
 * What an output path names, so a writer knows whether it may replace it (issue 47).
 *
 * Writers put their bytes in a temporary file and rename it onto the target: a reader never sees
 * half a file. A rename replaces whatever the name points at, so it is right only for a regular
 * file or a missing one. Anything else is written in place: a character or block device
 * (`/dev/null`: renaming onto it made the machine's `/dev/null` a regular file), a FIFO (a reader
 * waits on the other end), a socket, and the standard streams (`-`, `/dev/stdout`, `/dev/stderr`,
 * `/dev/fd/N`: their links lead to whatever the shell redirected, which a rename would swap for a
 * new file the shell never sees). A symlink is followed: its target file is replaced and the link
 * kept.
 */
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname, resolve } from 'node:path';
import { Writable } from 'node:stream';

/** The kinds of target written in place. */
export type InPlaceKind =
  | 'standard output'
  | 'standard error'
  | 'character device'
  | 'block device'
  | 'FIFO'
  | 'socket'
  | 'descriptor';

export type OutputTarget =
  /** Written through a temporary file renamed onto `path` (the final file, symlinks followed). */
  | { how: 'replace'; path: string; existing?: Stats }
  /** Written in place, never renamed onto nor removed. */
  | { how: 'in-place'; path: string; kind: InPlaceKind };

/** Symlinks followed before giving up (Linux's own limit is 40). */
const MAX_LINKS = 40;

/** `/dev/fd/N` and `/proc/self/fd/N` name an open descriptor of this process. */
const DESCRIPTOR = /^\/(dev|proc\/self)\/fd\/\d+$/;

function notFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

function systemError(code: string, message: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, path });
}

/**
 * Classifies `path` (see the module comment). Throws a system error: `EISDIR` for a folder,
 * `ELOOP` for a symlink loop, or what lstat/readlink threw (`EACCES`).
 */
export function outputTarget(path: string): OutputTarget {
  if (path === '-' || path === '/dev/stdout') return { how: 'in-place', path, kind: 'standard output' };
  if (path === '/dev/stderr') return { how: 'in-place', path, kind: 'standard error' };
  let current = resolve(path);
  for (let hops = 0; ; hops++) {
    if (DESCRIPTOR.test(current)) return { how: 'in-place', path: current, kind: 'descriptor' };
    let st: Stats;
    try {
      st = lstatSync(current);
    } catch (err) {
      if (notFound(err)) return { how: 'replace', path: current };
      throw err;
    }
    if (st.isSymbolicLink()) {
      if (hops >= MAX_LINKS) throw systemError('ELOOP', `${path}: too many symbolic links`, path);
      current = resolve(dirname(current), readlinkSync(current));
      continue;
    }
    if (st.isFile()) return { how: 'replace', path: current, existing: st };
    if (st.isDirectory()) throw systemError('EISDIR', `${path} is a folder`, path);
    if (st.isCharacterDevice()) return { how: 'in-place', path: current, kind: 'character device' };
    if (st.isBlockDevice()) return { how: 'in-place', path: current, kind: 'block device' };
    if (st.isFIFO()) return { how: 'in-place', path: current, kind: 'FIFO' };
    return { how: 'in-place', path: current, kind: 'socket' };
  }
}

/** A Writable that forwards to a standard stream and never ends it (others may still write). */
function forwardTo(stream: NodeJS.WriteStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.write(chunk, (err) => done(err ?? undefined));
    },
    final(done) {
      done();
    },
  });
}

/**
 * A stream writing into an in-place target. A FIFO's open waits for its reader; a socket is
 * connected to (an open() of a socket path fails on every Unix).
 */
export async function openInPlace(target: Extract<OutputTarget, { how: 'in-place' }>): Promise<Writable> {
  switch (target.kind) {
    case 'standard output':
      return forwardTo(process.stdout);
    case 'standard error':
      return forwardTo(process.stderr);
    case 'socket': {
      const socket = connect(target.path);
      await new Promise<void>((ok, fail) => {
        socket.once('connect', ok);
        socket.once('error', fail);
      });
      return socket;
    }
    default: {
      // 'w' truncates a regular file behind a descriptor, as a shell's `>` does; a device ignores it
      const handle = await open(target.path, 'w');
      return handle.createWriteStream();
    }
  }
}
