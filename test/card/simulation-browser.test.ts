// A simulation in the model card, in a real browser: headless Chromium (playwright-core) loads the
// test host page (web/test-host), which calls `simulate` on the real MCP server over Streamable HTTP
// and hands the result to the built card through ext-apps' AppBridge, as a chat host would. The
// card's histograms, constraint risks and tornado order are checked against the result's numbers.
// Skipped, with the reason in its name, when no Chromium is installed.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { startCardHost, type CardHost } from './card-host.js';
import { carLoan, type Json } from './helpers.js';

const root = join(import.meta.dirname, '../..');
const UNCERTAINTY = JSON.parse(
  readFileSync(join(root, 'examples/simulate/car-loan-uncertainty.json'), 'utf8'),
) as Json;
const OUTPUTS = ['$.monthlyPayment', '$.costOfCredit'];
/** The card's own words for a share of runs (en-US, as the page's locale). */
const pct = (rate: number): string =>
  `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(rate * 100)}%`;

describe.skipIf(!CHROMIUM)(
  browserSuite('a simulation in the model card (Chromium)', 'test/card/simulation-browser.test.ts'),
  () => {
    let host: CardHost;
    let page: Page;

    beforeAll(async () => {
      host = await startCardHost({ folder: 'card-host-simulation', modeLine: 'simulation browser test' });
      page = await host.browser.newPage({ locale: 'en-US', viewport: { width: 800, height: 1000 } });
      await page.goto(host.hostUrl);
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    }, 120_000);

    afterAll(async () => {
      await host?.close();
    });

    /** Calls simulate through the host; the card's frame (once it shows the simulation) and the result. */
    const simulate = async (args: Record<string, unknown>): Promise<{ frame: Frame; result: Json }> => {
      const answer = (await page.evaluate(
        (a) =>
          (globalThis as unknown as { host: { open(t: string, a: unknown): Promise<unknown> } }).host.open(
            'simulate',
            a,
          ),
        args,
      )) as Json;
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      const handle = await page.waitForSelector('iframe[title="Model card"]');
      const frame = (await handle.contentFrame())!;
      await frame.waitForSelector('main.simulation section.sim-output svg rect.sim-bar');
      return { frame, result: answer.structuredContent as Json };
    };

    /** An element's text (it is there: the card draws the whole simulation at once). */
    const text = async (locator: ReturnType<Frame['locator']>): Promise<string> =>
      (await locator.textContent()) ?? '';

    /** The named attributes of every element the selector finds, in document order. */
    const attrs = (frame: Frame, selector: string, names: string[]) =>
      frame
        .locator(selector)
        .evaluateAll(
          (els, ns) => els.map((e) => Object.fromEntries(ns.map((n) => [n, e.getAttribute(n)]))),
          names,
        );

    it('draws the bundled car-loan example: histogram bars, markers, risks and tornado order from the result', async () => {
      const seed = 7;
      const { frame, result } = await simulate({
        spec: carLoan(),
        inputs: UNCERTAINTY,
        outputs: OUTPUTS,
        runs: 1000,
        seed,
      });
      const why = `seed ${seed}`;
      expect(result.runs, why).toBe(1000);
      expect(await text(frame.locator('h1'))).toBe('Simulation of Car loan calculator');
      expect(await text(frame.locator('.sim-summary'))).toContain('1,000 runs (seed 7), 0 failed.');
      for (const path of OUTPUTS) {
        const summary = result.outputs[path];
        const section = `section.sim-output[data-output="${path}"]`;
        // one bar per bin, each with the bin's count and a height in proportion to it
        const bars = await attrs(frame, `${section} .sim-histogram rect.sim-bar`, ['data-count', 'height']);
        expect(
          bars.map((b) => Number(b['data-count'])),
          `${path} ${why}`,
        ).toEqual(summary.histogram.counts);
        const most = Math.max(...summary.histogram.counts);
        const tallest = Math.max(...bars.map((b) => Number(b.height)));
        for (const [i, b] of bars.entries())
          expect(Number(b.height) / tallest, `${path} bin ${i} ${why}`).toBeCloseTo(
            summary.histogram.counts[i] / most,
            6,
          );
        // the mean and each percentile marked at the result's value
        const markers = await attrs(frame, `${section} .sim-marker`, ['data-marker', 'data-value']);
        const marked = Object.fromEntries(markers.map((m) => [m['data-marker'], Number(m['data-value'])]));
        expect(marked, `${path} ${why}`).toEqual({
          mean: summary.mean,
          p5: summary.percentiles['5'],
          p50: summary.percentiles['50'],
          p95: summary.percentiles['95'],
        });
        // the chart has a title and a description in words
        expect(await text(frame.locator(`${section} .sim-histogram svg title`).first())).toMatch(
          /^Histogram of (Monthly payment|Cost of credit)$/,
        );
        expect(await text(frame.locator(`${section} .sim-histogram svg desc`))).toContain('over 1,000 runs');
        // tornado: the inputs strongest first, bars right of the centre for a positive rho, left for a negative
        const rho = result.sensitivity[path] as Record<string, number>;
        const expected = Object.keys(rho).sort((a, b) => Math.abs(rho[b]!) - Math.abs(rho[a]!));
        const drivers = await attrs(frame, `${section} .sim-tornado g.sim-driver`, [
          'data-input',
          'data-rho',
        ]);
        expect(
          drivers.map((d) => d['data-input']),
          `${path} ${why}`,
        ).toEqual(expected);
        expect(drivers.map((d) => Number(d['data-rho']))).toEqual(expected.map((k) => rho[k]));
        const rects = await attrs(frame, `${section} .sim-tornado g.sim-driver rect`, [
          'class',
          'x',
          'width',
        ]);
        const centre = Number(
          (await attrs(frame, `${section} .sim-tornado g.tick.x line`, ['x1']))[2]!.x1, // ticks -1, -0.5, 0, …
        );
        for (const [i, r] of rects.entries()) {
          const value = rho[expected[i]!]!;
          if (value >= 0) expect(Number(r.x), `${expected[i]} ${why}`).toBeCloseTo(centre, 6);
          else expect(Number(r.x) + Number(r.width), `${expected[i]} ${why}`).toBeCloseTo(centre, 6);
          expect(r.class).toContain(value >= 0 ? 'positive' : 'negative');
        }
      }
      // the price raises the payment, the deposit lowers it: labels from the model's view
      expect(
        await text(
          frame.locator('section.sim-output[data-output="$.monthlyPayment"] .sim-driver text').first(),
        ),
      ).toBe('Vehicle price');
      // this example never trips either constraint, and the card says so
      expect(await text(frame.locator('li[data-constraint="deposit-within-price"] .sim-risk-text'))).toBe(
        'Never refused a run (0%)',
      );
      expect(await text(frame.locator('li[data-constraint="long-expensive-loan"] .sim-risk-text'))).toBe(
        'Never flagged (0%)',
      );
      expect(await frame.locator('.sim-failures').count()).toBe(0);
    }, 120_000);

    it('shows how often each constraint rolls back or flags, and the failed runs with their reason', async () => {
      const seed = 11;
      // deposits up to more than the price (the rollback rule refuses those runs) and dearer
      // credit (the flag rule fires)
      const inputs = {
        ...UNCERTAINTY,
        '$.deposit': { type: 'Uniform', min: 2000, max: 30000 },
        '$.annualRatePercent': { type: 'Triangular', min: 4.5, mode: 9, max: 20 },
      };
      const { frame, result } = await simulate({
        spec: carLoan(),
        inputs,
        outputs: OUTPUTS,
        runs: 1000,
        seed,
      });
      const why = `seed ${seed}`;
      const { rollbackRate } = result.constraints['deposit-within-price'];
      const { flagRate } = result.constraints['long-expensive-loan'];
      expect(rollbackRate, why).toBeGreaterThan(0);
      expect(flagRate, why).toBeGreaterThan(0);
      expect(result.failures.CONSTRAINT_VIOLATION, why).toBe(result.failedRuns);
      expect(await text(frame.locator('li[data-constraint="deposit-within-price"] .sim-risk-text'))).toBe(
        `Refused the inputs in ${pct(rollbackRate)} of runs (about 1 in ${Math.round(1 / rollbackRate)})`,
      );
      expect(await text(frame.locator('li[data-constraint="long-expensive-loan"] .sim-risk-text'))).toBe(
        `Flagged in ${pct(flagRate)} of runs (about 1 in ${Math.round(1 / flagRate)})`,
      );
      expect(await text(frame.locator('li[data-constraint="deposit-within-price"] .sim-constraint'))).toBe(
        'The deposit cannot exceed the vehicle price',
      );
      expect(await text(frame.locator('li[data-constraint="deposit-within-price"] .sim-rates'))).toContain(
        `rolls back ${pct(rollbackRate)}, flags 0%`,
      );
      expect(await text(frame.locator('.sim-summary'))).toContain(
        `1,000 runs (seed 11), ${result.failedRuns.toLocaleString('en-US')} failed.`,
      );
      expect(await text(frame.locator('li[data-failure="CONSTRAINT_VIOLATION"]'))).toContain(
        `${result.failedRuns.toLocaleString('en-US')} refused by a rollback constraint`,
      );
      // the histograms count the committed runs only
      const counts = await attrs(
        frame,
        'section.sim-output[data-output="$.monthlyPayment"] .sim-histogram rect.sim-bar',
        ['data-count'],
      );
      expect(
        counts.reduce((n, c) => n + Number(c['data-count']), 0),
        why,
      ).toBe(1000 - result.failedRuns);
      // for a person to look at: the whole card, in .tmp (not committed)
      await frame.locator('main').screenshot({ path: join(root, '.tmp/card-simulation.png') });
    }, 120_000);
  },
);
