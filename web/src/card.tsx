/**
 * The card: tabs over the model's top-level views, failing flag rules, the components, and the
 * edit loop. A stateless card recomputes the inputs on screen with valem_recompute (sending the
 * spec again when the server answers spec_unknown); a stored model's edits are saved with
 * valem_card_edit. After each recompute the assistant is told the inputs and results.
 */
import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import type { Backend, ToolAnswer } from './backend';
import { Components, rejectedFrom, TabStrip, type RenderContext } from './components';
import { inputsOf, outputsOf, type CardPayload, type Json } from './model';
import { CompositionLine } from './composition-line';
import { FlagList } from './flags';
import { useFreshness, type Freshness } from './freshness';
import { currentRefusals, refusal } from './refusals';
import { numbersVersion, setViewNumbers, subscribeNumbers } from './format';

function errorText(r: ToolAnswer): string {
  const s = r.structuredContent;
  if (s && typeof s.message === 'string') return s.message;
  if (s && typeof s.error === 'string') return s.error;
  return r.content?.map((c) => c.text ?? '').join(' ') || 'The server refused the request';
}

/** A successful answer's state, meta, flags and views on top of the card shown before it. */
export function nextCard(
  prev: CardPayload,
  s: Record<string, unknown>,
  given?: Record<string, Json>,
): CardPayload {
  return {
    ...prev,
    specHash: String(s.specHash ?? prev.specHash),
    state: s.state as CardPayload['state'],
    meta: (s.meta as CardPayload['meta']) ?? {},
    flags: (s.flags as CardPayload['flags']) ?? [],
    views: (s.views as CardPayload['views']) ?? prev.views,
    outputs: s.outputs as CardPayload['outputs'],
    ...(given ? { given } : {}),
    ...(s.spec ? { spec: s.spec as CardPayload['spec'] } : {}),
    ...(s.graph ? { graph: s.graph as CardPayload['graph'] } : {}),
    ...(typeof s.version === 'string' ? { version: s.version } : {}),
  };
}

/** Sends one edit: a stateless card recomputes (resending the spec if the server forgot it), a stored one saves. */
async function sendEdit(
  backend: Backend,
  current: CardPayload,
  path: string,
  value: Json,
): Promise<{ answer: ToolAnswer; given?: Record<string, Json> }> {
  if (current.mode !== 'stateless') {
    const answer = await backend.call('valem_card_edit', {
      id: current.modelId,
      specHash: current.specHash,
      mutations: { [path]: value },
    });
    return { answer };
  }
  const given = { ...(current.given ?? {}), [path]: value };
  let answer = await backend.call('valem_recompute', { specHash: current.specHash, inputs: given });
  if (answer.isError && answer.structuredContent?.error === 'spec_unknown')
    answer = await backend.call('valem_recompute', {
      specHash: current.specHash,
      inputs: given,
      spec: current.spec,
    });
  return { answer, given };
}

/** Tells the assistant the inputs and results on screen. */
function useTell(backend: Backend) {
  return useCallback(
    (next: CardPayload) => {
      const inputs =
        next.mode === 'stateless' ? { ...inputsOf(next), ...(next.given ?? {}) } : inputsOf(next);
      const outputs = outputsOf(next);
      const text = `The user's model card "${next.modelId}" now shows inputs ${JSON.stringify(inputs)} and results ${JSON.stringify(outputs)}.`;
      void backend
        .updateContext(text, { modelId: next.modelId, specHash: next.specHash, inputs, outputs })
        .catch(() => {});
    },
    [backend],
  );
}

/** The card's state and its edit loop: an answer becomes the card, a refusal shows on the edited field. */
function useCardState(initial: CardPayload, backend: Backend) {
  const [card, setCard] = useState<CardPayload>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rejected, setRejected] = useState(() => rejectedFrom(initial.rejectedInputs));
  const cardRef = useRef(card);
  cardRef.current = card;
  const tell = useTell(backend);

  /** Applies a successful answer; returns false for a refusal. */
  const apply = useCallback(
    (
      r: ToolAnswer,
      path: string | undefined,
      value: Json | undefined,
      given?: Record<string, Json>,
    ): boolean => {
      const s = r.structuredContent;
      if (r.isError || !s) {
        setError(errorText(r));
        return false;
      }
      if (s.rejected === true) {
        const issues = Array.isArray(s.issues) ? (s.issues as { message?: string }[]) : [];
        const message = issues.map((i) => i.message).join('; ') || 'rejected';
        if (path !== undefined)
          setRejected((old) => ({
            ...old,
            [path]: refusal(message, value ?? null, path, cardRef.current.state),
          }));
        return false;
      }
      const next = nextCard(cardRef.current, s, given);
      setCard(next);
      setError(null);
      // the next good edit clears every refusal: the fields already show the model's real values
      if (path !== undefined) setRejected({});
      // a read-back showing a newer value at a refused field (someone else's edit) retires that refusal
      else setRejected((old) => currentRefusals(old, next.state));
      tell(next);
      return true;
    },
    [tell],
  );

  const commit = useCallback(
    (path: string, value: Json) => {
      setBusy(true);
      sendEdit(backend, cardRef.current, path, value)
        .then(({ answer, given }) => apply(answer, path, value, given))
        .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
        .finally(() => setBusy(false));
    },
    [apply, backend],
  );
  return { card, cardRef, busy, error, setError, rejected, apply, commit, tell };
}

function CardHeader({
  title,
  card,
  backend,
  busy,
  embedded,
  freshness,
  onShare,
}: {
  title: string;
  card: CardPayload;
  backend: Backend;
  busy: boolean;
  embedded: boolean;
  freshness: Freshness;
  onShare: () => void;
}) {
  const [fullscreen, setFullscreen] = useState(false);
  return (
    <header>
      <h1>{title}</h1>
      <div className="actions">
        {card.mode === 'stored' && <FreshnessBadge freshness={freshness} />}
        {busy && (
          <span className="muted" role="status">
            Computing…
          </span>
        )}
        {card.mode === 'stateless' && card.canShare && backend.openLink && !embedded && (
          <button type="button" onClick={onShare}>
            Open in browser
          </button>
        )}
        {backend.toggleFullscreen && (
          <button
            type="button"
            aria-pressed={fullscreen}
            onClick={() => void backend.toggleFullscreen!().then((m) => setFullscreen(m === 'fullscreen'))}
          >
            {fullscreen ? 'Exit full screen' : 'Full screen'}
          </button>
        )}
      </div>
    </header>
  );
}

/** Opens the stateless card as a share link in the browser; false when the model is too large to share. */
async function openShareLink(backend: Backend, current: CardPayload): Promise<boolean> {
  const r = await backend.call('valem_recompute', {
    specHash: current.specHash,
    inputs: current.given ?? {},
    spec: current.spec,
    share: true,
  });
  const url = r.structuredContent?.shareUrl;
  if (typeof url !== 'string' || !backend.openLink) return false;
  await backend.openLink(url);
  return true;
}

export function Card({
  initial,
  backend,
  embedded = false,
}: {
  initial: CardPayload;
  backend: Backend;
  embedded?: boolean;
}) {
  const [tab, setTab] = useState(0);
  useSyncExternalStore(subscribeNumbers, numbersVersion); // the host switched locale: format again
  const { card, cardRef, busy, error, setError, rejected, apply, commit, tell } = useCardState(
    initial,
    backend,
  );

  useEffect(() => {
    if (initial.mode !== 'stored') tell(initial);
  }, [initial, tell]);
  // a stored model's card reads the model back (on open, on focus, every few seconds): it shows the
  // model as it is now, and says when it could not read it
  const freshness = useFreshness(initial.mode === 'stored', busy, async () =>
    apply(
      await backend.call('valem_card_edit', {
        id: cardRef.current.modelId,
        specHash: cardRef.current.specHash,
      }),
      undefined,
      undefined,
    ),
  );

  const openInBrowser = async (): Promise<void> => {
    if (!(await openShareLink(backend, cardRef.current)))
      setError('This model is too large to share as a link');
  };

  const views = card.views;
  const active = views[Math.min(tab, views.length - 1)];
  const ctx: RenderContext = {
    card,
    commit,
    rejected,
    busy,
    navigate: (viewId) => {
      const i = views.findIndex((v) => v.viewId === viewId);
      if (i >= 0) setTab(i);
    },
    ...(backend.openLink ? { openLink: (url: string) => void backend.openLink!(url) } : {}),
  };
  return (
    <main className={`card${embedded ? ' embedded' : ''}`} aria-busy={busy}>
      <CardHeader
        title={active?.title ?? card.modelId}
        card={card}
        backend={backend}
        busy={busy}
        embedded={embedded}
        freshness={freshness}
        onShare={() => void openInBrowser()}
      />
      <CompositionLine card={card} />
      <FlagList flags={card.flags} />
      {error && (
        <p className="callout error" role="alert">
          {error}
        </p>
      )}
      <ViewTabs views={views} tab={tab} setTab={setTab} ctx={ctx} />
    </main>
  );
}

/** Tabs over the top-level views (when there are several) and the active one's components. */
function ViewTabs({
  views,
  tab,
  setTab,
  ctx,
}: {
  views: CardPayload['views'];
  tab: number;
  setTab: (tab: number) => void;
  ctx: RenderContext;
}) {
  const idBase = useId();
  const active = views[Math.min(tab, views.length - 1)];
  const tabbed = views.length > 1;
  setViewNumbers(active); // before its components format a number
  return (
    <>
      {tabbed && (
        <TabStrip
          labels={views.map((v) => v.title ?? v.viewId)}
          active={tab}
          onSelect={setTab}
          idBase={idBase}
        />
      )}
      {active && (
        <div
          role={tabbed ? 'tabpanel' : undefined}
          id={`${idBase}-panel-${tab}`}
          aria-labelledby={tabbed ? `${idBase}-tab-${tab}` : undefined}
        >
          <Components list={active.components} ctx={ctx} layout={active.layout} columns={active.columns} />
        </div>
      )}
    </>
  );
}

/** Live, or stale since the last good read (the card keeps showing what it read then). */
function FreshnessBadge({ freshness }: { freshness: Freshness }) {
  const { status, readAt } = freshness;
  const since = readAt === undefined ? '' : ` (as of ${new Date(readAt).toLocaleTimeString()})`;
  const text = status === 'live' ? 'Live' : status === 'stale' ? `Not up to date${since}` : 'Checking…';
  return (
    <span
      className={`badge fresh-${status}`}
      role="status"
      aria-label="Model updates"
      data-freshness={status}
    >
      {text}
    </span>
  );
}
