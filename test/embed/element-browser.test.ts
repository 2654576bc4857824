// <modelworks-model> in Chromium: real pages served by a `modelworks serve` child, a host page on a
// second origin (another port), and a foreign page on a third. The element renders the card, the
// host receives ready/height/change/constraint, `set` edits the model (a spec's private copy and a
// stored model), messages from a foreign origin are ignored both ways, readonly refuses edits, and
// the fragment never reaches the server (its request log). Needs a build (dist/).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelworksClient } from '../../src/client/index.js';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { carLoanSpec, freePort, startServe, type Serve } from '../client/helpers.js';
import { attr, elementPage, startHost, type HostServer } from './host-pages.js';

const ARTEFACTS = mkdtempSync(join(tmpdir(), 'modelworks-embed-screens-'));

interface Logged {
  type: string;
  detail: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe.skipIf(!CHROMIUM)(
  browserSuite('<modelworks-model> in Chromium', 'test/embed/element-browser.test.ts'),
  () => {
    let serve: Serve;
    let host: HostServer;
    let foreign: HostServer;
    let browser: Browser;
    let client: ModelworksClient;
    const spec = JSON.stringify(carLoanSpec('embedded-loan'));

    beforeAll(async () => {
      host = await startHost(await freePort());
      foreign = await startHost(await freePort());
      serve = await startServe({ store: 'memory', env: { MODELWORKS_EMBED_ALLOWED_ORIGINS: host.origin } });
      client = new ModelworksClient({ baseUrl: serve.url });
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    }, 90_000);
    afterAll(async () => {
      console.log(`embed screenshots: ${ARTEFACTS}`);
      await browser?.close();
      await serve?.child.stop();
      await host?.close();
      await foreign?.close();
    });

    const open = async (path: string, html: string): Promise<Page> => {
      host.page(path, html);
      const page = await browser.newPage();
      page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
      await page.goto(`${host.origin}${path}`);
      return page;
    };
    const events = (page: Page): Promise<Logged[]> => page.evaluate<Logged[]>('window.events');
    /** The host page's `element.set(mutations)`. */
    const setModel = (page: Page, mutations: Record<string, unknown>): Promise<unknown> =>
      page.evaluate(`document.querySelector('modelworks-model').set(${JSON.stringify(mutations)})`);
    /** The frame's height as the element set it. */
    const frameHeight = async (page: Page): Promise<string | undefined> =>
      /height:\s*(\d+px)/.exec(
        (await page.locator('modelworks-model iframe').getAttribute('style')) ?? '',
      )?.[1];
    const waitFor = async (
      page: Page,
      type: string,
      test: (e: Logged) => boolean = () => true,
    ): Promise<Logged> => {
      let found: Logged | undefined;
      await expect
        .poll(async () => (found = (await events(page)).find((e) => e.type === type && test(e))), {
          timeout: 20_000,
        })
        .toBeDefined();
      return found!;
    };
    const frameOf = (page: Page) => page.frameLocator('modelworks-model iframe');

    it('renders the card of a spec and tells the host ready, height, change and constraint', async () => {
      const page = await open('/spec.html', elementPage(serve.url, `spec="${attr(spec)}" height="auto"`));
      const frame = frameOf(page);
      await frame.getByLabel('Deposit', { exact: true }).waitFor({ timeout: 20_000 });
      const ready = await waitFor(page, 'ready');
      expect(ready.detail).toMatchObject({ modelId: 'embedded-loan', state: { amountFinanced: 20000 } });
      const height = await waitFor(page, 'height', (e) => e.detail.px > 300);
      // height=auto: the frame takes the card's height
      await expect
        .poll(() => frameHeight(page))
        .toBe(`${(await events(page)).filter((e) => e.type === 'height').at(-1)!.detail.px}px`);
      expect(height.detail.px).toBeGreaterThan(300);

      // an edit in the card is a change
      const deposit = frame.getByLabel('Deposit', { exact: true });
      await deposit.fill('5000');
      await deposit.press('Enter');
      const edited = await waitFor(page, 'change', (e) => e.detail.state.deposit === 5000);
      expect(edited.detail.state.amountFinanced).toBe(19000);

      // the host's edit: the model changes and the card shows it
      await setModel(page, { '$.vehiclePrice': 30000 });
      const set = await waitFor(page, 'change', (e) => e.detail.state.vehiclePrice === 30000);
      expect(set.detail.state).toMatchObject({ deposit: 5000, amountFinanced: 25000 });
      await expect.poll(() => frame.getByLabel('Vehicle price', { exact: true }).inputValue()).toBe('30,000');

      // a refused edit is a constraint, and nothing changes
      await setModel(page, { '$.deposit': 999999 });
      const refused = await waitFor(page, 'constraint', (e) => e.detail.rejected === true);
      expect(JSON.stringify(refused.detail.violations)).toMatch(/deposit cannot exceed/i);
      expect((await events(page)).some((e) => e.type === 'change' && e.detail.state.deposit === 999999)).toBe(
        false,
      );
      await page.screenshot({ path: join(ARTEFACTS, 'embedded-spec.png'), fullPage: true });
      await page.close();
    });

    it('ignores messages from a foreign origin, both ways', async () => {
      // a page of another origin, framed by the host, tries to speak for the card and to edit it
      foreign.page(
        '/evil.html',
        `<!doctype html><script>
      setInterval(() => {
        parent.postMessage({ type: 'modelworks:change', state: { forged: true } }, '*');
        for (let i = 0; i < parent.frames.length; i++)
          parent.frames[i].postMessage({ type: 'modelworks:set', mutations: { '$.deposit': 1 } }, '*');
      }, 100);
      </script>`,
      );
      const page = await open(
        '/foreign.html',
        elementPage(
          serve.url,
          `spec="${attr(spec)}"`,
          `<iframe id="evil" src="${foreign.origin}/evil.html"></iframe>`,
        ),
      );
      await waitFor(page, 'ready');
      await page.waitForTimeout(1500); // about fifteen rounds of forged messages
      const seen = await events(page);
      expect(seen.some((e) => e.type === 'change')).toBe(false);
      expect(seen.some((e) => JSON.stringify(e.detail).includes('forged'))).toBe(false);
      expect(await frameOf(page).getByLabel('Deposit', { exact: true }).inputValue()).toBe('4,000');
      await page.close();
      // the plain-HTML way (an <iframe> of /embed, no element): the foreign frame can reach the
      // card's window through parent.frames, and the card still ignores it
      const fragment = Buffer.from(JSON.stringify({ spec: JSON.parse(spec) as unknown })).toString(
        'base64url',
      );
      const snippet = await open(
        '/snippet.html',
        `<!doctype html><body><iframe id="model" style="width:100%;height:600px;border:0" src="${serve.url}/embed#e=${fragment}"></iframe>
        <iframe src="${foreign.origin}/evil.html"></iframe>
        <script>
        window.events = [];
        const model = document.getElementById('model');
        window.addEventListener('message', (e) => {
          if (e.source === model.contentWindow && e.origin === ${JSON.stringify(serve.url)})
            window.events.push({ type: e.data.type.replace('modelworks:', ''), detail: e.data });
        });
        </script></body>`,
      );
      await waitFor(snippet, 'ready');
      await snippet.waitForTimeout(1500);
      expect((await events(snippet)).some((e) => e.type === 'change')).toBe(false);
      expect(await snippet.frameLocator('#model').getByLabel('Deposit', { exact: true }).inputValue()).toBe(
        '4,000',
      );
      await snippet.close();
    });

    it('readonly: the inputs cannot be edited and the host’s edits are refused', async () => {
      const page = await open(
        '/readonly.html',
        elementPage(serve.url, `spec="${attr(spec)}" mode="readonly" height="500"`),
      );
      await waitFor(page, 'ready');
      const deposit = frameOf(page).getByLabel('Deposit', { exact: true });
      expect(await deposit.isEditable()).toBe(false);
      expect(await frameHeight(page)).toBe('500px');
      await setModel(page, { '$.deposit': 100 });
      const error = await waitFor(page, 'error');
      expect(error.detail.message).toMatch(/read-only/);
      expect((await events(page)).some((e) => e.type === 'change')).toBe(false);
      await page.close();
    });

    it('binds to a stored model: the host’s edits are the model’s', async () => {
      await client.createModel(carLoanSpec('stored-loan'));
      const page = await open(
        '/stored.html',
        elementPage(serve.url, `src="${serve.url}/models/stored-loan"`),
      );
      const ready = await waitFor(page, 'ready');
      expect(ready.detail.modelId).toBe('stored-loan');
      await setModel(page, { '$.deposit': 7000 });
      await waitFor(page, 'change', (e) => e.detail.state.deposit === 7000);
      expect(await client.getField('stored-loan', '$.deposit')).toBe(7000);
      // and a change made elsewhere reaches the card (it reads its model back)
      await client.mutate('stored-loan', { '$.deposit': 6500 });
      await waitFor(page, 'change', (e) => e.detail.state.deposit === 6500);
      await page.close();
    });

    it('keeps the fragment from the server, and frames only for allowed origins', async () => {
      const log = serve.log();
      expect(log).toMatch(/"url":"\/embed"/); // the request log is on and saw the page
      expect(log).not.toMatch(/#e=|embedded-loan|vehiclePrice/);
      const res = await fetch(`${serve.url}/embed`);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain(`frame-ancestors 'self' ${host.origin}`);
      expect(csp).not.toContain(foreign.origin);
      // the foreign origin's page cannot frame it: Chromium refuses, so no card and no ready
      foreign.page('/frames.html', elementPage(serve.url, `spec="${attr(spec)}"`));
      const page = await browser.newPage();
      await page.goto(`${foreign.origin}/frames.html`);
      await page.waitForTimeout(1500);
      expect(await events(page)).toEqual([]);
      await page.close();
    });
  },
);
