/**
 * The card for a `solve` result: whether the target is met (or the closest value reached), the
 * inputs found and the outputs there, in the model's labels and number formats, and why the
 * search stopped. Read-only: the numbers are the tool's; the card only draws them.
 */
import { plainNumber } from './format';
import { formatIn, formatNumber, labelOf } from './simulation-model';
import { reasonText, type SolveNotes, type SolveResult } from './solve-model';
import './solve.css';

function goalText(r: SolveResult, notes: SolveNotes): string {
  const t = r.target;
  if (t) {
    const how = formatIn(notes, t.path);
    const bound =
      t.value !== undefined
        ? `= ${formatNumber(t.value, how)}`
        : t.atMost !== undefined
          ? `at most ${formatNumber(t.atMost, how)}`
          : `at least ${formatNumber(t.atLeast, how)}`;
    return `${labelOf(notes, t.path)} ${bound}`;
  }
  const path = r.objective?.minimize ?? r.objective?.maximize ?? '';
  return `${r.objective?.minimize !== undefined ? 'Smallest' : 'Largest'} ${labelOf(notes, path)}`;
}

function Values({
  title,
  values,
  notes,
  kind,
}: {
  title: string;
  values: Record<string, unknown>;
  notes: SolveNotes;
  kind: string;
}) {
  return (
    <section className={`solve-${kind}`} aria-label={title}>
      <h2>{title}</h2>
      <dl>
        {Object.entries(values).map(([path, v]) => (
          <div key={path} data-path={path} data-value={typeof v === 'number' ? String(v) : ''}>
            <dt>
              {labelOf(notes, path)} {labelOf(notes, path) !== path && <code className="muted">{path}</code>}
            </dt>
            <dd>
              {typeof v === 'number'
                ? formatNumber(v, formatIn(notes, path))
                : v === null
                  ? '—'
                  : JSON.stringify(v)}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

export function Solve({ result, notes }: { result: SolveResult; notes: SolveNotes }) {
  const t = result.target;
  const reached = t
    ? formatNumber(t.achieved, formatIn(notes, t.path))
    : formatNumber(
        result.objective?.value,
        formatIn(notes, result.objective?.minimize ?? result.objective?.maximize ?? ''),
      );
  return (
    <main
      className="card solve"
      data-solve={notes.modelId}
      data-met={String(result.met)}
      data-reason={result.reason}
    >
      <header>
        <h1>Goal seek on {notes.title ?? notes.modelId}</h1>
      </header>
      <p className={`solve-verdict callout ${result.met ? 'ok' : 'warning'}`} role="status">
        <strong>{result.met ? (t ? 'Target met' : 'Found') : t ? 'Target not met' : 'Not found'}</strong>
        {`: ${goalText(result, notes)}; reached ${reached}. `}
        {reasonText(result)}
      </p>
      <Values title="Inputs found" values={result.inputs} notes={notes} kind="inputs" />
      <Values title="Outputs there" values={result.outputs} notes={notes} kind="outputs" />
      {(result.broken?.length ?? 0) > 0 && (
        <p className="callout error">{`Breaks: ${result.broken!.join('; ')}`}</p>
      )}
      {(result.atBounds?.length ?? 0) > 0 && (
        <p className="muted">{`On a bound: ${result.atBounds!.map((p) => labelOf(notes, p)).join(', ')}.`}</p>
      )}
      {result.applied && (
        <p className="solve-applied">
          {result.applied.committed
            ? `Written to the model (revision ${result.applied.revision ?? '?'}).`
            : `Not written: ${result.applied.reason ?? 'nothing to write'}.`}
        </p>
      )}
      <p className="muted solve-run">{`${plainNumber(result.iterations)} model cycles (seed ${result.seed}).`}</p>
    </main>
  );
}
