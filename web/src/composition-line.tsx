/** One line under the card's header: the template a model was branched from and its links. */
import { compositionSummary } from './composition';
import type { CardPayload } from './model';

export function CompositionLine({ card }: { card: CardPayload }) {
  const summary = compositionSummary(card.spec, card.state);
  if (!summary) return null;
  return (
    <p className="composition muted" data-testid="composition">
      {summary.branchedFrom && (
        <span>
          Branched from <code>{summary.branchedFrom.ref}</code>
          {summary.branchedFrom.version ? ` ${summary.branchedFrom.version}` : ''}
        </span>
      )}
      {summary.links.map((l) => (
        <span key={l.effectId}>
          {l.kind === 'read' ? (l.watch ? 'follows' : 'reads') : 'writes to'} <code>{l.target}</code>
          {l.phase ? ` (${l.phase})` : ''}
        </span>
      ))}
    </p>
  );
}
