/**
 * What the synth commands print when something fails: our own messages as written, a system
 * error by its code in our words, and anything else (a fault of ours) as a generic line. The
 * JavaScript engine's own text never reaches the terminal (its stack only with --debug).
 */
import { SynthError } from '../synth/index.js';
import { EXIT, internalErrorText, systemErrorCode, systemErrorText } from './cli-errors.js';

/** The message for a failure of `action` (an infinitive: `read model.xml`, `generate`). */
export function failureText(err: unknown, action: string): string {
  if (err instanceof SynthError) return err.message;
  const system = systemErrorText(err, action);
  if (system !== undefined) return system;
  // a plain Error carries text we wrote (a malformed setting, an adapter's refusal)
  if (err instanceof Error && Object.getPrototypeOf(err) === Error.prototype) return err.message;
  return internalErrorText(err, action);
}

/**
 * The exit code for a failure while reading or loading a command's input: a file that cannot be
 * read, a model that is not well-formed or cannot be loaded, a malformed setting are bad input
 * (2); a fault of ours is a failed run (1).
 */
export function inputFailureExit(err: unknown): number {
  if (err instanceof SynthError || systemErrorCode(err) !== undefined) return EXIT.usage;
  if (err instanceof Error && Object.getPrototypeOf(err) === Error.prototype) return EXIT.usage;
  return EXIT.failed;
}
