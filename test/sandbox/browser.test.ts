// The sandbox page in a real browser: headless Debian Chromium (playwright-core) pairs through the
// real approve page of the real app (buildApp over a memory-store CalcService, an API key, a
// PairingService), lands on /sandbox with its session token, and works on the session's models while
// the "agent" (REST with the API key) changes them. Skipped, with the reason in its name, when no
// Chromium is installed.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { buildApp } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { PairingService } from '../../src/service/pairing.js';
import { SANDBOX_HTML_PATH, sandboxHtml } from '../../src/service/web-assets.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { carLoan } from '../card/helpers.js';

/** Screenshots land in a temporary folder, printed for a person to open. */
const ARTEFACTS = mkdtempSync(join(tmpdir(), 'modelworks-sandbox-screens-'));
const KEY = 'server-key-for-sandbox-tests';

const usd = (n: number): string =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);

describe.skipIf(!CHROMIUM)(browserSuite('sandbox page in Chromium', 'test/sandbox/browser.test.ts'), () => {
  let calc: CalcService;
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The paired session: its namespace, and the token the approve page gave the browser. */
  let ns = '';
  let browserToken = '';
  /** The agent's own session token (its poll's answer). */
  let agentToken = '';
  /** `demo` in the session's namespace. */
  const id = (name: string): string => `${ns}__${name}`;
  /** Every request the page made, with the session header it carried. */
  const requests: { url: string; token: string | undefined }[] = [];
  /** The WebSocket URLs the page opened. */
  const sockets: string[] = [];
  /** Console errors (a CSP refusal would show here). */
  const consoleErrors: string[] = [];

  const rest = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text === '' ? null : JSON.parse(text);
  };
  /** A new tab holding `token` in its sessionStorage, as the approve page leaves it. */
  const tabWithToken = async (token: string): Promise<Page> => {
    const tab = await context.newPage();
    await tab.addInitScript(
      ([key, value]) =>
        (
          globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }
        ).sessionStorage.setItem(key, value),
      ['modelworks.sandboxToken', token] as const,
    );
    return tab;
  };
  const demo = (id: string): Record<string, unknown> => ({ ...carLoan(), id });
  /** Two top-level views and an item view (rows with an editable quantity). */
  const orders = (id: string): Record<string, unknown> => ({
    id,
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { price: { type: 'number' }, qty: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    defaultValues: [{ path: '$', expr: '{"items": [{"price": 10, "qty": 1}, {"price": 5, "qty": 2}]}' }],
    derivations: [
      { path: '$.items[*].lineTotal', expr: '$parent.price * $parent.qty' },
      { path: '$.total', expr: '$sum(items.lineTotal)' },
    ],
    viewDefinition: {
      defaultView: 'order',
      views: [
        {
          id: 'line',
          components: [{ id: 'qty', type: 'numericField', label: 'Qty', bind: '$.items[*].qty' }],
        },
        {
          id: 'order',
          label: 'Order',
          components: [
            { id: 'lines', type: 'sectionList', label: 'Lines', bind: '$.items', itemView: 'line' },
          ],
        },
        {
          id: 'summary',
          label: 'Summary',
          components: [
            {
              id: 'grand',
              type: 'statTile',
              label: 'Total',
              bind: '$.total',
              format: 'currency',
              currency: 'USD',
            },
          ],
        },
      ],
    },
  });

  beforeAll(async () => {
    if (!existsSync(SANDBOX_HTML_PATH))
      throw new Error(`${SANDBOX_HTML_PATH} is missing: run npm run build:sandbox`);
    calc = new CalcService(new MemoryStore());
    app = await buildApp({ calc, apiKey: KEY, sandbox: { pairing: new PairingService({}), sandboxHtml } });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox'] });
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
    // an action waiting for an element fails in 10 s, naming it, before the test's own 30 s run out
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('request', (r) => requests.push({ url: r.url(), token: r.headers()['x-session-token'] }));
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    console.log(`sandbox screenshots: ${ARTEFACTS}`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('says how to pair, and nothing else, without a session token', async () => {
    const bare = await browser.newPage();
    await bare.goto(`${base}/sandbox`);
    await expect
      .poll(() => bare.getByRole('status').textContent())
      .toBe('Not paired: open the link your agent gave you');
    expect(await bare.getByRole('navigation').count()).toBe(0);
    expect(await bare.locator('body').innerText()).toBe('Not paired: open the link your agent gave you');
    await bare.close();
  });

  it('pairs through the approve page and lands on the sandbox with the session token', async () => {
    const started = (await rest('POST', '/sandbox/pair', {})) as {
      verificationUriComplete: string;
      pairCode: string;
      deviceSecret: string;
    };
    // opened bare, the approve page asks for the code; from the agent's link it asks to compare it
    const bare = await context.newPage();
    await bare.goto(`${base}/sandbox/approve`);
    expect(await bare.locator('#lead').textContent()).toMatch(/^Type the code your agent showed you/);
    await bare.screenshot({ path: join(ARTEFACTS, 'approve-page-bare.png'), fullPage: true });
    await bare.close();
    await page.goto(started.verificationUriComplete.replace(/^https?:\/\/[^/]+/, base));
    await expect
      .poll(() => page.locator('#lead').textContent())
      .toMatch(/Approve only if this code is the one/);
    expect(await page.getByLabel('Code from your agent').inputValue()).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    // styled: the button is the accent colour, not the browser's grey default
    const button = page.getByRole('button', { name: 'Approve' });
    const background = await button.evaluate(
      (b) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
        ).getComputedStyle(b).backgroundColor,
    );
    expect(background).toBe('rgb(58, 91, 217)');
    await page.screenshot({ path: join(ARTEFACTS, 'approve-page.png'), fullPage: true });
    await button.click();
    await page.waitForURL(`${base}/sandbox`);
    browserToken = (await page.evaluate(() =>
      (
        globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }
      ).sessionStorage.getItem('modelworks.sandboxToken'),
    ))!;
    expect(browserToken).toMatch(/.{20,}/);
    // the agent's side of the flow learns the namespace its models live in
    const paired = (await rest('POST', '/sandbox/pair/token', {
      pairCode: started.pairCode,
      deviceSecret: started.deviceSecret,
    })) as { namespaceId: string; sessionToken: string };
    ns = paired.namespaceId;
    agentToken = paired.sessionToken;
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Models' }).textContent())
      .toContain('No models yet');
  });

  it('lists the session models without their namespace, and shows the one the agent creates', async () => {
    const list = page.getByRole('navigation', { name: 'Models' });
    await expect.poll(() => list.textContent()).toContain('No models yet');
    // another session's model stays out of the list
    await rest('POST', '/models', demo('elsewhere__demo'));
    await rest('POST', '/models', demo(id('demo')));
    await expect
      .poll(() => list.getByRole('button').allTextContents(), { timeout: 10_000 })
      .toEqual(['demo']);
    expect(await page.getByText(`session ${ns}`).count()).toBe(1);
    // the first model is selected and rendered through the card's components
    await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toBe(usd(480.78));
    await expect.poll(() => page.getByRole('status', { name: 'Updates' }).textContent()).toBe('Live');
  });

  it('saves an edit in the view as a mutation the server keeps', async () => {
    const deposit = page.getByLabel('Deposit', { exact: true });
    await deposit.fill('7000');
    await deposit.press('Enter');
    await expect
      .poll(async () => (await rest('GET', `/models/${id('demo')}/state`)) as Record<string, unknown>)
      .toMatchObject({ deposit: 7000, amountFinanced: 17000 });
    const expected = (await calc.getField(id('demo'), '$.monthlyPayment')) as number;
    expect(expected).not.toBe(480.78);
    await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toBe(usd(expected));
    const audit = (await calc.getAudit(id('demo')))[0]!;
    expect(audit.mutations).toEqual({ '$.deposit': 7000 });
  });

  it('shows a refusal once, next to the field with the real value, until the next good edit', async () => {
    const before = await rest('GET', `/models/${id('demo')}/state`);
    const deposit = page.getByLabel('Deposit', { exact: true });
    await deposit.fill('99999');
    await deposit.press('Enter');
    const alerts = page.locator('.model [role="alert"]');
    await expect.poll(() => alerts.allTextContents()).toHaveLength(1);
    const text = (await page.locator('[data-component="deposit"] [role="alert"]').textContent())!;
    expect(text).toMatch(/^\$99,999\.00 was refused: /);
    expect(text).toContain('The deposit cannot exceed the vehicle price');
    expect(text).not.toMatch(/Schema violation/i);
    expect(await rest('GET', `/models/${id('demo')}/state`)).toEqual(before);
    await deposit.blur();
    expect(await deposit.inputValue()).toBe('7,000'); // the model's value, not the refused one
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-refusal.png'), fullPage: true });
    // the next good edit clears it; until the page reads the model back (held here), the field keeps
    // what the person typed, not the value before the edit
    let releaseView = (): void => {};
    const viewHeld = new Promise<void>((resolve) => (releaseView = resolve));
    const held: Promise<void>[] = [];
    const viewUrl = (url: URL): boolean => url.pathname.endsWith(`/models/${id('demo')}/view`);
    await page.route(viewUrl, (route) => {
      const passed = viewHeld.then(() => route.continue());
      held.push(passed);
      return passed;
    });
    try {
      await deposit.fill('6,500');
      await deposit.press('Enter');
      await expect.poll(() => alerts.count()).toBe(0);
      await expect.poll(() => held.length).toBeGreaterThan(0);
      expect(await deposit.inputValue()).toBe('6,500');
    } finally {
      releaseView();
      await Promise.all(held);
      await page.unroute(viewUrl);
    }
    await expect.poll(() => deposit.inputValue()).toBe('6,500');
    await expect
      .poll(async () => (await rest('GET', `/models/${id('demo')}/state`)) as Record<string, unknown>)
      .toMatchObject({ deposit: 6500 });
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.deposit': 7000 });
  });

  it('drops a refusal when the agent writes a newer value to its field, and tells who wrote what', async () => {
    const deposit = page.getByLabel('Deposit', { exact: true });
    // the last test's write (7,000) reaches the page first: arriving after the refusal below, it
    // would retire the refusal as superseded before this test saw it
    await expect.poll(() => deposit.inputValue(), { timeout: 10_000 }).toBe('7,000');
    await deposit.fill('99999');
    await deposit.press('Enter');
    const refusal = page.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => refusal.count(), { timeout: 10_000 }).toBe(1);
    // the agent, through its paired session, sets the deposit: the old refusal is about nothing now
    const res = await fetch(`${base}/models/${id('demo')}/mutations`, {
      method: 'POST',
      headers: { 'x-session-token': agentToken, 'content-type': 'application/json' },
      body: JSON.stringify({ '$.deposit': 5000 }),
    });
    expect(res.status).toBe(200);
    await expect.poll(() => deposit.inputValue(), { timeout: 10_000 }).toBe('5,000');
    await expect.poll(() => refusal.count()).toBe(0);
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-refusal-superseded.png'), fullPage: true });
    // the audit timeline tells the agent's write from the person's
    await page.getByRole('tab', { name: 'Audit' }).click();
    const badges = page.getByRole('list', { name: 'Audit timeline' }).locator(':scope > li .badge');
    await expect.poll(() => badges.first().textContent()).toBe('Agent (MCP)');
    expect(await badges.allTextContents()).toContain('You (sandbox or card)');
    expect(await badges.allTextContents()).not.toContain('client');
    await page.getByRole('tab', { name: 'State' }).click();
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.deposit': 7000 });
  });

  it('keeps a refusal when the state on hand was read before its field last changed', async () => {
    const deposit = page.getByLabel('Deposit', { exact: true });
    const price = page.getByLabel('Vehicle price', { exact: true });
    await expect.poll(() => deposit.inputValue(), { timeout: 10_000 }).toBe('7,000');
    const current = (await rest('GET', `/models/${id('demo')}/state`)) as Record<string, unknown>;
    const originalPrice = current.vehiclePrice as number;
    // The page reads a model in several requests; one read can straddle a write, the field showing
    // the new deposit while the state still holds the old one. Stand in for that read: the next
    // state requests answer with the deposit before the last write.
    let staleReads = 0;
    const stateUrl = (url: URL): boolean => url.pathname.endsWith(`/models/${id('demo')}/state`);
    await page.route(stateUrl, async (route) => {
      staleReads++;
      await route.fulfill({ json: { ...current, deposit: 6500 } });
    });
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.vehiclePrice': originalPrice + 1000 });
    await expect.poll(() => staleReads, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect
      .poll(() => price.inputValue(), { timeout: 10_000 })
      .toBe(
        usd(originalPrice + 1000)
          .slice(1)
          .replace(/\.00$/, ''),
      );
    expect(await deposit.inputValue()).toBe('7,000');
    await page.unroute(stateUrl);
    // the person's refused edit, then a write to another field: the refusal is still about 7,000
    await deposit.fill('99999');
    await deposit.press('Enter');
    const refusal = page.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => refusal.count(), { timeout: 10_000 }).toBe(1);
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.vehiclePrice': originalPrice });
    await expect
      .poll(() => price.inputValue(), { timeout: 10_000 })
      .toBe(usd(originalPrice).slice(1).replace(/\.00$/, ''));
    expect(await refusal.count()).toBe(1);
    await deposit.fill('7,500'); // a good edit clears it
    await deposit.press('Enter');
    await expect.poll(() => refusal.count(), { timeout: 10_000 }).toBe(0);
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.deposit': 7000 });
    await expect.poll(() => deposit.inputValue(), { timeout: 10_000 }).toBe('7,000');
  });

  it('shows the flag rules failing now, and drops one when it holds again', async () => {
    const flag = page.locator('[data-flag="long-expensive-loan"]');
    expect(await flag.count()).toBe(0);
    // a long loan at a high rate: the cost of credit passes a quarter of the amount financed
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.years': 10, '$.annualRatePercent': 15 });
    await expect.poll(() => flag.textContent()).toMatch(/⚠/);
    expect(await rest('GET', `/models/${id('demo')}/flags`)).toEqual([
      expect.objectContaining({ constraintId: 'long-expensive-loan', policy: 'flag' }),
    ]);
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-flag.png'), fullPage: true });
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.years': 4, '$.annualRatePercent': 7.2 });
    await expect.poll(() => flag.count()).toBe(0);
    expect(await rest('GET', `/models/${id('demo')}/flags`)).toEqual([]);
  });

  it('follows a change the agent makes (WebSocket), in the view, the state and the audit timeline', async () => {
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.deposit': 3000 });
    const expected = (await calc.getField(id('demo'), '$.monthlyPayment')) as number;
    await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toBe(usd(expected));
    await page.getByRole('tab', { name: 'State' }).click();
    await expect.poll(() => page.getByLabel('Merged state').textContent()).toContain('"deposit": 3000');
    await page.getByRole('tab', { name: 'Audit' }).click();
    const timeline = page.getByRole('list', { name: 'Audit timeline' });
    // every edit so far (the person's, the agent's) and this one
    const edits = (await calc.getAudit(id('demo'), { limit: 200 })).length;
    expect(edits).toBeGreaterThanOrEqual(4);
    await expect.poll(() => timeline.locator(':scope > li').count()).toBe(edits);
    expect(await timeline.locator(':scope > li').first().textContent()).toContain('$.deposit = 3000');
  });

  it('shows the spec and the dependency graph', async () => {
    await page.getByRole('tab', { name: 'Spec' }).click();
    await expect.poll(() => page.getByLabel('Model spec').textContent()).toContain(`"id": "${id('demo')}"`);
    await page.getByRole('tab', { name: 'Graph' }).click();
    const graph = page.getByRole('table', { name: 'Dependency graph' });
    await expect.poll(() => graph.textContent()).toContain('$.monthlyPayment');
    expect(await page.getByRole('list', { name: 'Evaluation levels' }).locator('li').count()).toBeGreaterThan(
      1,
    );
    // the page stays as wide as the window, at a narrow one too
    const overflow = () =>
      page.evaluate(() => {
        const el = (
          globalThis as unknown as {
            document: { documentElement: { scrollWidth: number; clientWidth: number } };
          }
        ).document.documentElement;
        return el.scrollWidth - el.clientWidth;
      });
    expect(await overflow()).toBe(0);
    await page.setViewportSize({ width: 480, height: 900 });
    expect(await overflow()).toBe(0);
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-graph-narrow.png'), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });
  });

  it('switches to a second model and saves light and dark screenshots', async () => {
    await rest('POST', '/models', demo(id('second')));
    const list = page.getByRole('navigation', { name: 'Models' });
    await expect
      .poll(() => list.getByRole('button').allTextContents(), { timeout: 10_000 })
      .toEqual(['demo', 'second']);
    await list.getByRole('button', { name: 'second' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 2, name: 'second' }).count()).toBe(1);
    await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toBe(usd(480.78));
    await list.getByRole('button', { name: 'demo' }).click();
    await page.getByRole('tab', { name: 'Audit' }).click();
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-light.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } })
              .document.documentElement.dataset.theme,
        ),
      )
      .toBe('dark');
    await page.screenshot({ path: join(ARTEFACTS, 'sandbox-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(existsSync(join(ARTEFACTS, 'sandbox-dark.png'))).toBe(true);
  });

  it('gives several top-level views tabs (an item view is not one) and reads the chosen one', async () => {
    await rest('POST', '/models', orders(id('orders')));
    const list = page.getByRole('navigation', { name: 'Models' });
    await list.getByRole('button', { name: 'orders' }).click({ timeout: 10_000 });
    const viewTabs = page.getByRole('region', { name: 'View' }).getByRole('tab');
    await expect.poll(() => viewTabs.allTextContents()).toEqual(['Order', 'Summary']);
    await expect.poll(() => page.locator('.section-row').count()).toBe(2);
    const qty = page.locator('.section-row').nth(1).getByLabel('Qty');
    await qty.fill('4');
    await qty.press('Enter');
    await expect
      .poll(async () => ((await rest('GET', `/models/${id('orders')}/state`)) as { total: number }).total)
      .toBe(30);
    await page.getByRole('region', { name: 'View' }).getByRole('tab', { name: 'Summary' }).click();
    await expect.poll(() => page.locator('[data-testid="value-grand"]').textContent()).toBe(usd(30));
    expect(requests.some((r) => r.url.endsWith(`/models/${id('orders')}/view/summary`))).toBe(true);
  });

  it('falls back to polling when the change feed cannot open', async () => {
    const other = await tabWithToken(browserToken);
    await other.routeWebSocket(/\/subscribe/, (ws) => ws.close());
    await other.goto(`${base}/sandbox`);
    await other.getByRole('navigation', { name: 'Models' }).getByRole('button', { name: 'demo' }).click();
    await expect
      .poll(() => other.getByRole('status', { name: 'Updates' }).textContent())
      .toBe('Polling every 2 s');
    await rest('POST', `/models/${id('demo')}/mutations`, { '$.deposit': 1000 });
    const expected = (await calc.getField(id('demo'), '$.monthlyPayment')) as number;
    await expect
      .poll(() => other.locator('[data-testid="value-payment"]').textContent(), { timeout: 10_000 })
      .toBe(usd(expected));
    await other.close();
  });

  it('says the browser is no longer paired when the server refuses the token', async () => {
    const other = await tabWithToken('a-token-no-pairing-gave');
    await other.goto(`${base}/sandbox`);
    await expect
      .poll(() => other.getByRole('alert').textContent())
      .toBe('This browser is no longer paired: open the link your agent gave you');
    await other.close();
  });

  it('talked to its own origin only, with the session token on every API call, and broke no CSP rule', () => {
    const origin = new URL(base).origin;
    const wsOrigin = origin.replace(/^http/, 'ws');
    expect(requests.length).toBeGreaterThan(5);
    for (const r of requests) expect([origin, wsOrigin]).toContain(new URL(r.url).origin);
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/models'));
    expect(api.length).toBeGreaterThan(5);
    for (const r of api) expect(r.token, r.url).toBe(browserToken);
    expect(sockets.length).toBeGreaterThan(0);
    for (const url of sockets) {
      expect(new URL(url).origin).toBe(wsOrigin);
      expect(new URL(url).searchParams.get('session')).toBe(browserToken);
    }
    expect(consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });
});
