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
import type { CardPayload } from './model';
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

/** The latest card payload, for React to subscribe to. */
function payloadStore() {
  let value: { card: CardPayload; seq: number } | undefined;
  const listeners = new Set<() => void>();
  return {
    set: (card: CardPayload): void => {
      value = { card, seq: (value?.seq ?? 0) + 1 };
      for (const l of listeners) l();
    },
    subscribe: (l: () => void): (() => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    get: () => value,
  };
}

function Root({ store, backend }: { store: ReturnType<typeof payloadStore>; backend: Backend }) {
  const current = useSyncExternalStore(store.subscribe, store.get);
  if (!current)
    return (
      <p className="waiting" role="status">
        Waiting for the model…
      </p>
    );
  return <Card key={current.seq} initial={current.card} backend={backend} />;
}

async function main(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
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
  app.ontoolresult = (result) => {
    const card = result._meta?.['valem/card'];
    if (card && typeof card === 'object') store.set(card as CardPayload);
  };
  app.onhostcontextchanged = (ctx) => {
    if (ctx.theme) setTheme(ctx.theme);
  };
  setTheme(undefined);
  await app.connect();
  setTheme(app.getHostContext()?.theme);
  const backend = hostBackend(app);
  root.render(
    <StrictMode>
      <Root store={store} backend={backend} />
    </StrictMode>,
  );
}

void main();
