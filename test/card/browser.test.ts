// The card in a real browser: headless Debian Chromium driven by playwright-core loads a small host
// page (web/test-host) whose ext-apps AppBridge connects the built card to the real MCP server over
// Streamable HTTP. Skipped, with the reason in its name, when no Chromium is installed.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { registerShareRoutes } from '../../src/http/share-routes.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { shareLinkBuilder } from '../../src/service/share-links.js';
import { CARD_HTML_PATH } from '../../src/mcp/card-tools.js';
import type { CalcService } from '../../src/service/calc-service.js';
import { COMPONENT_CATALOG, COMPONENT_TYPES } from '../../src/calc/view-catalog.js';
import { startCardHost, type CardHost } from './card-host.js';
import { carLoan } from './helpers.js';
import { within } from '../helpers/time.js';

const root = join(import.meta.dirname, '../..');
/** Screenshots land in a temporary folder, printed for a person to open. */
const ARTEFACTS = mkdtempSync(join(tmpdir(), 'modelworks-card-screens-'));
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

/** One component of every catalogued type in one view (tabItem inside tabs; a sectionList needs an item view). */
function everyType(): Record<string, unknown> {
  const bindOf = (type: string): string => {
    if (type === 'checkboxField' || type === 'toggleField') return '$.flag';
    if (/numeric|currency|percent|slider|rating|Stepper/.test(type)) return '$.n';
    if (type === 'dataTable' || type === 'dataChart' || type === 'sparkline') return '$.rows';
    return '$.s';
  };
  const components = COMPONENT_TYPES.filter((t) => t !== 'tabItem').map((type) => {
    const c: Record<string, unknown> = { id: `c-${type}`, type, label: type };
    const group = COMPONENT_CATALOG[type]!.group;
    if (group === 'inputs' || group === 'choice' || group === 'data') c.bind = bindOf(type);
    if (group === 'choice') c.options = [{ value: 'a', label: 'A' }];
    if (type === 'dateRangeField') Object.assign(c, { bind: undefined, bindFrom: '$.from', bindTo: '$.to' });
    if (type === 'tabs') c.components = [{ id: 'c-tabItem', type: 'tabItem', label: 'One', components: [] }];
    if (type === 'sectionList') Object.assign(c, { bind: '$.rows', itemView: 'row' });
    return c;
  });
  return {
    id: 'every-type',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        s: { type: 'string', default: 'a' },
        n: { type: 'number', default: 1 },
        flag: { type: 'boolean', default: false },
        from: { type: 'string' },
        to: { type: 'string' },
        rows: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'number' } } },
          default: [{ x: 1 }],
        },
      },
    },
    viewDefinition: {
      defaultView: 'all',
      views: [
        { id: 'row', components: [{ id: 'x', type: 'numericField', label: 'X', bind: '$.rows[*].x' }] },
        { id: 'all', components },
      ],
    },
  };
}

describe.skipIf(!CHROMIUM)(browserSuite('model card in Chromium', 'test/card/browser.test.ts'), () => {
  let host: CardHost;
  let calc: CalcService;
  let browser: Browser;
  let page: Page;
  let hostUrl = '';
  /** Requests made by the card's frame (it must make none). */
  const cardRequests: string[] = [];

  beforeAll(async () => {
    host = await startCardHost({ folder: 'card-host', modeLine: 'browser test' });
    ({ calc, browser, hostUrl } = host);
    page = await browser.newPage({ locale: 'en-US', viewport: { width: 800, height: 1000 } });
    page.on('request', (r) => {
      if (r.frame() !== page.mainFrame()) cardRequests.push(r.url());
    });
    await page.goto(hostUrl);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    console.log(`card screenshots: ${ARTEFACTS}`);
  }, 120_000);

  afterAll(async () => {
    await host?.close();
  });

  const open = async (tool: string, args: Record<string, unknown>): Promise<Frame> => {
    await within(
      15_000,
      `host.open(${tool})`,
      page.evaluate(
        ([t, a]) =>
          (globalThis as unknown as { host: { open(t: string, a: unknown): Promise<unknown> } }).host.open(
            t,
            a,
          ),
        [tool, args] as const,
      ),
    );
    const handle = await page.waitForSelector('iframe[title="Model card"]', { timeout: 10_000 });
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector('main.card', { timeout: 10_000 });
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

  it('shows a refusal once, next to the field with the real value, until the next good edit', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await expect.poll(() => payment(frame).textContent()).toBe(usd(480.78));
    const deposit = await enterDeposit(frame, '99999');
    const alert = frame.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => alert.textContent()).toContain('The deposit cannot exceed the vehicle price');
    expect(await alert.textContent()).toMatch(/^\$99,999\.00 was refused: /);
    expect(await frame.locator('[role="alert"]').count()).toBe(1);
    expect(await deposit.getAttribute('aria-invalid')).toBe('true');
    expect(await payment(frame).textContent()).toBe(usd(480.78));
    await deposit.blur();
    expect(await deposit.inputValue()).toBe('4,000');
    await page.screenshot({ path: join(ARTEFACTS, 'state-refusal.png'), fullPage: true });
    // a good edit (typed with a separator) clears it
    await enterDeposit(frame, '5,000');
    await expect.poll(() => frame.locator('[role="alert"]').count()).toBe(0);
    const expected = (await calc.dryRun(carLoan(), { '$.deposit': 5000 })).monthlyPayment as number;
    await expect.poll(() => payment(frame).textContent()).toBe(usd(expected));
    expect(await deposit.getAttribute('aria-invalid')).toBeNull();
  });

  it('shows a failing render_model as an error with the message, within 2 s', async () => {
    const broken = { ...carLoan(), derivations: [{ path: '$.monthlyPayment', expr: '1 +' }] };
    const frame = await open('render_model', { spec: broken });
    const alert = frame.getByRole('alert');
    await alert.waitFor({ timeout: 2000 });
    expect(await alert.textContent()).toContain('The model could not be shown.');
    expect(await alert.textContent()).toContain('derivations');
    expect(await frame.getByText('Waiting for the model…').count()).toBe(0);
    await page.screenshot({ path: join(ARTEFACTS, 'state-error.png'), fullPage: true });
  });

  it('says it is waiting while the host has not answered', async () => {
    // the card in a frame of a page that never answers it, as a host still busy would
    const alone = await browser.newPage({ locale: 'en-US' });
    try {
      const card = readFileSync(CARD_HTML_PATH, 'utf8');
      await alone.route('http://silent.test/card', (r) =>
        r.fulfill({ body: card, contentType: 'text/html' }),
      );
      await alone.route('http://silent.test/', (r) =>
        r.fulfill({ body: '<iframe title="Model card" src="/card"></iframe>', contentType: 'text/html' }),
      );
      await alone.goto('http://silent.test/');
      const frame = alone.frameLocator('iframe');
      await expect.poll(() => frame.getByRole('status').textContent()).toBe('Waiting for the model…');
      await alone.screenshot({ path: join(ARTEFACTS, 'state-waiting.png') });
    } finally {
      await alone.close();
    }
  });

  it('formats numbers by their format everywhere, aligns them right and uses the width', async () => {
    const spec = carLoan();
    const views = (spec.viewDefinition as { views: { components: unknown[] }[] }).views;
    views[0]!.components.push({
      id: 'balances-chart',
      type: 'dataChart',
      label: 'Balance',
      bind: '$.yearEndBalances',
      chartType: 'line',
      chartX: 'year',
      chartSeries: [{ field: 'balance', label: 'Balance' }],
    });
    const frame = await open('render_model', { spec });
    await expect.poll(() => payment(frame).textContent()).toBe(usd(480.78));
    // inputs grouped
    const price = frame.getByLabel('Vehicle price', { exact: true });
    expect(await price.inputValue()).toBe('24,000');
    // the table's currency column: formatted and right-aligned; the year column right-aligned too
    const cells = frame.locator('[data-component="balances"] tbody tr').first().locator('td');
    expect(await cells.nth(1).textContent()).toMatch(/^\$[\d,]+\.\d\d$/);
    for (const i of [0, 1])
      expect(
        await cells
          .nth(i)
          .evaluate(
            (el) =>
              (
                globalThis as unknown as { getComputedStyle(e: unknown): { textAlign: string } }
              ).getComputedStyle(el).textAlign,
          ),
      ).toBe('right');
    // the chart's axis in the column's currency
    const ticks = await frame.locator('.chart .tick.y text').allTextContents();
    expect(ticks.length).toBeGreaterThan(2);
    for (const t of ticks) expect(t).toMatch(/^-?\$[\d,]+(\.\d\d)?$/);
    expect(ticks).toContain('$0');
    // the popover names its inputs as their fields show them
    await frame.locator('[data-component="payment"] .computed').hover();
    await expect.poll(() => frame.getByRole('tooltip').textContent()).toContain('Annual rate (%) = 7.2%');
    // a value no view shows takes the format its inputs share (price − deposit is money)
    expect(await frame.getByRole('tooltip').textContent()).toContain('Amount financed = $20,000.00');
    // the two stat tiles share a row at this width
    const [a, b] = [frame.locator('[data-component="payment"]'), frame.locator('[data-component="cost"]')];
    expect((await a.boundingBox())!.y).toBe((await b.boundingBox())!.y);
    await page.screenshot({ path: join(ARTEFACTS, 'state-formatted.png'), fullPage: true });
  });

  it('shows an input render_model rejected as refused, the field holding the default in effect', async () => {
    const frame = await open('render_model', { spec: carLoan(), inputs: { '$.deposit': 50000 } });
    const alert = frame.locator('[data-component="deposit"] [role="alert"]');
    await expect.poll(() => alert.textContent()).toContain('$50,000.00 was refused');
    expect(await frame.getByLabel('Deposit', { exact: true }).inputValue()).toBe('4,000');
    expect(await payment(frame).textContent()).toBe(usd(480.78));
  });

  it('answers "why is this number?" on hover with the formula and its inputs', async () => {
    const frame = await open('render_model', { spec: carLoan() });
    await frame.locator('[data-component="payment"] .computed').hover();
    const tip = frame.getByRole('tooltip');
    await expect.poll(() => tip.textContent()).toContain('Why is this number?');
    const text = (await tip.textContent())!;
    expect(text).toContain('$payment(amountFinanced, annualRatePercent / 1200, payments)');
    expect(text).toContain('Amount financed = $20,000.00');
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

  it("shows a branch's template and its links (issue 41): branched from, writes to", async () => {
    await calc.createModel({
      id: 'acme/ledger',
      version: '1.0.0',
      schema: { type: 'object', properties: { got: { type: 'number' } } },
    });
    const loan = carLoan() as Record<string, unknown>;
    const schema = loan.schema as { properties: Record<string, unknown> };
    await calc.createModel({
      ...loan,
      id: 'acme/loan',
      schema: { ...schema, properties: { ...schema.properties, io: { type: 'object' } } },
      effects: [
        {
          id: 'report',
          executor: 'server',
          trigger: 'deposit > 0',
          dedupeKey: 'deposit',
          statusPath: '$.io.report',
          target: { ref: 'acme/ledger', path: '$.got' },
          body: 'deposit',
        },
      ],
    });
    await calc.createModel({
      id: 'acme/loan-eu',
      version: '1.1.0',
      schema: {},
      template: { ref: 'acme/loan' },
    });
    const frame = await open('show_model', { id: 'acme/loan-eu' });
    const line = frame.locator('[data-testid="composition"]');
    await expect.poll(() => line.textContent()).toContain('Branched from acme/loan 1.0.0');
    expect(await line.textContent()).toContain('writes to acme/ledger');
    // a model that is neither a branch nor linked has no such line
    await calc.createModel({ ...carLoan(), id: 'plain-loan' });
    const plain = await open('show_model', { id: 'plain-loan' });
    await expect.poll(() => payment(plain).textContent()).toBe(usd(480.78));
    expect(await plain.locator('[data-testid="composition"]').count()).toBe(0);
  });

  it("a stored model's card follows the model: live after a change made elsewhere, stale when it cannot read it", async () => {
    await calc.createModel({ ...carLoan(), id: 'fresh-loan' });
    const frame = await open('show_model', { id: 'fresh-loan' });
    const badge = frame.locator('[data-freshness]');
    // short waits: a badge that never comes fails here, with its reason, not at the test's timeout
    const freshness = () => badge.getAttribute('data-freshness', { timeout: 5000 });
    const focusAgain = () =>
      frame
        .locator('body')
        .evaluate(
          () =>
            (globalThis as unknown as { dispatchEvent(e: Event): boolean }).dispatchEvent(new Event('focus')),
          undefined,
          { timeout: 5000 },
        );
    await expect.poll(freshness, { timeout: 10_000 }).toBe('live');
    expect(await badge.textContent({ timeout: 5000 })).toBe('Live');
    // the agent writes; the card reads the model back when it is focused again
    await calc.mutate('fresh-loan', { '$.deposit': 9000 });
    const expected = (await calc.getField('fresh-loan', '$.monthlyPayment')) as number;
    await focusAgain();
    await expect
      .poll(() => payment(frame).textContent({ timeout: 5000 }), { timeout: 10_000 })
      .toBe(usd(expected));
    // gone: the card keeps what it read, and says it is not up to date
    await calc.deleteModel('fresh-loan');
    await focusAgain();
    await expect.poll(freshness, { timeout: 10_000 }).toBe('stale');
    expect(await badge.textContent({ timeout: 5000 })).toMatch(/^Not up to date \(as of /);
    expect(await payment(frame).textContent({ timeout: 5000 })).toBe(usd(expected));
    await page.screenshot({ path: join(ARTEFACTS, 'state-stale.png') });
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
    // keyboard: arrow to the next tab, which draws the (SVG) chart
    await frame.getByRole('tab', { name: 'Order' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => frame.getByRole('tab', { name: 'Chart' }).getAttribute('aria-selected'))
      .toBe('true');
    await frame.locator('.chart svg').waitFor();
    expect(await frame.locator('.chart rect.bar').count()).toBe(2);
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

  it('renders a component of every catalogued type with its own renderer', async () => {
    const frame = await open('render_model', { spec: everyType() });
    await frame.locator('[data-component="c-textField"]').waitFor();
    // the renderer map is typed over the catalogue; this checks no type falls to the fallback notice
    expect(await frame.getByText('cannot be shown in a card').count()).toBe(0);
    const shown = await frame
      .locator('[data-component^="c-"]')
      .evaluateAll((els) =>
        els.map((e) => (e as unknown as { dataset: { component: string } }).dataset.component),
      );
    // these draw a bare element (a rule, a gap, an image, a link, a button) with no marker
    const unmarked = new Set(['separatorLine', 'spacer', 'image', 'link', 'button']);
    const expected = COMPONENT_TYPES.filter((t) => !unmarked.has(t) && t !== 'tabItem').map((t) => `c-${t}`);
    expect(new Set(shown)).toEqual(new Set(expected));
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
