/**
 * Input renderers: editable fields that commit to the server. Each keeps a draft while the person
 * types and shows the refusal (and the refused value) when the model says no.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import {
  brief,
  currencySymbol,
  fieldNumber,
  formatOfComponent,
  formatValue,
  parseNumber,
  type NumberFormat,
} from './format';
import { valueAt, type Component, type Json } from './model';
import { num, str, type RenderContext } from './render-context';

/** "24,000 was refused: <why>" (the value the person tried, formatted like the field). */
function refusedText(r: { message: string; value: Json }, how: NumberFormat): string {
  const tried = r.value === null || r.value === '' ? 'An empty value' : brief(r.value, how);
  const why = r.message.replace(/^(Schema violation: )+/i, '');
  return `${tried} was refused: ${why}`;
}

export function Field({
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
export function TextInput({ c, ctx, type }: { c: Component; ctx: RenderContext; type: string }) {
  const id = useId();
  const rejected = c.bind ? ctx.rejected[c.bind] : undefined;
  const numeric = type === 'number';
  const how = formatOfComponent(c);
  const shown = (v: Json | undefined): string =>
    numeric ? fieldNumber(v, how) : v === undefined || v === null ? '' : String(v);
  const [draft, setDraft] = useState(shown(c.value));
  // a new model value, or a new refusal, puts the model's real value back in the field; a refusal
  // cleared by a good edit does not: until the read-back arrives, the field would show the old value
  useEffect(() => setDraft(shown(c.value)), [c.value]);
  useEffect(() => {
    if (rejected) setDraft(shown(c.value));
  }, [rejected]);
  const save = (): void => {
    if (!c.bind) return;
    if (draft === shown(c.value)) return;
    const n = parseNumber(draft);
    ctx.commit(c.bind, numeric ? (draft.trim() === '' ? null : (n ?? draft)) : draft);
  };
  const disabled = c.enabled === false || c.readOnly === true;
  const prefix = c.type === 'currencyField' ? currencySymbol(c.currency) : undefined;
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

export function RangeInput({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function Stepper({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function Check({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function Choice({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function DateRange({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function TextArea({ c, ctx }: { c: Component; ctx: RenderContext }) {
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

export function FileUploadNotice({ c, ctx }: { c: Component; ctx: RenderContext }) {
  return (
    <Field c={c} ctx={ctx}>
      <p className="muted">File uploads are not available in a card.</p>
    </Field>
  );
}
