/** Error codes of the synth engine; surfaces map them to exit codes, HTTP statuses or MCP results. */
export type SynthErrorCode =
  | 'SYNTH_PARSE' // the text is not a well-formed model
  | 'SYNTH_LOAD' // well-formed but cannot be loaded (unknown type/attribute, bad value, unresolved name)
  | 'SYNTH_LICENSE' // needs the Pro edition
  | 'SYNTH_INVALID' // structural or per-node validation failure
  | 'SYNTH_RUNTIME' // generation failed (e.g. Truncate ran out of attempts)
  | 'SYNTH_LIMIT'; // a row's text, or a graph's rows, passed the budget its caller set (renderRow, graph-budget.ts)

/**
 * A finer reason inside a code, for callers that decide on it (the conformance replay skips these
 * instead of failing): decisions read this, never the message.
 */
export type SynthErrorReason = 'not-in-build' | 'file-not-found';

/** The one error type the synth engine throws; `code` is stable, `message` is for people. */
export class SynthError extends Error {
  readonly code: SynthErrorCode;
  readonly reason: SynthErrorReason | undefined;

  constructor(code: SynthErrorCode, message: string, reason?: SynthErrorReason) {
    super(message);
    this.name = 'SynthError';
    this.code = code;
    this.reason = reason;
  }
}

/**
 * The message of a plain Error (text we or a library wrote on purpose), else `fallback`: a
 * TypeError, RangeError or anything else the JavaScript engine raised is never passed on.
 */
export function plainMessage(err: unknown, fallback: string): string {
  return err instanceof Error && Object.getPrototypeOf(err) === Error.prototype ? err.message : fallback;
}
