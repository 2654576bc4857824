/**
 * What the synth commands print when something fails: our own messages as written, a system
 * error by its code in our words, and anything else (a fault of ours) as a generic line. The
 * JavaScript engine's own text never reaches the terminal.
 */
import { SynthError } from '../synth/index.js';

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
]);

/** The message for a failure of `action` (an infinitive: `read model.xml`, `generate`). */
export function failureText(err: unknown, action: string): string {
  if (err instanceof SynthError) return err.message;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return `cannot ${action}: ${SYSTEM_ERRORS.get(code) ?? 'the system refused'} (${code})`;
  // a plain Error carries text we wrote (a malformed setting, an adapter's refusal)
  if (err instanceof Error && Object.getPrototypeOf(err) === Error.prototype) return err.message;
  const kind = err instanceof Error ? err.name : typeof err;
  return `internal error (${kind}): could not ${action}; this is a bug, please report it with the command that failed`;
}
