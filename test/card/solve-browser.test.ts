// A solve result in the model card, in a real browser (issue 46, point 3): headless Chromium
// (playwright-core) loads the test host page (web/test-host), which calls `solve` on the real MCP
// server over Streamable HTTP and hands the result to the built card through ext-apps' AppBridge,
// as a chat host would. The card shows the inputs found and whether the target is met, in the
// model's labels and formats, from the result's numbers. Skipped, with the reason in its name,
// when no Chromium is installed.
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { startCardHost, type CardHost } from './card-host.js';
import { carLoan, type Json } from './helpers.js';

/** Money as the card writes it (en-US, as the page's locale). */
const usd = (v: number): string =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(v);

describe.skipIf(!CHROMIUM)(
  browserSuite('a solve result in the model card (Chromium)', 'test/card/solve-browser.test.ts'),
  () => {
    let host: CardHost;
    let page: Page;

    beforeAll(async () => {
      host = await startCardHost({ folder: 'card-host-solve', modeLine: 'solve browser test' });
      page = await host.browser.newPage({ locale: 'en-US', viewport: { width: 800, height: 1000 } });
      await page.goto(host.hostUrl);
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    }, 120_000);

    afterAll(async () => {
      await host?.close();
    });

    /** Calls solve through the host; the card's frame (once it shows the result) and the result. */
    const solve = async (args: Record<string, unknown>): Promise<{ frame: Frame; result: Json }> => {
      const answer = (await page.evaluate(
        (a) =>
          (globalThis as unknown as { host: { open(t: string, a: unknown): Promise<unknown> } }).host.open(
            'solve',
            a,
          ),
        args,
      )) as Json;
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      const handle = await page.waitForSelector('iframe[title="Model card"]');
      const frame = (await handle.contentFrame())!;
      await frame.waitForSelector('main.solve .solve-inputs dd');
      return { frame, result: answer.structuredContent as Json };
    };

    const text = async (locator: ReturnType<Frame['locator']>): Promise<string> =>
      (await locator.textContent()) ?? '';

    it("shows the car loan's deposit for a 400 payment: the input found and the target met", async () => {
      const { frame, result } = await solve({
        spec: carLoan(),
        vary: { '$.deposit': { min: 0, max: 20000 } },
        target: { path: '$.monthlyPayment', value: 400 },
        seed: 1,
      });
      expect(result.met).toBe(true);
      const deposit = result.inputs['$.deposit'] as number;
      expect(await frame.locator('main.solve').getAttribute('data-met')).toBe('true');
      expect(await text(frame.locator('h1'))).toBe('Goal seek on Car loan calculator');
      expect(await text(frame.locator('.solve-verdict'))).toBe(
        `Target met: Monthly payment = ${usd(400)}; reached ${usd(400)}. The target is met.`,
      );
      const input = frame.locator('.solve-inputs [data-path="$.deposit"]');
      expect(Number(await input.getAttribute('data-value'))).toBe(deposit);
      expect(await text(input.locator('dt'))).toContain('Deposit');
      expect(await text(input.locator('dd'))).toBe(usd(deposit));
      expect(await text(frame.locator('.solve-outputs [data-path="$.monthlyPayment"] dd'))).toBe(usd(400));
      expect(await text(frame.locator('.solve-run'))).toBe(`${result.iterations} model cycles (seed 1).`);
    });

    it('shows a target out of reach as not met, with the closest value and the bound it sits on', async () => {
      const { frame, result } = await solve({
        spec: carLoan(),
        vary: { '$.deposit': { min: 0, max: 2000 } },
        target: { path: '$.monthlyPayment', value: 400 },
        seed: 1,
      });
      expect(result).toMatchObject({ met: false, reason: 'infeasible' });
      expect(await frame.locator('main.solve').getAttribute('data-met')).toBe('false');
      const verdict = await text(frame.locator('.solve-verdict'));
      expect(verdict).toContain(
        `Target not met: Monthly payment = ${usd(400)}; reached ${usd(result.target.achieved)}.`,
      );
      expect(verdict).toContain('closest point found');
      expect(await text(frame.locator('.solve-inputs [data-path="$.deposit"] dd'))).toBe(usd(2000));
      expect(await text(frame.locator('main.solve'))).toContain('On a bound: Deposit.');
    });
  },
);
