// Numbers shown right in a real browser (issue 42 point 4, acceptance 4): headless Chromium loads the
// test host (web/test-host) whose AppBridge connects the built card to the real MCP server. Percent
// in both meanings (a spec computing rate * 100, and the spreadsheet converter's scaled display),
// years, two host locales and a view's own, input precision, and a stat tile that must not overflow,
// each asserted on the DOM, with screenshots in artefacts/format. Skipped when no Chromium.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertWorkbook } from '../../src/sheet/index.js';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { within } from '../helpers/time.js';
import { startCardHost, type CardHost } from './card-host.js';
import { percentWorkbook } from '../sheet/percent-workbook.js';

const root = join(import.meta.dirname, '../..');
const ARTEFACTS = join(root, 'artefacts/format');

/** A rate stored as a fraction, shown the Valem way: a rule computes rate * 100, shown as percent. */
function rates(): Record<string, unknown> {
  return {
    id: 'rates',
    version: '1.0.0',
    schema: {
      type: 'object',
      properties: {
        rate: { type: 'number', default: 0.0935 },
        precise: { type: 'number', default: 0.123456789 },
        big: { type: 'number', default: 1234567.5 },
        loss: { type: 'number', default: -98765432109.87 },
        plan: {
          type: 'array',
          default: [
            { year: 2024, amount: 1500 },
            { year: 2025, amount: 2750 },
            { year: 2026, amount: 4100 },
          ],
          items: { type: 'object', properties: { year: { type: 'integer' }, amount: { type: 'number' } } },
        },
      },
    },
    derivations: [
      { path: '$.ratePercent', expr: 'rate * 100' },
      { path: '$.doubled', expr: 'big * 2' },
    ],
    viewDefinition: {
      views: [
        {
          id: 'main',
          label: 'Rates',
          components: [
            { id: 'rate', type: 'numericField', label: 'Rate (fraction)', bind: '$.rate' },
            { id: 'precise', type: 'numericField', label: 'Precise', bind: '$.precise' },
            { id: 'rate-pct', type: 'statTile', label: 'Rate', bind: '$.ratePercent', format: 'percent' },
            { id: 'doubled', type: 'statTile', label: 'Doubled', bind: '$.doubled' },
            {
              id: 'loss',
              type: 'statTile',
              label: 'Loss',
              bind: '$.loss',
              format: 'currency',
              currency: 'USD',
            },
            {
              id: 'plan-table',
              type: 'dataTable',
              label: 'Plan',
              bind: '$.plan',
              tableColumns: [
                { field: 'year', header: 'Year' },
                { field: 'amount', header: 'Amount', format: 'currency', currency: 'USD' },
              ],
            },
            {
              id: 'plan-chart',
              type: 'dataChart',
              label: 'Plan by year',
              bind: '$.plan',
              chartType: 'bar',
              chartX: 'year',
              chartSeries: [{ field: 'amount', label: 'Amount' }],
            },
          ],
        },
      ],
    },
  };
}

describe.skipIf(!CHROMIUM)(
  browserSuite('numbers in the card (Chromium)', 'test/card/format-browser.test.ts'),
  () => {
    let host: CardHost;
    let browser: Browser;
    let hostBase = '';

    beforeAll(async () => {
      mkdirSync(ARTEFACTS, { recursive: true });
      host = await startCardHost({ folder: 'card-host-format', modeLine: 'format browser test' });
      ({ browser, hostUrl: hostBase } = host);
    }, 120_000);

    afterAll(async () => {
      await host?.close();
    });

    /** A page whose browser says en-US and whose host says `hostLocale`, with the card of `spec` open. */
    const open = async (
      spec: Record<string, unknown>,
      hostLocale: string,
      width = 800,
    ): Promise<{ page: Page; frame: Frame }> => {
      const page = await browser.newPage({ locale: 'en-US', viewport: { width, height: 1100 } });
      await page.goto(`${hostBase}&locale=${encodeURIComponent(hostLocale)}`);
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
      await within(
        20_000,
        'host.open(render_model)',
        page.evaluate(
          (s) =>
            (globalThis as unknown as { host: { open(t: string, a: unknown): Promise<unknown> } }).host.open(
              'render_model',
              { spec: s },
            ),
          spec,
        ),
      );
      const handle = await page.waitForSelector('iframe[title="Model card"]', { timeout: 10_000 });
      const frame = (await handle.contentFrame())!;
      await frame.waitForSelector('main.card', { timeout: 10_000 });
      return { page, frame };
    };
    const text = (frame: Frame, selector: string) => frame.locator(selector).first().innerText();
    const tile = (frame: Frame, id: string) => text(frame, `[data-testid="value-${id}"]`);
    const shot = (page: Page, name: string) =>
      page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });

    it('percent as Valem means it: a spec computing rate * 100 shows 9.35%; years and precision as stored', async () => {
      const { page, frame } = await open(rates(), 'en-US');
      expect(await tile(frame, 'rate-pct')).toBe('9.35%');
      // the input shows every decimal the model holds, not 6
      expect(await frame.getByLabel('Precise', { exact: true }).inputValue()).toBe('0.123456789');
      expect(await frame.getByLabel('Rate (fraction)', { exact: true }).inputValue()).toBe('0.0935');
      // years: the table's Year column and the chart's x axis say 2025, not 2,025
      const years = await frame
        .locator('[data-component="plan-table"] tbody tr td:first-child')
        .allInnerTexts();
      expect(years).toEqual(['2024', '2025', '2026']);
      const ticks = await frame.locator('[data-component="plan-chart"] .tick.x').allTextContents();
      expect(ticks).toEqual(['2024', '2025', '2026']);
      expect(await text(frame, '[data-component="plan-table"] tbody tr:nth-child(2) td:nth-child(2)')).toBe(
        '$2,750.00',
      );
      await shot(page, 'percent-years-en-US');
      await page.close();
    });

    it('percent from a workbook: a 0.00% cell holding 0.0935 shows 9.35%, as in Excel', async () => {
      const { spec } = await convertWorkbook(percentWorkbook(), {
        modelId: 'growth',
        filename: 'growth.xlsx',
      });
      const { page, frame } = await open({ ...spec }, 'en-US');
      expect(await tile(frame, 'effective_rate')).toBe('9.35%');
      expect(await tile(frame, 'tax')).toMatch(/^\$\d+\.\d\d$/);
      const rows: string[][] = [];
      for (const tr of await frame.locator('[data-component="table_rows"] tbody tr').all())
        rows.push(await tr.locator('td').allInnerTexts());
      expect(rows).toEqual([
        ['2024', '5%', '$1,000.00', '$50.00'],
        ['2025', '9.35%', '$1,200.00', '$112.20'],
        ['2026', '10%', '$1,500.00', '$150.00'],
      ]);
      await shot(page, 'workbook-percent');
      await page.close();
    });

    it('follows the host locale: de-DE and en-US give different separators; a view locale wins', async () => {
      const us = await open(rates(), 'en-US');
      const de = await open(rates(), 'de-DE');
      expect(await tile(us.frame, 'doubled')).toBe('2,469,135');
      expect(await tile(de.frame, 'doubled')).toBe('2.469.135');
      expect(await tile(de.frame, 'rate-pct')).toBe('9,35%');
      expect(await de.frame.getByLabel('Precise', { exact: true }).inputValue()).toBe('0,123456789');
      // a German person types German numbers: 0,05 is five hundredths
      const big = de.frame.getByLabel('Rate (fraction)', { exact: true });
      await big.fill('0,05');
      await big.press('Enter');
      await expect.poll(() => tile(de.frame, 'rate-pct'), { timeout: 10_000 }).toBe('5%');
      await shot(de.page, 'locale-de-DE');
      // the host switches language: the card formats again
      await us.page.evaluate(() =>
        (globalThis as unknown as { host: { setLocale(l: string): Promise<void> } }).host.setLocale('fr-FR'),
      );
      await expect.poll(() => tile(us.frame, 'doubled'), { timeout: 10_000 }).toBe('2\u202f469\u202f135');
      // the view definition's own locale and currency win over the host's
      const spec = rates();
      Object.assign(spec.viewDefinition as object, { locale: 'de-CH', currency: 'CHF' });
      const ch = await open(spec, 'en-US');
      expect(await tile(ch.frame, 'doubled')).toBe("2'469'135");
      await shot(ch.page, 'locale-view-de-CH');
      for (const p of [us.page, de.page, ch.page]) await p.close();
    });

    it('a long negative stat tile stays inside its border and keeps the whole value in its title', async () => {
      const { page, frame } = await open(rates(), 'en-US');
      for (const width of [760, 300, 220]) {
        // the host gives the card this much room
        await page.evaluate((w) => {
          const doc = (
            globalThis as unknown as { document: { querySelector(s: string): { style: { width: string } } } }
          ).document;
          doc.querySelector('iframe').style.width = `${w}px`;
        }, width);
        await frame.waitForFunction(
          (w) => (globalThis as unknown as { innerWidth: number }).innerWidth === w,
          width,
        );
        const value = frame.locator('[data-testid="value-loss"]');
        expect(await value.getAttribute('title')).toBe('-$98,765,432,109.87');
        const m = await frame.locator('[data-component="loss"]').evaluate((el) => {
          const box = el.getBoundingClientRect();
          return {
            tileScroll: el.scrollWidth,
            tileClient: el.clientWidth,
            right: box.right,
            frameWidth: el.ownerDocument.documentElement.clientWidth,
          };
        });
        // the tile holds its value (shrunk, then cut with an ellipsis) and stays inside the card
        expect(m.tileScroll, `${width}: ${JSON.stringify(m)}`).toBeLessThanOrEqual(m.tileClient);
        expect(m.right, `${width}: ${JSON.stringify(m)}`).toBeLessThanOrEqual(m.frameWidth);
        await page.screenshot({
          path: join(ARTEFACTS, `overflow-${width}.png`),
          clip: { x: 0, y: 0, width, height: 400 },
        });
      }
      await page.close();
    });
  },
);
