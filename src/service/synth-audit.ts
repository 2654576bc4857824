/**
 * Audit events of synth generation as NDJSON, one object per line, appended to a file
 * (MODELWORKS_SYNTH_AUDIT_LOG). A write failure is reported once on stderr and never fails the
 * generation it describes.
 */
import { appendFileSync } from 'node:fs';

export type AuditSink = (event: Record<string, unknown>) => void;

/** Appends each event, with a timestamp first, to `path`. */
export function ndjsonAuditFile(path: string, warn: (message: string) => void): AuditSink {
  let warned = false;
  return (event) => {
    try {
      appendFileSync(path, `${JSON.stringify({ timestamp: new Date().toISOString(), ...event })}\n`);
    } catch (err) {
      if (!warned) warn(`cannot write the audit log ${path}: ${(err as Error).message}`);
      warned = true;
    }
  };
}
