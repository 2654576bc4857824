// The card in a real browser: headless Debian Chromium driven by playwright-core loads a small host
// page (web/test-host) whose ext-apps AppBridge connects the built card to the real MCP server over
// Streamable HTTP. Skipped, with the reason in its name, when no Chromium is installed.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { build } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { registerShareRoutes } from '../../src/http/share-routes.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { shareLinkBuilder } from '../../src/service/share-links.js';
import { CARD_HTML_PATH } from '../../src/mcp/card-tools.js';
import { serveHttp, type RunningHttpMcp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { carLoan } from './helpers.js';

const root = join(import.meta.dirname, '../..');
/** Screenshots land here (git-ignored). */
const ARTEFACTS = join(root, 'artefacts/card');
/** The slice of the browser's globals the evaluated functions read (no DOM lib in this tsconfig). */
interface BrowserDoc {
  document: { documentElement: { dataset: Record<string, string | undefined> } };
}
/** Two top-level views and an item view: rows with an input each, a total, a bar chart. */
function multiView(): Record<string, unknown> {
  return {
    id: 'orders',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              price: { type: 'number' },
              qty: { type: 'integer', minimum: 0 },
            },
          },
        },
      },
    },
    defaultValues: [
      {
        path: '$',
        expr: '{"items": [{"name": "a", "price": 10, "qty": 1}, {"name": "b", "price": 5, "qty": 2}]}',
      },
    ],
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
            {
              id: 'total',
              type: 'statTile',
              label: 'Total',
              bind: '$.total',
              format: 'currency',
              currency: 'USD',
            },
          ],
        },
        {
          id: 'chart',
          label: 'Chart',
          components: [
            {
              id: 'bars',
              type: 'dataChart',
              label: 'Line totals',
              bind: '$.items',
              chartType: 'bar',
              chartX: 'name',
              chartSeries: [{ field: 'lineTotal', label: 'Line total' }],
            },
          ],
        },
      ],
    },
  };
}
const usd = (n: number): string =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);

describe.skipIf(!CHROMIUM)(browserSuite('model card in Chromium', 'test/card/browser.test.ts'), () => {
  let calc: CalcService;
  let mcp: RunningHttpMcp;
  let web: Server;
  let browser: Browser;
  let page: Page;
  let hostUrl = '';
  /** Requests made by the card's frame (it must make none). */
  const cardRequests: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CARD_HTML_PATH)) throw new Error(`${CARD_HTML_PATH} is missing: run npm run build:card`);
    const outDir = join(root, '.tmp/card-host');
    await build({
      configFile: false,
      root: join(root, 'web/test-host'),
      logLevel: 'silent',
      plugins: [viteSingleFile()],
      build: { outDir, emptyOutDir: true },
    });
    const hostHtml = readFileSync(join(outDir, 'index.html'), 'utf8');

    calc = new CalcService(new MemoryStore());
    mcp = await serveHttp({
      host: '127.0.0.1',
      port: 0,
      allowedOrigins: [],
      log: () => {},
      createServer: () =>
        createMcpServer({
          calc,
          guidanceTopics: BUILTIN_GUIDANCE_TOPICS,
          groups: new Set(['calc']),
          modeLine: 'browser test',
        }),
    });
    // the host page and /mcp on one origin: /mcp is passed through to the MCP server
    web = createServer((req, res) => {
      if (req.url?.startsWith('/mcp')) {
        const upstream = request(
          { host: '127.0.0.1', port: mcp.port, path: req.url, method: req.method, headers: req.headers },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        req.pipe(upstream);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' }).end(hostHtml);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const port = (web.address() as AddressInfo).port;
    hostUrl = `http://127.0.0.1:${port}/?mcp=${encodeURIComponent(`http://127.0.0.1:${port}/mcp`)}`;

    browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ locale: 'en-US', viewport: { width: 800, height: 1000 } });
    page.on('request', (r) => {
      if (r.frame() !== page.mainFrame()) cardRequests.push(r.url());
    });
    await page.goto(hostUrl);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    mkdirSync(ARTEFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => web?.close(resolve));
    await mcp?.close();
  });

  const open = async (tool: string, args: Record<string, unknown>): Promise<Frame> => {
    await page.evaluate(
      ([t, a]) =>
        (globalThis as unknown as { host: { open(t: string, a: unknown): Promise<unknown> } }).host.open(
          t,
          a,
        ),
      [tool, args] as const,
    );
    const handle = await page.waitForSelector('iframe[title="Model card"]');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector('main.card');
    return frame;
  };
  const hostRecord = () =>
    page.evaluate(() => {
      const h = (globalThis as unknown as { host: { contexts: unknown[]; displayModes: string[] } }).host;
      return { contexts: h.contexts, displayModes: h.displayModes };
    });
  const payment = (frame: Frame) => frame.locator('[data-testid="value-payment"]');
  /** Types `value` into the Deposit field and commits it with Enter; the field, for further checks. */
  const enterDeposit = async (frame: Frame | Page, value: string) => {
    const deposit = frame.getByLabel('Deposit', { exact: true });
    await deposit.fill(value);
    await deposit.press('Enter');
    return deposit;
  };

  it('renders the car-loan example, recomputes the payment after an edit and tells the model context', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await expect.poll(() => payment(frame).textContent()).toBe(usd(480.78));
    await enterDeposit(frame, '10000');
    // what the server computes for the same inputs
    const expected = (await calc.dryRun(carLoan(), { '$.deposit': 10000 })).monthlyPayment as number;
    expect(expected).not.toBe(480.78);
    await expect.poll(() => payment(frame).textContent()).toBe(usd(expected));
    await expect
      .poll(async () => JSON.stringify((await hostRecord()).contexts.at(-1) ?? null))
      .toContain('"$.deposit":10000');
    const last = (await hostRecord()).contexts.at(-1) as {
      structuredContent: { outputs: Record<string, number> };
    };
    expect(last.structuredContent.outputs['$.monthlyPayment']).toBe(expected);
  });

  it('shows a refused edit as rejected and keeps the last good result', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await expect.poll(() => payment(frame).textContent()).toBe(usd(480.78));
    const deposit = await enterDeposit(frame, '99999');
    const alert = frame.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => alert.textContent()).toContain('The deposit cannot exceed the vehicle price');
    expect(await deposit.getAttribute('aria-invalid')).toBe('true');
    expect(await payment(frame).textContent()).toBe(usd(480.78));
  });

  it('shows an input render_model rejected as rejected, with the default in effect', async () => {
    const frame = await open('render_model', { spec: carLoan(), inputs: { '$.deposit': 50000 } });
    const alert = frame.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => alert.textContent()).toContain('Rejected');
    expect(await frame.getByLabel('Deposit', { exact: true }).inputValue()).toBe('50000');
    expect(await payment(frame).textContent()).toBe(usd(480.78));
  });

  it('answers "why is this number?" on hover with the formula and its inputs', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await frame.locator('[data-component="payment"] .computed').hover();
    const tip = frame.getByRole('tooltip');
    await expect.poll(() => tip.textContent()).toContain('Why is this number?');
    const text = (await tip.textContent())!;
    expect(text).toContain('$payment(amountFinanced, annualRatePercent / 1200, payments)');
    expect(text).toContain('Amount financed = 20,000');
    expect(text).toContain('Annual rate (%) = 7.2');
  });

  it('saves light and dark screenshots, following the host theme', async () => {
    const frame = await open('render_model', {
      spec: carLoan(),
      inputs: { '$.annualRatePercent': 30, '$.years': 10 },
    });
    await frame.locator('[data-flag="long-expensive-loan"]').waitFor();
    expect(
      await frame.evaluate(
        () => (globalThis as unknown as BrowserDoc).document.documentElement.dataset.theme,
      ),
    ).toBe('light');
    await page.screenshot({ path: join(ARTEFACTS, 'car-loan-light.png'), fullPage: true });
    await page.evaluate(() =>
      (globalThis as unknown as { host: { setTheme(t: string): Promise<void> } }).host.setTheme('dark'),
    );
    await expect
      .poll(() =>
        frame.evaluate(() => (globalThis as unknown as BrowserDoc).document.documentElement.dataset.theme),
      )
      .toBe('dark');
    await page.screenshot({ path: join(ARTEFACTS, 'car-loan-dark.png'), fullPage: true });
    await page.evaluate(() =>
      (globalThis as unknown as { host: { setTheme(t: string): Promise<void> } }).host.setTheme('light'),
    );
    expect(existsSync(join(ARTEFACTS, 'car-loan-dark.png'))).toBe(true);
  });

  it('asks the host for full screen when it offers it', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await frame.getByRole('button', { name: 'Full screen' }).click();
    await expect.poll(async () => (await hostRecord()).displayModes).toContain('fullscreen');
    await expect.poll(() => frame.getByRole('button', { name: 'Exit full screen' }).count()).toBe(1);
  });

  it('edits a stored model: the change is a mutation get_state sees', async () => {
    await calc.createModel(carLoan());
    const frame = await open('show_model', { id: 'car-loan-calculator' });
    await expect.poll(() => payment(frame).textContent()).toBe(usd(480.78));
    await enterDeposit(frame, '7000');
    await expect
      .poll(async () => (await calc.getState('car-loan-calculator')) as Record<string, unknown>)
      .toMatchObject({
        deposit: 7000,
        amountFinanced: 17000,
      });
    const expected = (await calc.getField('car-loan-calculator', '$.monthlyPayment')) as number;
    await expect.poll(() => payment(frame).textContent()).toBe(usd(expected));
    expect((await calc.getAudit('car-loan-calculator'))[0]!.mutations).toEqual({ '$.deposit': 7000 });
  });

  it('gives several views tabs (an item view is not one), draws charts and section rows', async () => {
    const frame = await open('render_model', { spec: multiView() });
    const tabs = frame.getByRole('tab');
    await expect.poll(() => tabs.allTextContents()).toEqual(['Order', 'Chart']);
    expect(await frame.getByRole('tab', { name: 'Order' }).getAttribute('aria-selected')).toBe('true');
    // rows of the section list, each with its own editable quantity
    await expect.poll(() => frame.locator('.section-row').count()).toBe(2);
    await expect.poll(() => frame.locator('[data-testid="value-total"]').textContent()).toBe(usd(20));
    const qty = frame.locator('.section-row').nth(1).getByLabel('Qty');
    await qty.fill('4');
    await qty.press('Enter');
    await expect.poll(() => frame.locator('[data-testid="value-total"]').textContent()).toBe(usd(30));
    // keyboard: arrow to the next tab, which draws a recharts chart
    await frame.getByRole('tab', { name: 'Order' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => frame.getByRole('tab', { name: 'Chart' }).getAttribute('aria-selected'))
      .toBe('true');
    await frame.locator('.chart svg.recharts-surface').waitFor();
    expect(await frame.locator('.chart .recharts-bar-rectangle').count()).toBe(2);
  });

  it('renders the bundled insurance example (field sets, radios, selects) without errors', async () => {
    const spec = JSON.parse(readFileSync(join(root, 'examples/calc/insurance-quote.json'), 'utf8')) as object;
    const frame = await open('render_model', { spec });
    await frame.getByRole('radio').first().waitFor();
    expect(await frame.locator('fieldset legend').allTextContents()).toEqual(
      expect.arrayContaining(['Driver', 'Vehicle']),
    );
    expect(await frame.locator('[role="alert"]').count()).toBe(0);
  });

  it('made no network request from the card frame', () => {
    expect(cardRequests).toEqual([]);
  });

  it('renders the same card at a share link outside any chat, computing edits on the server', async () => {
    const app = Fastify();
    registerShareRoutes(app, { runner: new CardRunner() });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = shareLinkBuilder(base).shareUrl({ spec: carLoan(), inputs: { '$.deposit': 6000 } })!;
      const share = await browser.newPage({ locale: 'en-US' });
      const origins = new Set<string>();
      share.on('request', (r) => origins.add(new URL(r.url()).origin));
      await share.goto(url);
      const expected = (await calc.dryRun(carLoan(), { '$.deposit': 6000 })).monthlyPayment as number;
      await expect
        .poll(() => share.locator('[data-testid="value-payment"]').textContent())
        .toBe(usd(expected));
      await enterDeposit(share, '2000');
      const after = (await calc.dryRun(carLoan(), { '$.deposit': 2000 })).monthlyPayment as number;
      await expect.poll(() => share.locator('[data-testid="value-payment"]').textContent()).toBe(usd(after));
      expect([...origins]).toEqual([base]);
      await share.close();
    } finally {
      await app.close();
    }
  });
});
