// The sandbox's "Goal seek" form in a real browser (issue 46, point 3): headless Debian Chromium
// (playwright-core) pairs through the real approve page of the real app, and on the bundled car
// loan asks for the deposit that gives a 400 monthly payment: "Find" answers from a private copy
// (the model and its audit trail unchanged), "Use these inputs" writes the answer as exactly one
// audited cycle. Skipped, with the reason in its name, when no Chromium is installed.
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
const ARTEFACTS = mkdtempSync(join(tmpdir(), 'modelworks-goal-seek-screens-'));
const KEY = 'server-key-for-sandbox-tests';

const usd = (n: number): string =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(n);

describe.skipIf(!CHROMIUM)(
  browserSuite('goal seek in the sandbox (Chromium)', 'test/sandbox/goal-seek.test.ts'),
  () => {
    let calc: CalcService;
    let app: FastifyInstance;
    let base = '';
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    /** The paired session: its namespace, and the token the approve page gave the browser. */
    let ns = '';
    let browserToken = '';
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
    const demo = (id: string): Record<string, unknown> => ({ ...carLoan(), id });

    beforeAll(async () => {
      if (!existsSync(SANDBOX_HTML_PATH))
        throw new Error(`${SANDBOX_HTML_PATH} is missing: run npm run build:sandbox`);
      calc = new CalcService(new MemoryStore());
      app = await buildApp({ calc, apiKey: KEY, sandbox: { pairing: new PairingService({}), sandboxHtml } });
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox'] });
      context = await browser.newContext({ locale: 'en-US', viewport: { width: 1100, height: 900 } });
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

    it('pairs through the approve page and lands on the sandbox with the session token', async () => {
      const started = (await rest('POST', '/sandbox/pair', {})) as {
        verificationUriComplete: string;
        pairCode: string;
        deviceSecret: string;
      };
      await page.goto(started.verificationUriComplete.replace(/^https?:\/\/[^/]+/, base));
      await page.getByRole('button', { name: 'Approve' }).click();
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
      })) as { namespaceId: string };
      ns = paired.namespaceId;
      await expect
        .poll(() => page.getByRole('navigation', { name: 'Models' }).textContent())
        .toContain('No models yet');
    });

    it('finds the deposit for a 400 payment on a private copy, then writes it as one audited cycle', async () => {
      await rest('POST', '/models', demo(id('loan')));
      await expect
        .poll(() => page.locator('[data-testid="value-payment"]').textContent(), { timeout: 10_000 })
        .toBe(usd(480.78));
      const auditBefore = await calc.getAudit(id('loan'), { limit: 1000 });
      const form = page.getByRole('region', { name: 'Goal seek' });
      await form.getByLabel('Set').selectOption({ label: 'Monthly payment' });
      await form.getByLabel('so that it is').selectOption('value');
      await form.getByLabel('Target value').fill('400');
      await form.getByLabel('By changing').selectOption({ label: 'Deposit' });
      await form.getByLabel('From').fill('0');
      await form.getByLabel('To').fill('20,000');
      await form.getByRole('button', { name: 'Find' }).click();
      const verdict = form.locator('.solve-verdict');
      await expect
        .poll(() => verdict.textContent(), { timeout: 10_000 })
        .toBe(`Target met: Monthly payment = ${usd(400)}; reached ${usd(400)}. The target is met.`);
      expect(await form.locator('h1').textContent()).toBe('Goal seek on loan');
      const found = Number(
        await form.locator('.solve-inputs [data-path="$.deposit"]').getAttribute('data-value'),
      );
      expect(Math.abs(found - (24000 - (400 * (1 - 1.006 ** -48)) / 0.006))).toBeLessThan(0.25);
      expect(await form.locator('.solve-inputs [data-path="$.deposit"] dd').textContent()).toBe(usd(found));
      // found on a private copy: the model and its audit trail have not changed
      expect(await calc.getField(id('loan'), '$.deposit')).toBe(4000);
      expect(await calc.getAudit(id('loan'), { limit: 1000 })).toEqual(auditBefore);
      await page.screenshot({ path: join(ARTEFACTS, 'goal-seek-found.png'), fullPage: true });

      await form.getByRole('button', { name: 'Use these inputs' }).click();
      await expect
        .poll(() => form.locator('.solve-applied').textContent(), { timeout: 10_000 })
        .toMatch(/^Written to the model \(revision \d+\)\.$/);
      const auditAfter = await calc.getAudit(id('loan'), { limit: 1000 });
      expect(auditAfter.length).toBe(auditBefore.length + 1);
      expect(auditAfter[0]!.mutations).toEqual({ '$.deposit': found });
      expect(await calc.getField(id('loan'), '$.deposit')).toBe(found);
      // the view follows: the payment the model now computes
      await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toBe(usd(400));
      expect(await form.getByRole('button', { name: 'Use these inputs' }).count()).toBe(0);
    });

    it('says a target out of reach is not met and offers nothing to write', async () => {
      const form = page.getByRole('region', { name: 'Goal seek' });
      await form.getByLabel('Target value').fill('5');
      await form.getByLabel('From').fill('0');
      await form.getByLabel('To').fill('1000');
      await form.getByRole('button', { name: 'Find' }).click();
      await expect
        .poll(() => form.locator('.solve-verdict').textContent(), { timeout: 10_000 })
        .toMatch(/^Target not met: Monthly payment = \$5\.00; reached \$.*closest point found\.$/);
      expect(await form.getByRole('button', { name: 'Use these inputs' }).count()).toBe(0);
      await form.getByLabel('Target value').fill('four hundred');
      await form.getByRole('button', { name: 'Find' }).click();
      await expect
        .poll(() => form.getByRole('alert').textContent())
        .toBe('Give the target value and the range as numbers.');
    });
  },
);
