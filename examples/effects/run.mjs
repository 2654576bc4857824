// The approval example end to end: a webhook receiver on 127.0.0.1, `modelworks serve` with that
// origin allowed, then a quote approved over the REST API. Prints the status, the ticket the
// webhook answered with, and the audit records the effect runner wrote (source "foldback").
// Run from the repository root after `npm run build`: node examples/effects/run.mjs
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const cli = process.env.MODELWORKS_CLI ?? 'dist/cli/main.js';
const spec = JSON.parse(readFileSync(new URL('./approval-webhook.json', import.meta.url), 'utf8'));

// 1. the webhook: answers each approval with a ticket
let received = 0;
const webhook = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    received++;
    console.log(`webhook got ${req.method} ${req.url} ${body}`);
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ticket: `T-${received}` }));
  });
});
await new Promise((resolve) => webhook.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${webhook.address().port}`;
spec.constants.webhook = origin;

// 2. the server, allowed to call the webhook and nothing else
const server = spawn(process.execPath, [cli, 'serve', '--store', 'memory', '--port', '0'], {
  env: { ...process.env, MODELWORKS_EFFECT_EGRESS_ALLOWLIST: origin, MODELWORKS_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'pipe'],
});
const base = await new Promise((resolve, reject) => {
  let text = '';
  server.stderr.on('data', (chunk) => {
    text += chunk;
    const m = /serving (http:\/\/\S+) /.exec(text);
    if (m) resolve(m[1]);
  });
  server.once('exit', (code) => reject(new Error(`serve exited (${code}): ${text}`)));
});

const call = async (method, path, body) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
};

try {
  // 3. a quote, then its approval: the approval's cycle dispatches the effect
  await call('POST', '/models', spec);
  await call('POST', '/models/approval/mutations', {
    '$.quoteId': 'Q-7',
    '$.amount': 1200,
    '$.approver': 'sam',
  });
  const approved = await call('POST', '/models/approval/mutations', { '$.approved': true });
  console.log('dispatched:', JSON.stringify(approved.dispatchedEffects));

  // 4. the reply folds back asynchronously: wait until the status leaves in_flight
  let state;
  for (let i = 0; i < 50; i++) {
    state = await call('GET', '/models/approval/state');
    if (state.notifyStatus && state.notifyStatus.phase !== 'in_flight') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log('status:', JSON.stringify(state.notifyStatus));
  console.log('ticket:', state.ticket, 'webhook status:', state.webhookStatus);
  const audit = await call('GET', '/models/approval/audit');
  for (const r of audit.reverse().filter((r) => r.source === 'foldback'))
    console.log(`audit #${r.sequence} foldback:`, JSON.stringify(r.mutations));

  // 5. approving again with the same quote id sends nothing: the dedupe key was applied
  await call('POST', '/models/approval/mutations', { '$.approver': 'kim' });
  console.log('webhook calls:', received);
} finally {
  server.kill('SIGTERM');
  webhook.close();
}
