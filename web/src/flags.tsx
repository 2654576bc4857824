/** Failing flag rules, as the card and the sandbox both show them: one warning line each. */
import type { Flag } from './model';

export function FlagList({ flags }: { flags: readonly Flag[] }) {
  if (flags.length === 0) return null;
  return (
    <ul className="flags" aria-label="Warnings" role="status">
      {flags.map((f) => (
        <li key={f.constraintId} className="callout warning" data-flag={f.constraintId}>
          ⚠ {f.message}
        </li>
      ))}
    </ul>
  );
}
