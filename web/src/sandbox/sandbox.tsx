/**
 * The sandbox: the paired session's models on the left (refreshed on a timer, so a model the agent
 * creates appears), and the selected one on the right: its view through the card's renderer, where
 * edits are mutations, then its state, spec, audit timeline and graph. A change feed per model
 * keeps everything current while the agent works on it.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Components, TabStrip, type RenderContext } from '../components';
import {
  valueAt,
  type CardPayload,
  type Flag,
  type Graph,
  type Json,
  type JsonObject,
  type View,
} from '../model';
import { ApiError, splitNamespaced, type AuditEntry, type SandboxApi } from './api';
import { POLL_MS, useLiveModel } from './live';
import { AuditTimeline, GraphPanel, JsonBlock } from './panels';
import { CompositionLine } from '../composition-line';
import { FlagList } from '../flags';
import { GoalSeek } from './goal-seek';
import { DescribeModel, useOpenCreated } from './describe';
import { refusalsStillAbout, shownValues, type Refusals } from '../refusals';
import { setViewNumbers } from '../format';

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The views a person moves between: all but those only used as a section list's item view. */
export function topLevelViews(spec: JsonObject | undefined): { id: string; label: string }[] {
  const vd = spec?.viewDefinition;
  if (!vd || typeof vd !== 'object' || Array.isArray(vd) || !Array.isArray(vd.views)) return [];
  const views = vd.views.filter((v): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v));
  const items = new Set<string>();
  const walk = (list: Json | undefined): void => {
    if (!Array.isArray(list)) return;
    for (const c of list)
      if (c && typeof c === 'object' && !Array.isArray(c)) {
        if (typeof c.itemView === 'string') items.add(c.itemView);
        walk(c.components);
      }
  };
  for (const v of views) walk(v.components);
  const out = views
    .filter((v) => typeof v.id === 'string' && !items.has(v.id))
    .map((v) => ({ id: String(v.id), label: typeof v.label === 'string' ? v.label : String(v.id) }));
  const first = out.findIndex((v) => v.id === vd.defaultView);
  return first > 0 ? [out[first]!, ...out.filter((_, i) => i !== first)] : out;
}

interface Loaded {
  view?: View;
  viewError?: string;
  state?: JsonObject;
  spec?: JsonObject;
  audit?: AuditEntry[];
  graph?: Graph;
  flags?: Flag[];
  error?: string;
}

const DETAILS = ['State', 'Spec', 'Audit', 'Graph'] as const;

/** Everything the panel shows of one model, read together; a newer read supersedes an older one. */
function useModelData(api: SandboxApi, id: string, viewId: string | undefined) {
  const [data, setData] = useState<Loaded>({});
  const loads = useRef(0);
  const load = useCallback(() => {
    const mine = ++loads.current;
    void Promise.allSettled([
      api.view(id, viewId),
      api.state(id),
      api.spec(id),
      api.audit(id),
      api.graph(id),
      api.flags(id),
    ]).then(([view, state, spec, audit, graph, flags]) => {
      if (mine !== loads.current) return; // a newer read is on its way
      const failed = [state, spec, audit, graph, flags].find((r) => r.status === 'rejected');
      setData({
        ...(view.status === 'fulfilled' ? { view: view.value } : { viewError: errorText(view.reason) }),
        ...(state.status === 'fulfilled' ? { state: state.value } : {}),
        ...(spec.status === 'fulfilled' ? { spec: spec.value } : {}),
        ...(audit.status === 'fulfilled' ? { audit: audit.value } : {}),
        ...(graph.status === 'fulfilled' ? { graph: graph.value } : {}),
        ...(flags.status === 'fulfilled' ? { flags: flags.value } : {}),
        ...(failed ? { error: errorText(failed.reason) } : {}),
      });
    });
  }, [api, id, viewId]);
  useEffect(load, [load]);
  return { data, load };
}

/**
 * Edits as mutations: a refusal tied to the model's rules shows next to its field, others above.
 * A refusal remembers, and is retired by, the value its field shows (the view's), falling back to
 * the state's: the page reads view and state in separate requests, and when they straddle someone
 * else's write the state can be older than the field the person saw. Remembering the state's older
 * value would retire the refusal at the next read, as though a newer write had superseded it.
 */
function useCommit(api: SandboxApi, id: string, load: () => void, data: Loaded) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rejected, setRejected] = useState<Refusals>({});
  const { view, state } = data;
  const valueOf = useMemo(() => {
    const shown = shownValues(view?.components);
    return (path: string): Json =>
      shown.has(path) ? shown.get(path)! : (valueAt(state ?? {}, path) ?? null);
  }, [view, state]);
  const valueOfRef = useRef(valueOf);
  valueOfRef.current = valueOf;
  // a newer value at a refused field (the agent's edit, another tab's) makes its refusal stale
  useEffect(() => setRejected((old) => refusalsStillAbout(old, valueOf)), [valueOf]);
  const commit = useCallback(
    (path: string, value: Json) => {
      setBusy(true);
      api
        .mutate(id, { [path]: value })
        .then(() => {
          // a good edit clears every refusal and the banner: the fields show the model's values
          setError(null);
          setRejected({});
          load();
        })
        .catch((e: unknown) => {
          const issues = e instanceof ApiError ? e.violations() : [];
          if (issues.length > 0) {
            setError(null);
            const was = valueOfRef.current(path);
            setRejected({ [path]: { message: issues.join('; '), value, was } });
          } else setError(errorText(e));
        })
        .finally(() => setBusy(false));
    },
    [api, id, load],
  );
  return { commit, busy, error, rejected };
}

function cardOf(id: string, data: Loaded): CardPayload {
  return {
    mode: 'stored',
    modelId: id,
    version: typeof data.spec?.version === 'string' ? data.spec.version : '',
    specHash: '',
    state: data.state ?? {},
    meta: {},
    flags: data.flags ?? [],
    views: data.view ? [data.view] : [],
    graph: data.graph ?? { nodes: [], edges: [] },
  };
}

function ModelHeader({
  titleId,
  name,
  live,
  busy,
}: {
  titleId: string;
  name: string;
  live: string;
  busy: boolean;
}) {
  return (
    <header className="model-head">
      <h2 id={titleId}>{name}</h2>
      <span className={`badge live-${live}`} role="status" aria-label="Updates">
        {live === 'live' ? 'Live' : live === 'polling' ? `Polling every ${POLL_MS / 1000} s` : 'Connecting…'}
      </span>
      {busy && (
        <span className="muted" role="status">
          Saving…
        </span>
      )}
    </header>
  );
}

/** The model's view through the card's renderer, with tabs when it has several top-level views. */
function ViewSection({
  data,
  ctx,
  viewId,
  setViewId,
  idBase,
}: {
  data: Loaded;
  ctx: RenderContext;
  viewId: string | undefined;
  setViewId: (id: string | undefined) => void;
  idBase: string;
}) {
  const views = topLevelViews(data.spec);
  const active = Math.max(
    0,
    views.findIndex((v) => v.id === (viewId ?? data.view?.viewId)),
  );
  const tabbed = views.length > 1;
  setViewNumbers(data.view); // before its components format a number
  return (
    <section className="card sandbox-view" aria-label="View">
      {tabbed && (
        <TabStrip
          labels={views.map((v) => v.label)}
          active={active}
          onSelect={(i) => setViewId(views[i]?.id)}
          idBase={`${idBase}-views`}
        />
      )}
      {data.view ? (
        <div
          role={tabbed ? 'tabpanel' : undefined}
          id={`${idBase}-views-panel-${active}`}
          aria-labelledby={tabbed ? `${idBase}-views-tab-${active}` : undefined}
        >
          {data.view.title && <h3 className="view-title">{data.view.title}</h3>}
          <Components
            list={data.view.components}
            ctx={ctx}
            layout={data.view.layout}
            columns={data.view.columns}
          />
        </div>
      ) : (
        <p className="muted">{data.viewError ?? 'Loading…'}</p>
      )}
    </section>
  );
}

function DetailsSection({ data, idBase }: { data: Loaded; idBase: string }) {
  const [detail, setDetail] = useState(0);
  return (
    <section className="details" aria-label="Model details">
      <TabStrip labels={[...DETAILS]} active={detail} onSelect={setDetail} idBase={`${idBase}-details`} />
      <div
        role="tabpanel"
        id={`${idBase}-details-panel-${detail}`}
        aria-labelledby={`${idBase}-details-tab-${detail}`}
        className="detail-panel"
      >
        {DETAILS[detail] === 'State' && <JsonBlock value={data.state ?? null} label="Merged state" />}
        {DETAILS[detail] === 'Spec' && <JsonBlock value={data.spec ?? null} label="Model spec" />}
        {DETAILS[detail] === 'Audit' && <AuditTimeline records={data.audit ?? []} />}
        {DETAILS[detail] === 'Graph' && data.graph && <GraphPanel graph={data.graph} />}
      </div>
    </section>
  );
}

function ModelPanel({ api, id }: { api: SandboxApi; id: string }) {
  const [viewId, setViewId] = useState<string | undefined>(undefined);
  const idBase = useId();
  const { data, load } = useModelData(api, id, viewId);
  const live = useLiveModel(api, id, load);
  const { commit, busy, error, rejected } = useCommit(api, id, load, data);
  const card = cardOf(id, data);
  const ctx: RenderContext = { card, commit, rejected, busy, navigate: (target) => setViewId(target) };
  return (
    <article className="model" aria-busy={busy} aria-labelledby={`${idBase}-title`}>
      <ModelHeader titleId={`${idBase}-title`} name={splitNamespaced(id).name} live={live} busy={busy} />
      {(error ?? data.error) && (
        <p className="callout error" role="alert">
          {error ?? data.error}
        </p>
      )}
      <CompositionLine card={data.spec ? { ...card, spec: data.spec } : card} />
      <FlagList flags={card.flags} />
      <ViewSection data={data} ctx={ctx} viewId={viewId} setViewId={setViewId} idBase={idBase} />
      <GoalSeek api={api} id={id} spec={data.spec} state={data.state} onApplied={load} />
      <DetailsSection data={data} idBase={idBase} />
    </article>
  );
}

/** The session's models, one button each (the describe box sits under it, outside the list). */
function ModelNav({
  models,
  selected,
  select,
}: {
  models: string[] | null;
  selected: string | undefined;
  select: (id: string) => void;
}) {
  return (
    <nav aria-label="Models">
      <h2>Models</h2>
      {models === null ? (
        <p className="muted">Loading…</p>
      ) : models.length === 0 ? (
        <p className="muted">No models yet: ask your agent to create one.</p>
      ) : (
        <ul>
          {models.map((m) => (
            <li key={m}>
              <button
                type="button"
                aria-current={m === selected ? 'true' : undefined}
                data-model={m}
                onClick={() => select(m)}
              >
                {splitNamespaced(m).name}
              </button>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}

export function Sandbox({ api }: { api: SandboxApi }) {
  const [models, setModels] = useState<string[] | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | undefined>(undefined);

  useEffect(() => {
    let stopped = false;
    const refresh = (): void => {
      api
        .listModels()
        .then((ids) => {
          if (stopped) return;
          setModels((old) => (old && old.join('\n') === ids.join('\n') ? old : ids));
          setListError(null);
        })
        .catch((e: unknown) => {
          if (stopped) return;
          const expired = e instanceof ApiError && (e.status === 401 || e.status === 403);
          setListError(
            expired
              ? 'This browser is no longer paired: open the link your agent gave you'
              : `Cannot list the models: ${errorText(e)}`,
          );
        });
    };
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [api]);

  // keep a selection while its model exists; otherwise show the first
  useEffect(() => {
    if (models && (selected === undefined || !models.includes(selected))) setSelected(models[0]);
  }, [models, selected]);

  const namespace = models?.map((m) => splitNamespaced(m).namespace).find((n) => n !== undefined);
  const opened = useOpenCreated(setModels, setSelected);

  return (
    <div className="sandbox">
      <header className="sandbox-head">
        <h1>Modelworks sandbox</h1>
        {namespace && <span className="muted">session {namespace}</span>}
      </header>
      {listError && (
        <p className="callout error" role="alert">
          {listError}
        </p>
      )}
      <div className="sandbox-body">
        <div className="model-list">
          <ModelNav models={models} selected={selected} select={setSelected} />
          <DescribeModel onCreated={opened} />
        </div>
        <main className="model-area">
          {selected && <ModelPanel key={selected} api={api} id={selected} />}
        </main>
      </div>
    </div>
  );
}
