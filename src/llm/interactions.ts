/**
 * The interactions log (`GET /llm/interactions`): a bounded ring of the last provider calls, newest
 * first. With content capture off (MODELWORKS_LLM_LOG_CONTENT=false) the texts read "[redacted]"
 * and only sizes, tokens, times and outcomes stay. The key is scrubbed from every text kept, in case
 * a provider ever echoed it in an error.
 */

export type InteractionPurpose = 'generate' | 'evolve' | 'effect';

export interface InteractionRecord {
  timestamp: string;
  purpose: InteractionPurpose;
  provider: string;
  model: string;
  /** The generation attempt this call belongs to (1-based), when it is one. */
  attempt?: number;
  system: string;
  user: string;
  response: string;
  errorMessage: string | null;
  outcome: 'ok' | 'truncated' | 'failed';
  durationMs: number;
  promptChars: number;
  responseChars: number;
  inputTokens: number;
  outputTokens: number;
}

export const REDACTED = '[redacted]';

export class InteractionLog {
  private readonly records: InteractionRecord[] = [];

  constructor(
    private readonly size: number,
    private readonly captureContent: boolean,
    private readonly secret: string | undefined,
  ) {}

  private scrub(text: string): string {
    return this.secret ? text.split(this.secret).join('[key]') : text;
  }

  add(record: InteractionRecord): void {
    const kept: InteractionRecord = {
      ...record,
      system: this.captureContent ? this.scrub(record.system) : REDACTED,
      user: this.captureContent ? this.scrub(record.user) : REDACTED,
      response: this.captureContent ? this.scrub(record.response) : REDACTED,
      errorMessage: record.errorMessage === null ? null : this.scrub(record.errorMessage),
    };
    this.records.unshift(kept);
    if (this.records.length > this.size) this.records.length = this.size;
  }

  /** Newest first (copies: a reader cannot change the log). */
  list(): InteractionRecord[] {
    return this.records.map((r) => ({ ...r }));
  }
}
