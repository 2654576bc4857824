/**
 * Entry point. Inside a chat host the card is an MCP Apps view: it waits for the tool result that
 * carries `_meta["valem/card"]`, follows the host's theme and offers full screen when the host
 * does. On a share page the server has put the same payload in the page (no host around).
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { StrictMode, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { hostBackend, shareBackend, type Backend } from './backend';
import { Card } from './card';
import { setHostLocale } from './format';
import { startEmbed, type EmbedConfig } from './embed/frame';
import type { CardPayload } from './model';
import { Simulation } from './simulation';
import { isSimulationResult, type SimulationNotes, type SimulationResult } from './simulation-model';
import { Solve } from './solve';
import { isSolveResult, type SolveNotes, type SolveResult } from './solve-model';
import './styles.css';

interface SharePage {
  card: CardPayload;
  api: string;
  embed?: boolean;
}

function setTheme(theme: string | undefined): void {
  const dark = theme ? theme === 'dark' : window.matchMedia?.('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** What the card shows before and instead of a model. */
type Shown =
  | { kind: 'waiting' }
  | { kind: 'computing' }
  | { kind: 'failed'; message: string }
  | { kind: 'card'; card: CardPayload; seq: number }
  | { kind: 'simulation'; result: SimulationResult; notes: SimulationNotes }
  | { kind: 'solve'; result: SolveResult; notes: SolveNotes };

/** The card's current state, for React to subscribe to. */
function payloadStore() {
  let value: Shown = { kind: 'waiting' };
  let seq = 0;
  const listeners = new Set<() => void>();
  const set = (next: Shown): void => {
    value = next;
    for (const l of listeners) l();
  };
  return {
    set: (card: CardPayload): void => set({ kind: 'card', card, seq: ++seq }),
    simulation: (result: SimulationResult, notes: SimulationNotes): void =>
      set({ kind: 'simulation', result, notes }),
    solve: (result: SolveResult, notes: SolveNotes): void => set({ kind: 'solve', result, notes }),
    computing: (): void => set({ kind: 'computing' }),
    fail: (message: string): void => set({ kind: 'failed', message }),
    subscribe: (l: () => void): (() => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    get: () => value,
  };
}

/** The message of a failed tool result (the server's own words), or a plain fallback. */
function failureText(result: {
  structuredContent?: unknown;
  content?: { type: string; text?: string }[];
}): string {
  const s = (typeof result.structuredContent === 'object' ? result.structuredContent : undefined) as
    Record<string, unknown> | null | undefined;
  if (s && typeof s.message === 'string' && s.message) return s.message;
  if (s && typeof s.error === 'string' && s.error) return s.error;
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : '')).join(' ');
  return text.trim() || 'The server did not say why.';
}

function Root({
  store,
  backend,
}: {
  store: ReturnType<typeof payloadStore>;
  backend: { current?: Backend };
}) {
  const shown = useSyncExternalStore(store.subscribe, store.get);
  if (shown.kind === 'simulation') return <Simulation result={shown.result} notes={shown.notes} />;
  if (shown.kind === 'solve') return <Solve result={shown.result} notes={shown.notes} />;
  if (shown.kind === 'failed')
    return (
      <main className="card">
        <div className="callout error load-error" role="alert">
          <strong>The model could not be shown.</strong> {shown.message}
        </div>
      </main>
    );
  if (shown.kind !== 'card')
    return (
      <p className="waiting" role="status" aria-busy="true">
        {shown.kind === 'computing' ? 'Computing the model…' : 'Waiting for the model…'}
      </p>
    );
  if (!backend.current) return null; // unreachable: tool results come after the host's answer
  return <Card key={shown.seq} initial={shown.card} backend={backend.current} />;
}

async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  // the embed page (GET /embed): the card in a host page's frame, told what to show by the fragment
  const embed = (window as unknown as { __MODELWORKS_EMBED__?: EmbedConfig }).__MODELWORKS_EMBED__;
  if (embed) return startEmbed(root, embed);
  const share = (window as unknown as { __MODELWORKS_SHARE__?: SharePage }).__MODELWORKS_SHARE__;
  if (share) {
    setTheme(undefined);
    root.render(
      <StrictMode>
        <Card initial={share.card} backend={shareBackend(share.api)} embedded={share.embed === true} />
      </StrictMode>,
    );
    return;
  }
  const store = payloadStore();
  const app = new App({ name: 'modelworks-model-card', version: '1.0.0' }, {}, { autoResize: true });
  app.ontoolinput = () => store.computing();
  app.ontoolresult = (result) => {
    const card = result._meta?.['valem/card'];
    // a simulate result: the figures are its structured content, the card payload names its paths
    if (card && typeof card === 'object' && (card as { mode?: unknown }).mode === 'simulation') {
      if (isSimulationResult(result.structuredContent))
        store.simulation(result.structuredContent, card as SimulationNotes);
      else store.fail('The simulation result could not be read.');
    } else if (card && typeof card === 'object' && (card as { mode?: unknown }).mode === 'solve') {
      // a solve result: the inputs found are its structured content, the card payload names its paths
      if (isSolveResult(result.structuredContent)) store.solve(result.structuredContent, card as SolveNotes);
      else store.fail('The solve result could not be read.');
    } else if (card && typeof card === 'object') store.set(card as CardPayload);
    else if (result.isError) store.fail(failureText(result));
    else store.fail('The tool answered without a card to show.');
  };
  app.ontoolcancelled = () => store.fail('The tool call was cancelled.');
  app.onhostcontextchanged = (ctx) => {
    if (ctx.theme) setTheme(ctx.theme);
    if (ctx.locale) setHostLocale(ctx.locale);
  };
  setTheme(undefined);
  // shown at once (waiting) while the host answers; a card arrives only after it has
  const backend: { current?: Backend } = {};
  root.render(
    <StrictMode>
      <Root store={store} backend={backend} />
    </StrictMode>,
  );
  try {
    await app.connect();
  } catch (e) {
    store.fail(`The chat host did not answer (${e instanceof Error ? e.message : String(e)}).`);
    return;
  }
  backend.current = hostBackend(app);
  setTheme(app.getHostContext()?.theme);
  setHostLocale(app.getHostContext()?.locale);
}

void main();
