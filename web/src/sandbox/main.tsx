/**
 * Entry point of the sandbox page (`/sandbox`). The approve page leaves the paired browser's session
 * token in sessionStorage; without it the page only says how to pair.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { sandboxApi, TOKEN_KEY } from './api';
import { Sandbox } from './sandbox';
import '../styles.css';
import './sandbox.css';

/** Light or dark as the system prefers, following changes while the page is open. */
function followSystemTheme(): void {
  const query = window.matchMedia?.('(prefers-color-scheme: dark)');
  const apply = (): void => {
    document.documentElement.dataset.theme = query?.matches ? 'dark' : 'light';
  };
  apply();
  query?.addEventListener('change', apply);
}

function readToken(): string | null {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null; // storage blocked: treat as not paired
  }
}

followSystemTheme();
const root = createRoot(document.getElementById('root')!);
const token = readToken();
root.render(
  <StrictMode>
    {token ? (
      <Sandbox api={sandboxApi(token)} />
    ) : (
      <main className="unpaired">
        <p role="status">Not paired: open the link your agent gave you</p>
      </main>
    )}
  </StrictMode>,
);
