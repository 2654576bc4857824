// Benchmark: the model card's size and first render (issue 21, acceptance 4).
//
// Prints the built card's bytes (raw, gzip, brotli) and the time from navigation to the first
// computed value on screen: the car-loan example opened at a share link (the same card as in a
// chat, served by the share routes on this machine) in headless Chromium, median of BENCH_ROUNDS
// (default 7) fresh pages. Needs `npm run build` and Chromium (MODELWORKS_CHROMIUM or
// /usr/bin/chromium).
import { existsSync, readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { chromium } from 'playwright-core';
import { registerShareRoutes } from '../dist/http/share-routes.js';
import { CardRunner } from '../dist/service/card-runner.js';
import { shareLinkBuilder } from '../dist/service/share-links.js';
import { CARD_HTML_PATH } from '../dist/mcp/card-tools.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const executablePath = process.env.MODELWORKS_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.log(`card bench: no Chromium at ${executablePath} (set MODELWORKS_CHROMIUM)`);
  process.exit(0);
}

const html = readFileSync(CARD_HTML_PATH);
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
console.log(
  `card: ${kb(html.length)} raw, ${kb(gzipSync(html, { level: 9 }).length)} gzip, ${kb(brotliCompressSync(html).length)} brotli (target ≤ 500 KB raw)`,
);

const spec = JSON.parse(readFileSync(new URL('../examples/calc/car-loan-calculator.json', import.meta.url)));
const app = Fastify();
registerShareRoutes(app, { runner: new CardRunner() });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
try {
  const url = shareLinkBuilder(base).shareUrl({ spec, inputs: { '$.deposit': 6000 } });
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const page = await browser.newPage({ locale: 'en-US' });
    const t0 = performance.now();
    await page.goto(url);
    await page.locator('[data-testid="value-payment"]').filter({ hasText: '$' }).waitFor({ timeout: 30_000 });
    times.push(performance.now() - t0);
    await page.close();
  }
  times.sort((a, b) => a - b);
  console.log(
    `first render (navigation → monthly payment on screen), median of ${ROUNDS}: ${times[times.length >> 1].toFixed(0)} ms (min ${times[0].toFixed(0)}, max ${times.at(-1).toFixed(0)})`,
  );
} finally {
  await browser.close();
  await app.close();
}
