/** The read-only panels of a model: JSON documents, the audit timeline and the dependency graph. */
import type { Graph, Json } from '../model';
import type { AuditEntry } from './api';

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" aria-label={label} tabIndex={0}>
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

const brief = (v: Json): string => {
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}…` : s;
};

/** Who made a change, in words: the writer's origin, or the kind of change. */
const SOURCE_LABELS: ReadonlyMap<string, string> = new Map([
  ['person', 'You (sandbox or card)'],
  ['agent', 'Agent (MCP)'],
  ['rest', 'REST API'],
  ['client', 'Client (origin not recorded)'],
  ['patch', 'JSON Patch'],
  ['foldback', 'Effect result'],
  ['restore', 'Snapshot restored'],
  ['evolution', 'Spec evolved'],
]);
export const sourceLabel = (source: string): string => SOURCE_LABELS.get(source) ?? source;

/** Newest first, as the server answers. */
export function AuditTimeline({ records }: { records: AuditEntry[] }) {
  if (records.length === 0) return <p className="muted">No changes yet.</p>;
  return (
    <ol className="audit" aria-label="Audit timeline">
      {records.map((r) => (
        <li key={r.sequence} data-sequence={r.sequence}>
          <div className="audit-head">
            <strong>#{r.sequence}</strong>
            <time dateTime={r.timestamp}>{new Date(r.timestamp).toLocaleString()}</time>
            <span className={`badge source-${r.source}`} data-source={r.source}>
              {sourceLabel(r.source)}
            </span>
          </div>
          <ul className="audit-mutations" aria-label={`Writes of change ${r.sequence}`}>
            {Object.entries(r.mutations).map(([path, value]) => (
              <li key={path}>
                <code>{path}</code> = <code>{brief(value)}</code>
              </li>
            ))}
          </ul>
          {r.derivedUpdated.length > 0 && (
            <p className="muted">
              Recomputed: <code>{r.derivedUpdated.join(', ')}</code>
            </p>
          )}
          {(r.flaggedConstraints ?? []).length > 0 && (
            <p className="callout warning">Flagged: {(r.flaggedConstraints ?? []).join(', ')}</p>
          )}
        </li>
      ))}
    </ol>
  );
}

/** Evaluation levels (what can be computed once the level before is done), then each rule's inputs. */
export function GraphPanel({ graph }: { graph: Graph }) {
  const inputsOf = (key: string): string[] => graph.edges.filter((e) => e.to === key).map((e) => e.from);
  const ruled = graph.nodes.filter((n) => n.kind !== 'BASE');
  return (
    <div className="graph">
      {graph.levels && graph.levels.length > 0 && (
        <ol className="levels" aria-label="Evaluation levels" start={0}>
          {graph.levels.map((level, i) => (
            <li key={i}>
              {level.map((k) => (
                <code key={k}>{k}</code>
              ))}
            </li>
          ))}
        </ol>
      )}
      <table aria-label="Dependency graph">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Kind</th>
            <th scope="col">Reads</th>
            <th scope="col">Expression</th>
          </tr>
        </thead>
        <tbody>
          {ruled.map((n) => (
            <tr key={`${n.kind}:${n.key}`}>
              <th scope="row">
                <code>{n.key}</code>
                {n.label && n.label !== n.key && <div className="muted">{n.label}</div>}
              </th>
              <td>{n.kind.toLowerCase()}</td>
              <td>
                {inputsOf(n.key).map((k) => (
                  <code key={k}>{k}</code>
                ))}
              </td>
              <td>
                <code>{n.expression}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        {graph.nodes.length} nodes, {graph.edges.length} edges
      </p>
    </div>
  );
}
