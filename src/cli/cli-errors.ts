/**
 * The one error-and-exit policy of every `modelworks` command (docs/cli.md, "Exit codes"):
 * 0 ok, 1 a check failed (or the work could not be finished), 2 bad usage or input, 128 + the
 * signal's number when interrupted. A failure is one line in our words on stderr; the stack trace
 * only with `--debug`. Loaded at start-up, so it imports nothing.
 */

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

let debug = false;

/** Set from the global `--debug` option before a command's action runs. */
export function setDebug(on: boolean): void {
  debug = on;
}

export function isDebug(): boolean {
  return debug;
}

/** A failure a command explains itself: a stable code, our message and its exit code. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The stack of `err` for `--debug`; nothing otherwise (or when there is none). */
export function debugDetails(err: unknown): string {
  if (!debug) return '';
  const stack = err instanceof Error ? err.stack : undefined;
  return stack ? `${stack}\n` : `${String(err)}\n`;
}

const SYSTEM_ERRORS: ReadonlyMap<string, string> = new Map([
  ['ENOENT', 'no such file or folder'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'operation not permitted'],
  ['EISDIR', 'it is a folder, not a file'],
  ['ENOTDIR', 'a part of the path is not a folder'],
  ['EMFILE', 'too many open files'],
  ['EADDRINUSE', 'the address is already in use'],
  ['EADDRNOTAVAIL', 'the address is not available on this machine'],
  ['ENOSPC', 'no space left on the device'],
  ['EROFS', 'the file system is read-only'],
  ['EEXIST', 'it already exists'],
]);

/** A system error (`ENOENT`, `EACCES`…) carries its code; anything else does not. */
export function systemErrorCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** `cannot read x.xml: no such file or folder (ENOENT)`, or undefined when `err` is no system error. */
export function systemErrorText(err: unknown, action: string): string | undefined {
  const code = systemErrorCode(err);
  if (code === undefined) return undefined;
  return `cannot ${action}: ${SYSTEM_ERRORS.get(code) ?? 'the system refused'} (${code})`;
}

/** The line for a fault of ours: the error's kind, never its text (which is the runtime's, not ours). */
export function internalErrorText(err: unknown, action: string): string {
  const kind = err instanceof Error ? err.name : typeof err;
  return `internal error (${kind}): could not ${action}; this is a bug, please report it with the command that failed`;
}

/** Writes one failure line under `prefix` (`modelworks`, `modelworks synth`), then the stack with --debug. */
export function reportFailure(prefix: string, message: string, err?: unknown): void {
  process.stderr.write(`${prefix}: ${message}\n${err === undefined ? '' : debugDetails(err)}`);
}

const USAGE_HINT = '(--help shows the usage and examples)';

/**
 * commander's usage errors as one line in our shape, `<prefix>: unknown option '--x' (…)`; a command
 * group sets its own prefix (`modelworks synth`) and its sub-commands inherit it.
 */
export function usageErrorOutput(prefix: string): {
  outputError: (text: string, write: (s: string) => void) => void;
} {
  return {
    outputError: (text, write) =>
      write(
        `${prefix}: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} ${USAGE_HINT}\n`,
      ),
  };
}
