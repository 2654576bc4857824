/**
 * The sandbox's "Goal seek" form (issue 46): pick an output and the value it should take (or a
 * bound it should keep), the input to change and its range; "Find" asks the server to solve on a
 * private copy of the model (POST /models/{id}/solve) and shows the answer as the card does;
 * "Use these inputs" solves again with `apply: true`, which writes the answer as one audited cycle.
 * The form offers the model's top-level numeric fields: computed ones as outputs, the others as inputs.
 */
import { useId, useState, type ReactNode } from 'react';
import type { Json, JsonObject } from '../model';
import { Solve } from '../solve';
import { isSolveResult, type SolveNotes, type SolveResult } from '../solve-model';
import { splitNamespaced, type SandboxApi } from './api';

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);

interface Field {
  path: string;
  label: string;
  min?: number;
  max?: number;
  format?: string;
  currency?: string;
}

/** The labels and formats the model's views give its fields (the first component bound to each). */
function viewNotes(spec: JsonObject): Map<string, { label?: string; format?: string; currency?: string }> {
  const notes = new Map<string, { label?: string; format?: string; currency?: string }>();
  const walk = (list: Json | undefined): void => {
    if (!Array.isArray(list)) return;
    for (const c of list) {
      if (!isObject(c)) continue;
      if (typeof c.bind === 'string' && !notes.has(c.bind)) {
        const format =
          typeof c.format === 'string'
            ? c.format
            : c.type === 'currencyField'
              ? 'currency'
              : c.type === 'percentField'
                ? 'percent'
                : undefined;
        notes.set(c.bind, {
          ...(typeof c.label === 'string' ? { label: c.label } : {}),
          ...(format ? { format } : {}),
          ...(typeof c.currency === 'string' ? { currency: c.currency } : {}),
        });
      }
      walk(c.components);
    }
  };
  const vd = spec.viewDefinition;
  if (isObject(vd) && Array.isArray(vd.views)) for (const v of vd.views) if (isObject(v)) walk(v.components);
  return notes;
}

/** The model's top-level numeric fields: what it computes (outputs) and what a person sets (inputs). */
export function goalSeekFields(spec: JsonObject | undefined): { inputs: Field[]; outputs: Field[] } {
  const props = isObject(spec?.schema) && isObject(spec.schema.properties) ? spec.schema.properties : {};
  const derived = new Set(
    Array.isArray(spec?.derivations)
      ? spec.derivations.flatMap((d) => (isObject(d) && typeof d.path === 'string' ? [d.path] : []))
      : [],
  );
  const notes = spec ? viewNotes(spec) : new Map();
  const inputs: Field[] = [];
  const outputs: Field[] = [];
  for (const [name, node] of Object.entries(props)) {
    if (!isObject(node) || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    if (node.type !== 'number' && node.type !== 'integer') continue;
    const path = `$.${name}`;
    const note = notes.get(path) ?? {};
    const field: Field = {
      path,
      label: note.label ?? name,
      ...(typeof node.minimum === 'number' ? { min: node.minimum } : {}),
      ...(typeof node.maximum === 'number' ? { max: node.maximum } : {}),
      ...(note.format ? { format: note.format } : {}),
      ...(note.currency ? { currency: note.currency } : {}),
    };
    if (derived.has(path) || node.readOnly === true) outputs.push(field);
    else inputs.push(field);
  }
  return { inputs, outputs };
}

type Kind = 'value' | 'atMost' | 'atLeast';

/** What the form holds as typed ('' for a choice or range not made: the defaults apply). */
interface Form {
  output: string;
  kind: Kind;
  value: string;
  input: string;
  min: string;
  max: string;
}

/** A typed number ("7,000" as people write it); NaN for anything else. */
const numberOf = (text: string): number => (text.trim() === '' ? NaN : Number(text.replace(/,/g, '')));

/** The form with its defaults filled in: the first output and input, a range from the schema or the value now. */
function resolved(form: Form, fields: { inputs: Field[]; outputs: Field[] }, state: JsonObject | undefined) {
  const input = fields.inputs.find((f) => f.path === form.input) ?? fields.inputs[0]!;
  const current = state?.[input.path.slice(2)];
  const around = typeof current === 'number' ? Math.max(Math.abs(current) * 2, 1) : 100;
  return {
    output: form.output || fields.outputs[0]!.path,
    input,
    min: form.min || String(input.min ?? (input.max !== undefined ? input.max - around : 0)),
    max: form.max || String(input.max ?? (input.min ?? 0) + around),
  };
}

/** The card's notes for the answer: the model's name and its fields' labels and formats. */
function notesFor(id: string, spec: JsonObject | undefined, fields: Field[]): SolveNotes {
  return {
    mode: 'solve',
    modelId: splitNamespaced(id).name, // the name the model list shows, without the session's namespace
    ...(spec && typeof spec._name === 'string' ? { title: spec._name } : {}),
    fields: Object.fromEntries(
      fields.map((f) => [
        f.path,
        {
          label: f.label,
          ...(f.format ? { format: f.format } : {}),
          ...(f.currency ? { currency: f.currency } : {}),
        },
      ]),
    ),
  };
}

/** One labelled choice or text box of the form. */
function Row({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {children}
    </>
  );
}

function Fields({
  base,
  form,
  set,
  fields,
  shown,
}: {
  base: string;
  form: Form;
  set: (change: Partial<Form>) => void;
  fields: { inputs: Field[]; outputs: Field[] };
  shown: ReturnType<typeof resolved>;
}) {
  const options = (list: Field[]) =>
    list.map((f) => (
      <option key={f.path} value={f.path}>
        {f.label}
      </option>
    ));
  return (
    <>
      <Row id={`${base}-output`} label="Set">
        <select id={`${base}-output`} value={shown.output} onChange={(e) => set({ output: e.target.value })}>
          {options(fields.outputs)}
        </select>
      </Row>
      <Row id={`${base}-kind`} label="so that it is">
        <select id={`${base}-kind`} value={form.kind} onChange={(e) => set({ kind: e.target.value as Kind })}>
          <option value="value">equal to</option>
          <option value="atMost">at most</option>
          <option value="atLeast">at least</option>
        </select>
      </Row>
      <Row id={`${base}-value`} label="Target value">
        <input
          id={`${base}-value`}
          inputMode="decimal"
          value={form.value}
          onChange={(e) => set({ value: e.target.value })}
        />
      </Row>
      <Row id={`${base}-input`} label="By changing">
        <select
          id={`${base}-input`}
          value={shown.input.path}
          onChange={(e) => set({ input: e.target.value, min: '', max: '' })}
        >
          {options(fields.inputs)}
        </select>
      </Row>
      <Row id={`${base}-min`} label="From">
        <input
          id={`${base}-min`}
          inputMode="decimal"
          value={shown.min}
          onChange={(e) => set({ min: e.target.value })}
        />
      </Row>
      <Row id={`${base}-max`} label="To">
        <input
          id={`${base}-max`}
          inputMode="decimal"
          value={shown.max}
          onChange={(e) => set({ max: e.target.value })}
        />
      </Row>
    </>
  );
}

/** Solve requests and their answer; a changed question clears the answer. */
function useSolve(api: SandboxApi, id: string, onApplied: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [answer, setAnswer] = useState<SolveResult | null>(null);
  const run = (request: Record<string, unknown>, apply: boolean): void => {
    setBusy(true);
    setError(null);
    api
      .solve(id, apply ? { ...request, apply: true } : request)
      .then((r) => {
        if (!isSolveResult(r)) throw new Error('The server answered something that is not a solve result.');
        setAnswer(r);
        if (apply) onApplied();
      })
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => setBusy(false));
  };
  return { busy, error, setError, answer, clear: () => setAnswer(null), run };
}

function Status({ busy, error }: { busy: boolean; error: string | null }) {
  return (
    <>
      {busy && (
        <p className="muted" role="status">
          Solving…
        </p>
      )}
      {error && (
        <p className="callout error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

export function GoalSeek({
  api,
  id,
  spec,
  state,
  onApplied,
}: {
  api: SandboxApi;
  id: string;
  spec: JsonObject | undefined;
  state: JsonObject | undefined;
  onApplied: () => void;
}) {
  const base = useId();
  const [form, setForm] = useState<Form>({
    output: '',
    kind: 'value',
    value: '',
    input: '',
    min: '',
    max: '',
  });
  const solve = useSolve(api, id, onApplied);
  const fields = goalSeekFields(spec);
  if (fields.inputs.length === 0 || fields.outputs.length === 0) return null;
  const shown = resolved(form, fields, state);
  const set = (change: Partial<Form>): void => {
    setForm({ ...form, ...change });
    solve.clear();
  };
  const ask = (apply: boolean): void => {
    const [value, min, max] = [numberOf(form.value), numberOf(shown.min), numberOf(shown.max)];
    if ([value, min, max].some((n) => Number.isNaN(n))) {
      solve.setError('Give the target value and the range as numbers.');
      return;
    }
    // the same seed each time: the same question gives the same answer, so "use" writes what "find" showed
    solve.run(
      {
        vary: { [shown.input.path]: { min, max } },
        target: { path: shown.output, [form.kind]: value },
        seed: 1,
      },
      apply,
    );
  };
  const answer = solve.answer;
  return (
    <section className="card goal-seek" aria-labelledby={`${base}-h`}>
      <h3 id={`${base}-h`}>Goal seek</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          ask(false);
        }}
      >
        <Fields base={base} form={form} set={set} fields={fields} shown={shown} />
        <div className="goal-seek-actions">
          <button type="submit" disabled={solve.busy}>
            Find
          </button>
          {answer?.met && !answer.applied && (
            <button type="button" disabled={solve.busy} onClick={() => ask(true)}>
              Use these inputs
            </button>
          )}
        </div>
      </form>
      <Status busy={solve.busy} error={solve.error} />
      {answer && <Solve result={answer} notes={notesFor(id, spec, [...fields.inputs, ...fields.outputs])} />}
    </section>
  );
}
