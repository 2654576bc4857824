/**
 * The approve page of browser pairing (GET /sandbox/approve): a person checks or types the short
 * code their agent showed them and approves. Opened from the agent's link, the code is filled in
 * (and taken out of the address bar) and the page asks to compare it; opened bare, it asks for it.
 * One inline script, allowed by its hash in the page's CSP; styles follow the card's palette.
 */
import { createHash } from 'node:crypto';

const APPROVE_SCRIPT = `
const form = document.getElementById('approve');
const input = document.getElementById('code');
const status = document.getElementById('status');
const lead = document.getElementById('lead');
const m = /code=([A-Za-z-]+)/.exec(location.hash);
if (m) {
  input.value = m[1];
  lead.textContent = 'Your agent asked to work with you on live models. Approve only if this code is the one your agent showed you.';
  history.replaceState(null, '', location.pathname); // the code leaves the address bar and history
  fetch('/sandbox/pair/peek?code=' + encodeURIComponent(m[1])).then(async (r) => {
    if (r.ok) { const b = await r.json(); status.textContent = 'This code expires in ' + Math.ceil(b.expiresInSec / 60) + ' min.'; }
    else { status.textContent = 'This code is unknown or has expired.'; status.className = 'status error'; }
  });
} else input.focus();
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  status.className = 'status';
  status.textContent = 'Approving…';
  const r = await fetch('/sandbox/approve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userCode: input.value }) });
  const b = await r.json().catch(() => ({}));
  if (!r.ok) { status.textContent = b.detail || 'Approval failed'; status.className = 'status error'; return; }
  sessionStorage.setItem('modelworks.sandboxToken', b.browserToken);
  status.textContent = 'Paired. Opening the sandbox…';
  location.assign('/sandbox');
});
`;

const APPROVE_STYLE = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1d2230; --muted: #5f6778; --border: #d6dae3;
  --surface: #f5f7fb; --accent: #3a5bd9; --error: #b3261e;
  font: 15px/1.5 system-ui, -apple-system, 'Segoe UI', sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #161a22; --fg: #e6e9f0; --muted: #9aa3b5;
  --border: #343b4a; --surface: #1f2430; --accent: #8aa4ff; --error: #ff8a80; } }
body { margin: 0; background: var(--bg); color: var(--fg); }
main { max-width: 26rem; margin: 10vh auto; padding: 28px 28px 20px; border: 1px solid var(--border);
  border-radius: 14px; background: var(--surface); box-shadow: 0 6px 24px rgb(0 0 0 / 8%); }
.brand { margin: 0 0 4px; color: var(--muted); font-size: 12px; letter-spacing: .06em; text-transform: uppercase; }
h1 { margin: 0 0 8px; font-size: 22px; }
#lead { margin: 0 0 18px; color: var(--muted); }
label { display: block; font-weight: 600; margin-bottom: 6px; }
input { display: block; width: 100%; box-sizing: border-box; padding: 10px 12px; border: 1px solid var(--border);
  border-radius: 8px; background: var(--bg); color: var(--fg); text-align: center;
  font: 600 26px/1.2 ui-monospace, 'SF Mono', Menlo, monospace; letter-spacing: .18em; text-transform: uppercase; }
input:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
button { margin-top: 14px; width: 100%; padding: 10px; border: 0; border-radius: 8px; background: var(--accent);
  color: #fff; font: 600 16px system-ui, sans-serif; cursor: pointer; }
button:hover { filter: brightness(1.08); }
.status { min-height: 1.5em; margin: 12px 0 0; color: var(--muted); }
.status.error { color: var(--error); }
.note { margin: 16px 0 0; font-size: 13px; color: var(--muted); }
`;

export const APPROVE_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve an agent — Modelworks</title>
<style>${APPROVE_STYLE}</style></head>
<body><main>
<p class="brand">Modelworks</p>
<h1>Approve an agent</h1>
<p id="lead">Type the code your agent showed you (like BCDF-GHJK), then approve.</p>
<form id="approve">
<label for="code">Code from your agent</label>
<input id="code" name="code" autocomplete="off" autocapitalize="characters" spellcheck="false" required placeholder="XXXX-XXXX">
<button type="submit">Approve</button>
</form>
<p id="status" class="status" role="status" aria-live="polite"></p>
<p class="note">Approving lets that agent and this browser share models in a private sandbox for this session.</p>
</main><script>${APPROVE_SCRIPT}</script></body></html>`;

/** CSP hash of the inline script: the page runs that script and nothing else. */
export const APPROVE_SCRIPT_HASH = `sha256-${createHash('sha256').update(APPROVE_SCRIPT).digest('base64')}`;
