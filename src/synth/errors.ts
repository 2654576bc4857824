/** Error codes of the synth engine; surfaces map them to exit codes, HTTP statuses or MCP results. */
export type SynthErrorCode =
  | 'SYNTH_PARSE' // the text is not a well-formed model
  | 'SYNTH_LOAD' // well-formed but cannot be loaded (unknown type/attribute, bad value, unresolved name)
  | 'SYNTH_LICENSE' // needs the Pro edition
  | 'SYNTH_INVALID' // structural or per-node validation failure
  | 'SYNTH_RUNTIME' // generation failed (e.g. Truncate ran out of attempts)
  | 'SYNTH_LIMIT'; // a row's text passed the budget its caller set (see renderRow)

/** The one error type the synth engine throws; `code` is stable, `message` is for people. */
export class SynthError extends Error {
  readonly code: SynthErrorCode;

  constructor(code: SynthErrorCode, message: string) {
    super(message);
    this.name = 'SynthError';
    this.code = code;
  }
}

/**
 * The message of a plain Error (text we or a library wrote on purpose), else `fallback`: a
 * TypeError, RangeError or anything else the JavaScript engine raised is never passed on.
 */
export function plainMessage(err: unknown, fallback: string): string {
  return err instanceof Error && Object.getPrototypeOf(err) === Error.prototype ? err.message : fallback;
}
