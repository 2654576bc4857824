/** Display and data renderers: read-only views of the model's values. */
import { useState } from 'react';
import { brief, formatValue } from './format';
import { Display, Computed } from './computed';
import { type Component, type Json } from './model';
import { num, str, type RenderContext } from './render-context';

/**
 * A stat tile never grows past its border: a long value shrinks (down to 60 %), then ends in an
 * ellipsis; its title always holds the whole value.
 */
export function StatTile({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const text = formatValue(c.value, c.format, c.currency, c.bind);
  // about 14 characters fit a tile of the narrowest width at full size
  const scale = Math.max(0.6, Math.min(1, 14 / Math.max(1, text.length)));
  return (
    <div
      className={`stat ${str(c.variant) ?? ''}`}
      data-component={c.id}
      role="group"
      aria-label={c.label ?? c.id}
    >
      <span className="stat-label">{c.label}</span>
      <Display c={c} ctx={ctx}>
        <span
          className="stat-value"
          data-testid={`value-${c.id}`}
          title={text}
          style={scale < 1 ? { fontSize: `${Math.round(22 * scale)}px` } : undefined}
        >
          {text}
        </span>
      </Display>
      {c.delta !== undefined && c.delta !== null && (
        <span className={`stat-delta ${str(c.trend) ?? ''}`}>{formatValue(c.delta as Json)}</span>
      )}
      {c.caption !== undefined && c.caption !== null && (
        <span className="stat-caption">{formatValue(c.caption as Json)}</span>
      )}
    </div>
  );
}

export function Table({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const rows = Array.isArray(c.value) ? c.value : [];
  const declared = Array.isArray(c.tableColumns) ? (c.tableColumns as Record<string, unknown>[]) : [];
  const columns =
    declared.length > 0
      ? declared.map((col) => ({
          field: String(col.field),
          header: str(col.header) ?? String(col.field),
          format: col.format,
          currency: col.currency,
        }))
      : Object.keys((rows[0] as Record<string, unknown> | undefined) ?? {}).map((field) => ({
          field,
          header: field,
          format: undefined,
          currency: undefined,
        }));
  const pageSize = num(c.pageSize) ?? 25;
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const shown = rows.slice(page * pageSize, (page + 1) * pageSize);
  // numbers line up on the right (their digits then align); a column is numeric when its values are
  const numeric = new Set(
    columns
      .filter((col) =>
        shown.some((row) => typeof (row as Record<string, Json> | null)?.[col.field] === 'number'),
      )
      .map((col) => col.field),
  );
  const align = (field: string): string | undefined => (numeric.has(field) ? 'num' : undefined);
  return (
    <div className="table" data-component={c.id}>
      <table>
        {c.label && <caption>{c.label}</caption>}
        <thead>
          <tr>
            {columns.map((col) => (
              <th key={col.field} scope="col" className={align(col.field)}>
                {col.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row, i) => {
            const r = page * pageSize + i;
            return (
              <tr key={r}>
                {columns.map((col) => {
                  const v = (row as Record<string, Json> | null)?.[col.field];
                  const cell = formatValue(v, col.format, col.currency, col.field);
                  return (
                    <td key={col.field} className={align(col.field)}>
                      {c.bind ? (
                        <Computed ctx={ctx} bind={`${c.bind}[${r}].${col.field}`}>
                          {cell}
                        </Computed>
                      ) : (
                        cell
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
      {pages > 1 && <Pager label={c.label ?? 'table'} page={page} pages={pages} setPage={setPage} />}
    </div>
  );
}

/** Previous / next between the pages of a long table. */
function Pager({
  label,
  page,
  pages,
  setPage,
}: {
  label: string;
  page: number;
  pages: number;
  setPage: (page: number) => void;
}) {
  return (
    <nav aria-label={`${label} pages`}>
      <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
        Previous
      </button>
      <span>
        {page + 1} / {pages}
      </span>
      <button type="button" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function KeyValues({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = Array.isArray(c.items) ? (c.items as Record<string, unknown>[]) : [];
  return (
    <dl className="kv" data-component={c.id} aria-label={c.label}>
      {items.map((item, i) => (
        <div key={i}>
          <dt>{str(item.label)}</dt>
          <dd>
            {typeof item.bind === 'string' ? (
              <Computed ctx={ctx} bind={item.bind}>
                {formatValue(item.value as Json, item.format, item.currency, item.bind)}
              </Computed>
            ) : (
              formatValue((item.text ?? item.value) as Json, item.format, item.currency)
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Plain text with blank-line paragraphs (markdown shown as text: no HTML is ever injected). */
export function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n{2,}/).map((p, i) => (
        <p key={i}>{p}</p>
      ))}
    </>
  );
}

type Props = { c: Component; ctx: RenderContext };

export function Label({ c, ctx }: Props) {
  return (
    <div className="label" data-component={c.id}>
      {c.label && <span className="label-name">{c.label}</span>}{' '}
      <Display c={c} ctx={ctx}>
        <span className="label-value">
          {formatValue((c.text ?? c.value) as Json, c.format, c.currency, c.bind)}
        </span>
      </Display>
    </div>
  );
}

export function StaticText({ c }: Props) {
  return (
    <div className="static" data-component={c.id}>
      <Paragraphs text={typeof c.text === 'string' ? c.text : formatValue(c.text as Json)} />
    </div>
  );
}

export function Badge({ c }: Props) {
  return (
    <span className={`badge ${str(c.variant) ?? ''}`} data-component={c.id}>
      {str(c.text) ?? c.label}
    </span>
  );
}

/** `alert` is announced (a status); `callout` is a note beside the content. */
export function Callout({ c }: Props) {
  return (
    <div
      className={`callout ${str(c.variant) ?? 'info'}`}
      role={c.type === 'alert' ? 'status' : 'note'}
      data-component={c.id}
    >
      {c.label && <strong>{c.label} </strong>}
      {str(c.text)}
    </div>
  );
}

export const Separator = () => <hr />;

export function Spacer({ c }: Props) {
  return <div style={{ height: num(c.size) ?? 12 }} aria-hidden="true" />;
}

/** Only inline images: a card never fetches from the network. */
export function ImageView({ c }: Props) {
  return typeof c.src === 'string' && c.src.startsWith('data:') ? (
    <img
      src={c.src}
      alt={str(c.alt) ?? ''}
      width={num(c.width)}
      height={num(c.height)}
      style={{ objectFit: (str(c.fit) ?? 'contain') as 'contain' }}
    />
  ) : (
    <p className="muted">{str(c.alt) ?? 'Image'}</p>
  );
}

/** Links open through the host (`openLink`) when it offers that, so the chat stays in charge. */
export function LinkView({ c, ctx }: Props) {
  return (
    <a
      href={str(c.href)}
      onClick={(e) => {
        if (ctx.openLink && typeof c.href === 'string') {
          e.preventDefault();
          ctx.openLink(c.href);
        }
      }}
    >
      {formatValue((c.text ?? c.label ?? c.href) as Json)}
    </a>
  );
}

/** `progressBar` and `gauge`: a native progress or meter element over [min, max]. */
export function Meter({ c, ctx }: Props) {
  const v = typeof c.value === 'number' ? c.value : 0;
  const Tag = c.type === 'gauge' ? 'meter' : 'progress';
  return (
    <div className="field" data-component={c.id}>
      <span>{c.label}</span>
      <Display c={c} ctx={ctx}>
        <Tag
          value={v - (num(c.min) ?? 0)}
          max={(num(c.max) ?? 100) - (num(c.min) ?? 0)}
          aria-label={c.label}
        />
        {c.showValue !== false && <span> {formatValue(v, c.format)}</span>}
      </Display>
    </div>
  );
}

export function SourceList({ c }: Props) {
  const items = Array.isArray(c.items) ? (c.items as Record<string, unknown>[]) : [];
  return (
    <ul className="sources" aria-label={c.label ?? 'Sources'} data-component={c.id}>
      {items.map((s, i) => (
        <li key={i}>
          {str(s.label) ?? str(s.url)} {str(s.date) && <small>({str(s.date)})</small>}
        </li>
      ))}
    </ul>
  );
}

export function JsonViewer({ c }: Props) {
  return (
    <pre className="json" data-component={c.id} aria-label={c.label ?? 'JSON'}>
      {JSON.stringify(c.value ?? null, null, 2)}
    </pre>
  );
}

/** The model's flags and this card's refused edits, in one line. */
export function ValidationSummary({ c, ctx }: Props) {
  const flags = ctx.card.flags;
  const rejected = Object.entries(ctx.rejected);
  return (
    <div className="callout warning" role="status" data-component={c.id}>
      {flags.length + rejected.length === 0
        ? (str(c.emptyText) ?? 'All checks pass.')
        : [...flags.map((f) => f.message), ...rejected.map(([p, r]) => `${p}: ${r.message}`)].join(' · ')}
    </div>
  );
}

/** In a card the explanation lives on each computed value (its popover), not in a panel. */
export function ExplainHint({ c }: Props) {
  return (
    <p className="muted" data-component={c.id}>
      Hover or focus a computed value to see how it was computed.
    </p>
  );
}

export function EffectStatus({ c }: Props) {
  return (
    <div className="label" data-component={c.id}>
      {c.label ?? String(c.effectId)}: {brief(c.status ?? 'idle')}
      {c.error !== undefined && <span className="error"> {brief(c.error)}</span>}
    </div>
  );
}

/** A button only navigates between views in a card; other actions belong to the full console. */
export function ButtonView({ c, ctx }: Props) {
  const target = (c.onClick as { navigate?: unknown } | undefined)?.navigate;
  return (
    <button
      type="button"
      className={`button ${str(c.variant) ?? ''}`}
      disabled={c.enabled === false || typeof target !== 'string'}
      title={typeof target === 'string' ? undefined : 'This action runs in the full console'}
      onClick={() => typeof target === 'string' && ctx.navigate(target)}
    >
      {c.label ?? c.id}
    </button>
  );
}
