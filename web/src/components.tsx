/**
 * One renderer per component family of the view catalogue. Inputs are editable and commit to the
 * server; computed values carry the "Why is this number?" popover; charts are plain SVG (chart.tsx).
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { Chart } from './chart';
import {
  brief,
  fieldNumber,
  formatOfValue,
  formatOfComponent,
  formatValue,
  parseNumber,
  type NumberFormat,
} from './format';
import {
  CHOICE_TYPES,
  concretize,
  INPUT_TYPES,
  nodeFor,
  valueAt,
  type CardPayload,
  type Component,
  type Json,
  type RejectedInput,
} from './model';

export interface RenderContext {
  card: CardPayload;
  /** Saves one edit (an address and its new value). */
  commit: (path: string, value: Json) => void;
  /** Refusals by address: the message, and the value the person tried. */
  rejected: Record<string, { message: string; value: Json }>;
  busy: boolean;
  navigate: (viewId: string) => void;
  openLink?: (url: string) => void;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** A computed value with its "Why is this number?" popover (formula and inputs from the graph). */
export function Computed({ ctx, bind, children }: { ctx: RenderContext; bind: string; children: ReactNode }) {
  const node = nodeFor(ctx.card.graph, bind);
  const [open, setOpen] = useState(false);
  const id = useId();
  if (!node || node.kind !== 'DERIVED') return <>{children}</>;
  const inputs = ctx.card.graph.edges
    .filter((e) => e.to === node.key)
    .map((e) => {
      const path = concretize(e.from, bind);
      return {
        path,
        label: nodeFor(ctx.card.graph, path)?.label ?? path,
        value: valueAt(ctx.card.state, path),
      };
    });
  return (
    <span
      className="computed"
      tabIndex={0}
      aria-describedby={open ? id : undefined}
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
      onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      data-bind={bind}
    >
      {children}
      {open && (
        <span role="tooltip" id={id} className="why">
          <strong>Why is this number?</strong>
          <span className="why-label">{node.label}</span>
          <code className="why-formula">{node.expression}</code>
          {inputs.length > 0 && (
            <span className="why-inputs">
              {inputs.map((i) => (
                <span key={i.path}>
                  {i.label} = {brief(i.value, formatOfValue(ctx.card, i.path))}
                </span>
              ))}
            </span>
          )}
        </span>
      )}
    </span>
  );
}

/** "24,000 was refused: <why>" (the value the person tried, formatted like the field). */
function refusedText(r: { message: string; value: Json }, how: NumberFormat): string {
  const tried = r.value === null || r.value === '' ? 'An empty value' : brief(r.value, how);
  const why = r.message.replace(/^(Schema violation: )+/i, '');
  return `${tried} was refused: ${why}`;
}

function Field({
  c,
  ctx,
  children,
  htmlFor,
}: {
  c: Component;
  ctx: RenderContext;
  children: ReactNode;
  htmlFor?: string;
}) {
  const rejected = c.bind ? ctx.rejected[c.bind] : undefined;
  return (
    <div className={`field${rejected ? ' rejected' : ''}`} data-component={c.id}>
      {c.label && (
        <label htmlFor={htmlFor}>
          {c.label}
          {c.required && <span aria-hidden="true"> *</span>}
        </label>
      )}
      {children}
      {typeof c.helperText === 'string' && <small className="helper">{c.helperText}</small>}
      {rejected && (
        <small className="error" role="alert" id={`${htmlFor}-error`}>
          {refusedText(rejected, formatOfComponent(c))}
        </small>
      )}
    </div>
  );
}

/**
 * Text-like and number inputs keep a draft while typing and commit on Enter or leaving the field.
 * A number field shows the model's value grouped (24,000), and what a person types may be grouped
 * too. After a refusal it shows the model's real value; the refused one is named in the message.
 */
function TextInput({ c, ctx, type }: { c: Component; ctx: RenderContext; type: string }) {
  const id = useId();
  const rejected = c.bind ? ctx.rejected[c.bind] : undefined;
  const numeric = type === 'number';
  const how = formatOfComponent(c);
  const shown = (v: Json | undefined): string =>
    numeric ? fieldNumber(v, how) : v === undefined || v === null ? '' : String(v);
  const [draft, setDraft] = useState(shown(c.value));
  // a refusal or a new model value puts the model's real value back in the field
  useEffect(() => setDraft(shown(c.value)), [c.value, rejected]);
  const save = (): void => {
    if (!c.bind) return;
    if (draft === shown(c.value)) return;
    const n = parseNumber(draft);
    ctx.commit(c.bind, numeric ? (draft.trim() === '' ? null : (n ?? draft)) : draft);
  };
  const disabled = c.enabled === false || c.readOnly === true;
  const prefix = c.type === 'currencyField' ? currencySymbol(str(c.currency)) : undefined;
  const suffix = c.type === 'percentField' ? '%' : undefined;
  const input = (
    <input
      id={id}
      type={numeric ? 'text' : type}
      inputMode={numeric ? 'decimal' : undefined}
      className={numeric ? 'number' : undefined}
      value={draft}
      placeholder={str(c.placeholder)}
      disabled={disabled}
      readOnly={c.readOnly === true}
      required={c.required === true}
      aria-invalid={rejected ? true : undefined}
      aria-describedby={rejected ? `${id}-error` : undefined}
      title={str(c.tooltip)}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={save}
      onKeyDown={(e) => e.key === 'Enter' && save()}
    />
  );
  return (
    <Field c={c} ctx={ctx} htmlFor={id}>
      {prefix || suffix ? (
        <span className="affix">
          {prefix && <span aria-hidden="true">{prefix}</span>}
          {input}
          {suffix && <span aria-hidden="true">{suffix}</span>}
        </span>
      ) : (
        input
      )}
    </Field>
  );
}

function currencySymbol(currency: string | undefined): string {
  try {
    const parts = new Intl.NumberFormat(undefined, {
      style: 'currency',
      currency: currency ?? 'USD',
    }).formatToParts(0);
    return parts.find((p) => p.type === 'currency')?.value ?? '';
  } catch {
    return '';
  }
}

function RangeInput({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const id = useId();
  const value = typeof c.value === 'number' ? c.value : (num(c.min) ?? 0);
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const commit = (v: number): void => {
    if (c.bind && v !== value) ctx.commit(c.bind, v);
  };
  return (
    <Field c={c} ctx={ctx} htmlFor={id}>
      <span className="range">
        <input
          id={id}
          type="range"
          min={num(c.min)}
          max={num(c.max)}
          step={num(c.step) ?? 1}
          value={draft}
          disabled={c.enabled === false}
          onChange={(e) => setDraft(Number(e.target.value))}
          onPointerUp={() => commit(draft)}
          onKeyUp={() => commit(draft)}
          onBlur={() => commit(draft)}
        />
        <output htmlFor={id}>{formatValue(draft)}</output>
      </span>
    </Field>
  );
}

function Stepper({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const step = num(c.step) ?? 1;
  const value = typeof c.value === 'number' ? c.value : 0;
  const clamp = (v: number): number => Math.min(num(c.max) ?? Infinity, Math.max(num(c.min) ?? -Infinity, v));
  const disabled = c.enabled === false;
  return (
    <div className="stepper">
      <TextInput c={c} ctx={ctx} type="number" />
      <span role="group" aria-label={`${c.label ?? c.id} steps`}>
        <button
          type="button"
          disabled={disabled}
          aria-label="Decrease"
          onClick={() => c.bind && ctx.commit(c.bind, clamp(value - step))}
        >
          −
        </button>
        <button
          type="button"
          disabled={disabled}
          aria-label="Increase"
          onClick={() => c.bind && ctx.commit(c.bind, clamp(value + step))}
        >
          +
        </button>
      </span>
    </div>
  );
}

function Check({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const id = useId();
  return (
    <div className="field check" data-component={c.id}>
      <input
        id={id}
        type="checkbox"
        role={c.type === 'toggleField' ? 'switch' : undefined}
        checked={c.value === true}
        disabled={c.enabled === false}
        onChange={(e) => c.bind && ctx.commit(c.bind, e.target.checked)}
      />
      <label htmlFor={id}>{c.label ?? c.id}</label>
    </div>
  );
}

interface Option {
  value: Json;
  label: string;
}

function optionsOf(c: Component, ctx: RenderContext): Option[] {
  const raw = Array.isArray(c.options)
    ? (c.options as unknown[])
    : typeof c.optionsPath === 'string'
      ? ((valueAt(ctx.card.state, c.optionsPath) as unknown[] | undefined) ?? [])
      : [];
  return (Array.isArray(raw) ? raw : []).map((o) =>
    o !== null && typeof o === 'object'
      ? {
          value: (o as { value: Json }).value,
          label: String((o as { label?: unknown }).label ?? (o as { value: Json }).value),
        }
      : { value: o as Json, label: String(o) },
  );
}

function Choice({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const id = useId();
  const options = optionsOf(c, ctx);
  const disabled = c.enabled === false;
  const index = options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(c.value));
  if (c.type === 'radioField')
    return (
      <fieldset className="field radios" data-component={c.id} disabled={disabled}>
        <legend>{c.label}</legend>
        {options.map((o, i) => (
          <label key={i}>
            <input
              type="radio"
              name={id}
              checked={i === index}
              onChange={() => c.bind && ctx.commit(c.bind, o.value)}
            />
            {o.label}
          </label>
        ))}
      </fieldset>
    );
  if (c.type === 'multiSelectField' || c.type === 'tagsField') {
    const chosen = Array.isArray(c.value) ? c.value : [];
    const has = (v: Json): boolean => chosen.some((x) => JSON.stringify(x) === JSON.stringify(v));
    return (
      <fieldset className="field radios" data-component={c.id} disabled={disabled}>
        <legend>{c.label}</legend>
        {options.map((o, i) => (
          <label key={i}>
            <input
              type="checkbox"
              checked={has(o.value)}
              onChange={(e) =>
                c.bind &&
                ctx.commit(
                  c.bind,
                  e.target.checked
                    ? [...chosen, o.value]
                    : chosen.filter((x) => JSON.stringify(x) !== JSON.stringify(o.value)),
                )
              }
            />
            {o.label}
          </label>
        ))}
      </fieldset>
    );
  }
  if (options.length === 0) return <TextInput c={c} ctx={ctx} type="text" />;
  return (
    <Field c={c} ctx={ctx} htmlFor={id}>
      <select
        id={id}
        value={index < 0 ? '' : String(index)}
        disabled={disabled}
        onChange={(e) => c.bind && ctx.commit(c.bind, options[Number(e.target.value)]?.value ?? null)}
      >
        {index < 0 && <option value="">—</option>}
        {options.map((o, i) => (
          <option key={i} value={String(i)}>
            {o.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

function DateRange({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const from = useId();
  const to = useId();
  return (
    <fieldset className="field" data-component={c.id}>
      <legend>{c.label ?? 'Dates'}</legend>
      <label htmlFor={from}>{str(c.fromLabel) ?? 'From'}</label>
      <input
        id={from}
        type="date"
        value={typeof c.valueFrom === 'string' ? c.valueFrom : ''}
        onChange={(e) => typeof c.bindFrom === 'string' && ctx.commit(c.bindFrom, e.target.value)}
      />
      <label htmlFor={to}>{str(c.toLabel) ?? 'To'}</label>
      <input
        id={to}
        type="date"
        value={typeof c.valueTo === 'string' ? c.valueTo : ''}
        onChange={(e) => typeof c.bindTo === 'string' && ctx.commit(c.bindTo, e.target.value)}
      />
    </fieldset>
  );
}

function Display({ c, ctx, children }: { c: Component; ctx: RenderContext; children: ReactNode }) {
  return c.bind ? (
    <Computed ctx={ctx} bind={c.bind}>
      {children}
    </Computed>
  ) : (
    <>{children}</>
  );
}

function StatTile({ c, ctx }: { c: Component; ctx: RenderContext }) {
  return (
    <div
      className={`stat ${str(c.variant) ?? ''}`}
      data-component={c.id}
      role="group"
      aria-label={c.label ?? c.id}
    >
      <span className="stat-label">{c.label}</span>
      <Display c={c} ctx={ctx}>
        <span className="stat-value" data-testid={`value-${c.id}`}>
          {formatValue(c.value, c.format, c.currency)}
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

function Table({ c, ctx }: { c: Component; ctx: RenderContext }) {
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
                  const cell = formatValue(v, col.format, col.currency);
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
      {pages > 1 && (
        <nav aria-label={`${c.label ?? 'table'} pages`}>
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
      )}
    </div>
  );
}

function KeyValues({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = Array.isArray(c.items) ? (c.items as Record<string, unknown>[]) : [];
  return (
    <dl className="kv" data-component={c.id} aria-label={c.label}>
      {items.map((item, i) => (
        <div key={i}>
          <dt>{str(item.label)}</dt>
          <dd>
            {typeof item.bind === 'string' ? (
              <Computed ctx={ctx} bind={item.bind}>
                {formatValue(item.value as Json, item.format, item.currency)}
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
function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n{2,}/).map((p, i) => (
        <p key={i}>{p}</p>
      ))}
    </>
  );
}

function Container({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const children = (
    <Components list={c.components} ctx={ctx} layout={str(c.layout)} columns={num(c.columns)} />
  );
  switch (c.type) {
    case 'fieldSet':
      return (
        <fieldset className="group" data-component={c.id}>
          {(str(c.legend) ?? c.label) && <legend>{str(c.legend) ?? c.label}</legend>}
          {children}
        </fieldset>
      );
    case 'accordion':
    case 'collapsible':
      return (
        <details className="group" open={c.collapsed !== true} data-component={c.id}>
          <summary>{str(c.legend) ?? c.label ?? c.id}</summary>
          {children}
        </details>
      );
    case 'tabs':
      return <Tabs c={c} ctx={ctx} />;
    case 'toolbar':
    case 'buttonGroup':
      return (
        <div
          className="group row"
          role={c.type === 'toolbar' ? 'toolbar' : 'group'}
          aria-label={c.label}
          data-component={c.id}
        >
          {children}
        </div>
      );
    default:
      return (
        <section className={`group ${c.type}`} aria-label={str(c.legend) ?? c.label} data-component={c.id}>
          {(str(c.legend) ?? c.label) && <h3>{str(c.legend) ?? c.label}</h3>}
          {children}
        </section>
      );
  }
}

export function TabStrip({
  labels,
  active,
  onSelect,
  idBase,
}: {
  labels: string[];
  active: number;
  onSelect: (i: number) => void;
  idBase: string;
}) {
  return (
    <div role="tablist" className="tabs">
      {labels.map((label, i) => (
        <button
          key={i}
          type="button"
          role="tab"
          id={`${idBase}-tab-${i}`}
          aria-selected={i === active}
          aria-controls={`${idBase}-panel-${i}`}
          tabIndex={i === active ? 0 : -1}
          onClick={() => onSelect(i)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') onSelect((active + 1) % labels.length);
            if (e.key === 'ArrowLeft') onSelect((active - 1 + labels.length) % labels.length);
          }}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

function Tabs({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = (c.components ?? []).filter((x) => x.visible !== false);
  const [active, setActive] = useState(0);
  const idBase = useId();
  const current = items[Math.min(active, items.length - 1)];
  return (
    <div data-component={c.id}>
      <TabStrip
        labels={items.map((i) => i.label ?? i.id)}
        active={active}
        onSelect={setActive}
        idBase={idBase}
      />
      {current && (
        <div role="tabpanel" id={`${idBase}-panel-${active}`} aria-labelledby={`${idBase}-tab-${active}`}>
          <Components list={current.components} ctx={ctx} layout={str(current.layout)} />
        </div>
      )}
    </div>
  );
}

function SectionList({ c, ctx }: { c: Component; ctx: RenderContext }) {
  return (
    <section className="group section-list" aria-label={c.label} data-component={c.id}>
      {c.label && <h3>{c.label}</h3>}
      {(c.rows ?? []).map((row) => (
        <div
          className="section-row"
          key={row.index}
          role="group"
          aria-label={`${c.label ?? 'Row'} ${row.index + 1}`}
        >
          <Components
            list={row.components}
            ctx={ctx}
            layout={str(c.layout) ?? 'horizontal'}
            columns={num(c.columns)}
          />
        </div>
      ))}
      {(c.rows ?? []).length === 0 && <p className="muted">No rows.</p>}
    </section>
  );
}

function Nav({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const items = Array.isArray(c.menuItems) ? (c.menuItems as Record<string, unknown>[]) : [];
  return (
    <nav aria-label={c.label ?? c.type} className={`menu ${str(c.orientation) ?? ''}`} data-component={c.id}>
      {items.map((m, i) => (
        <button
          key={i}
          type="button"
          onClick={() => typeof m.targetView === 'string' && ctx.navigate(m.targetView)}
        >
          {str(m.label) ?? str(m.targetView)}
        </button>
      ))}
    </nav>
  );
}

/** One component of any catalogued type (an unknown one is shown as a basic input). */
export function ComponentView({ c, ctx }: { c: Component; ctx: RenderContext }): ReactNode {
  if (c.visible === false) return null;
  switch (c.type) {
    case 'textField':
    case 'countrySelector':
      return <TextInput c={c} ctx={ctx} type="text" />;
    case 'emailField':
      return <TextInput c={c} ctx={ctx} type="email" />;
    case 'passwordField':
      return <TextInput c={c} ctx={ctx} type="password" />;
    case 'phoneNumberField':
      return <TextInput c={c} ctx={ctx} type="tel" />;
    case 'dateField':
      return <TextInput c={c} ctx={ctx} type="date" />;
    case 'dateTimeField':
      return <TextInput c={c} ctx={ctx} type="datetime-local" />;
    case 'timeField':
      return <TextInput c={c} ctx={ctx} type="time" />;
    case 'numericField':
    case 'currencyField':
    case 'percentField':
    case 'ratingField':
      return <TextInput c={c} ctx={ctx} type="number" />;
    case 'numericStepper':
      return <Stepper c={c} ctx={ctx} />;
    case 'sliderField':
      return <RangeInput c={c} ctx={ctx} />;
    case 'checkboxField':
    case 'toggleField':
      return <Check c={c} ctx={ctx} />;
    case 'textAreaField':
    case 'richTextField':
      return <TextArea c={c} ctx={ctx} />;
    case 'dateRangeField':
      return <DateRange c={c} ctx={ctx} />;
    case 'fileUploadField':
      return (
        <Field c={c} ctx={ctx}>
          <p className="muted">File uploads are not available in a card.</p>
        </Field>
      );
    case 'countryRegionSelector':
    case 'selectField':
    case 'radioField':
    case 'multiSelectField':
    case 'autocompleteField':
    case 'comboBox':
    case 'tagsField':
      return <Choice c={c} ctx={ctx} />;
    case 'label':
      return (
        <div className="label" data-component={c.id}>
          {c.label && <span className="label-name">{c.label}</span>}{' '}
          <Display c={c} ctx={ctx}>
            <span className="label-value">
              {formatValue((c.text ?? c.value) as Json, c.format, c.currency)}
            </span>
          </Display>
        </div>
      );
    case 'staticText':
      return (
        <div className="static" data-component={c.id}>
          <Paragraphs text={typeof c.text === 'string' ? c.text : formatValue(c.text as Json)} />
        </div>
      );
    case 'badge':
      return (
        <span className={`badge ${str(c.variant) ?? ''}`} data-component={c.id}>
          {str(c.text) ?? c.label}
        </span>
      );
    case 'alert':
    case 'callout':
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
    case 'separatorLine':
      return <hr />;
    case 'spacer':
      return <div style={{ height: num(c.size) ?? 12 }} aria-hidden="true" />;
    case 'image':
      // only inline images: a card never fetches from the network
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
    case 'link':
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
    case 'progressBar':
    case 'gauge': {
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
    case 'sourceList': {
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
    case 'dataTable':
      return <Table c={c} ctx={ctx} />;
    case 'dataChart':
    case 'sparkline':
      return <Chart c={c} card={ctx.card} />;
    case 'keyValueList':
    case 'summaryList':
      return <KeyValues c={c} ctx={ctx} />;
    case 'statTile':
    case 'metric':
      return <StatTile c={c} ctx={ctx} />;
    case 'jsonViewer':
      return (
        <pre className="json" data-component={c.id} aria-label={c.label ?? 'JSON'}>
          {JSON.stringify(c.value ?? null, null, 2)}
        </pre>
      );
    case 'validationSummary': {
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
    case 'explainPanel':
    case 'auditTimeline':
      return (
        <p className="muted" data-component={c.id}>
          Hover or focus a computed value to see how it was computed.
        </p>
      );
    case 'effectStatus':
      return (
        <div className="label" data-component={c.id}>
          {c.label ?? String(c.effectId)}: {brief(c.status ?? 'idle')}
          {c.error !== undefined && <span className="error"> {brief(c.error)}</span>}
        </div>
      );
    case 'sectionList':
      return <SectionList c={c} ctx={ctx} />;
    case 'group':
    case 'fieldSet':
    case 'card':
    case 'toolbar':
    case 'buttonGroup':
    case 'tabs':
    case 'tabItem':
    case 'accordion':
    case 'collapsible':
    case 'sectionItem':
      return <Container c={c} ctx={ctx} />;
    case 'button': {
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
    case 'menu':
    case 'stepper':
    case 'breadcrumb':
      return <Nav c={c} ctx={ctx} />;
    default:
      return <TextInput c={c} ctx={ctx} type="text" />;
  }
}

function TextArea({ c, ctx }: { c: Component; ctx: RenderContext }) {
  const id = useId();
  const [draft, setDraft] = useState(typeof c.value === 'string' ? c.value : '');
  useEffect(() => setDraft(typeof c.value === 'string' ? c.value : ''), [c.value]);
  return (
    <Field c={c} ctx={ctx} htmlFor={id}>
      <textarea
        id={id}
        rows={num(c.rows) ?? 3}
        value={draft}
        disabled={c.enabled === false}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => c.bind && draft !== (c.value ?? '') && ctx.commit(c.bind, draft)}
      />
    </Field>
  );
}

export function Components({
  list,
  ctx,
  layout,
  columns,
}: {
  list: Component[] | undefined;
  ctx: RenderContext;
  layout?: string | undefined;
  columns?: number | undefined;
}) {
  const style =
    layout === 'grid' ? { gridTemplateColumns: `repeat(${columns ?? 2}, minmax(0, 1fr))` } : undefined;
  const kind = layout ?? 'vertical';
  return (
    <div className={`layout ${kind}`} style={style}>
      {kind === 'vertical'
        ? runsOf(list ?? []).map((run) =>
            run.length === 1 ? (
              <ComponentView key={run[0]!.id} c={run[0]!} ctx={ctx} />
            ) : (
              <div key={run[0]!.id} className={`run ${runKind(run[0]!)}`}>
                {run.map((c) => (
                  <ComponentView key={c.id} c={c} ctx={ctx} />
                ))}
              </div>
            ),
          )
        : (list ?? []).map((c) => <ComponentView key={c.id} c={c} ctx={ctx} />)}
    </div>
  );
}

/** Fields and stat tiles that follow each other share a row when the card is wide enough. */
function runKind(c: Component): string | undefined {
  if (c.type === 'statTile' || c.type === 'metric') return 'tiles';
  if (INPUT_TYPES.has(c.type) || CHOICE_TYPES.has(c.type))
    return c.type === 'textAreaField' ? undefined : 'fields';
  return undefined;
}

function runsOf(list: Component[]): Component[][] {
  const runs: Component[][] = [];
  for (const c of list) {
    const last = runs.at(-1);
    const k = runKind(c);
    if (last && k !== undefined && runKind(last[0]!) === k) last.push(c);
    else runs.push([c]);
  }
  return runs;
}

export function rejectedFrom(
  list: RejectedInput[] | undefined,
): Record<string, { message: string; value: Json }> {
  return Object.fromEntries((list ?? []).map((r) => [r.path, { message: r.reason, value: r.value as Json }]));
}
