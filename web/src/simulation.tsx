/**
 * The card for a `simulate` result: how many runs and how many failed (and why), the risk of each
 * constraint, and per output its figures, a histogram and a tornado chart of what drives it.
 * Read-only: the numbers are the tool's; the card only draws them.
 */
import { plainNumber } from './format';
import { Histogram, Tornado } from './simulation-charts';
import {
  failureReason,
  formatIn,
  formatNumber,
  labelOf,
  own,
  percentileName,
  percentText,
  shareInWords,
  type OutputSummary,
  type SimulationNotes,
  type SimulationResult,
} from './simulation-model';
import './simulation.css';

/** What a constraint did over the runs, in one sentence. */
export function riskSentence(policy: string, rate: number): string {
  if (policy === 'flag') return rate <= 0 ? 'Never flagged (0%)' : `Flagged ${shareInWords(rate)}`;
  if (rate <= 0) return 'Never refused a run (0%)';
  return rate >= 1 ? 'Refused every run (100%)' : `Refused the inputs ${shareInWords(rate)}`;
}

function Risks({ result, notes }: { result: SimulationResult; notes: SimulationNotes }) {
  const ids = Object.keys(result.constraints);
  if (ids.length === 0) return null;
  return (
    <section className="sim-risks" aria-labelledby="sim-risks-h">
      <h2 id="sim-risks-h">Constraint risks</h2>
      <ul>
        {ids.map((id) => {
          const { rollbackRate, flagRate } = result.constraints[id]!;
          const note = own(notes.constraints, id);
          const policy = note?.policy ?? (flagRate > 0 ? 'flag' : 'rollback');
          const rate = policy === 'flag' ? flagRate : rollbackRate;
          return (
            <li key={id} data-constraint={id} className={rate > 0 ? 'at-risk' : 'safe'}>
              <span className="sim-constraint">{note?.message || id}</span>
              <span className="sim-risk-text">{riskSentence(policy, rate)}</span>
              <span className="muted sim-rates">
                {`${id} (${policy === 'flag' ? 'flag' : 'rollback'} rule): rolls back ${percentText(rollbackRate)}, flags ${percentText(flagRate)}`}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Failures({ result }: { result: SimulationResult }) {
  if (result.failedRuns <= 0) return null;
  const byCode = Object.entries(result.failures ?? {});
  return (
    <section className="sim-failures" aria-labelledby="sim-failures-h">
      <h2 id="sim-failures-h">Failed runs</h2>
      <p>
        {`${plainNumber(result.failedRuns)} of ${plainNumber(result.runs)} runs (${percentText(result.failedRuns / result.runs)}) did not complete; the outputs are summarised over the others.`}
      </p>
      <ul>
        {byCode.map(([code, n]) => (
          <li key={code} data-failure={code}>
            <strong>{plainNumber(n)}</strong> {failureReason(code)} <code>{code}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Figures({ summary, path, notes }: { summary: OutputSummary; path: string; notes: SimulationNotes }) {
  const how = formatIn(notes, path);
  const f = (v: number | null): string => formatNumber(v, how);
  const items: [string, string][] = [
    ['Mean', f(summary.mean)],
    ['Std dev', f(summary.stdDev)],
    ['Min', f(summary.min)],
    ...Object.entries(summary.percentiles).map(([p, v]): [string, string] => {
      const name = percentileName(p);
      return [name.charAt(0).toUpperCase() + name.slice(1), f(v)];
    }),
    ['Max', f(summary.max)],
  ];
  return (
    <dl className="sim-figures">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Output({
  path,
  summary,
  result,
  notes,
}: {
  path: string;
  summary: OutputSummary;
  result: SimulationResult;
  notes: SimulationNotes;
}) {
  const label = labelOf(notes, path);
  const drivers = Object.entries(own(result.sensitivity, path) ?? {}).map(([input, rho]) => ({
    path: input,
    label: labelOf(notes, input),
    rho,
  }));
  const skipped = summary.nonNumeric ?? 0;
  return (
    <section className="sim-output" data-output={path} aria-label={label}>
      <h2>
        {label} {label !== path && <code className="muted">{path}</code>}
      </h2>
      <Figures summary={summary} path={path} notes={notes} />
      {summary.count > 0 ? (
        <Histogram path={path} label={label} summary={summary} how={formatIn(notes, path)} />
      ) : (
        <p className="muted">No run gave this output a number.</p>
      )}
      {skipped > 0 && (
        <p className="muted">{`${plainNumber(skipped)} runs gave no number here (text or empty) and are left out.`}</p>
      )}
      {drivers.length > 0 && (
        <>
          <h3>What drives it</h3>
          <Tornado output={label} rows={drivers} />
        </>
      )}
    </section>
  );
}

export function Simulation({ result, notes }: { result: SimulationResult; notes: SimulationNotes }) {
  const sampled = result.sampledRuns ?? result.runs - result.failedRuns;
  const committed = result.runs - result.failedRuns;
  return (
    <main className="card simulation" data-simulation={notes.modelId}>
      <header>
        <h1>Simulation of {notes.title ?? notes.modelId}</h1>
      </header>
      <p className="sim-summary">
        {`${plainNumber(result.runs)} runs (seed ${result.seed}), ${plainNumber(result.failedRuns)} failed.`}
        {sampled < committed &&
          ` Histograms and correlations are drawn from a uniform sample of ${plainNumber(sampled)} runs.`}
      </p>
      {result.stopped && (
        <p className="callout warning" role="status">
          {`Stopped early: ${result.stopped}. The figures are for the runs done.`}
        </p>
      )}
      <Failures result={result} />
      <Risks result={result} notes={notes} />
      {Object.entries(result.outputs).map(([path, summary]) => (
        <Output key={path} path={path} summary={summary} result={result} notes={notes} />
      ))}
    </main>
  );
}
