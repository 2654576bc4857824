// The sandbox's "Describe a model" box in a real browser (issue 44, acceptance 3): headless Debian
// Chromium pairs through the real approve page, describes a car loan, watches the streamed progress
// (the loopback provider answers: not JSON, a schema error, a failing test, then a good spec) and
// lands on the created model, in the session's namespace. Skipped, with the reason in its name,
// when no Chromium is installed.
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { LlmClient, llmConfigFromEnv } from '../../src/llm/index.js';
import { CalcService } from '../../src/service/calc-service.js';
import { SpecGenerator } from '../../src/service/generate.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import { PairingService } from '../../src/service/pairing.js';
import { SANDBOX_HTML_PATH, sandboxHtml } from '../../src/service/web-assets.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { CONVERGING_SCRIPT } from '../helpers/generation-specs.js';
import { startLoopbackLlm, type LoopbackLlm } from '../helpers/loopback-llm.js';

const KEY = 'server-key-for-describe-tests';
const PROVIDER_KEY = 'sk-describe-provider-KEY';

describe.skipIf(!CHROMIUM)(
  browserSuite('the describe box in the sandbox (Chromium)', 'test/sandbox/describe.test.ts'),
  () => {
    let llm: LoopbackLlm;
    let calc: CalcService;
    let app: FastifyInstance;
    let base = '';
    let browser: Browser;
    let page: Page;
    let ns = '';
    const consoleErrors: string[] = [];

    const rest = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, unknown>;
    };

    beforeAll(async () => {
      if (!existsSync(SANDBOX_HTML_PATH))
        throw new Error(`${SANDBOX_HTML_PATH} is missing: run npm run build:sandbox`);
      llm = await startLoopbackLlm();
      const config = llmConfigFromEnv({
        MODELWORKS_LLM_PROVIDER: 'anthropic',
        MODELWORKS_LLM_MODEL: 'describe-model',
        MODELWORKS_LLM_BASE_URL: llm.anthropicUrl,
        MODELWORKS_LLM_API_KEY: PROVIDER_KEY,
      })!;
      calc = new CalcService(new MemoryStore());
      app = await buildApp({
        calc,
        apiKey: KEY,
        sandbox: { pairing: new PairingService({}), sandboxHtml },
        generator: new SpecGenerator(new LlmClient(config), BUILTIN_GUIDANCE_TOPICS),
      });
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox'] });
      page = await (await browser.newContext({ locale: 'en-US' })).newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await app?.close();
      await calc?.close();
      await llm?.close();
    });

    it('pairs, describes a model, shows the progress and opens the created model', async () => {
      const started = await rest('/sandbox/pair', {});
      await page.goto(String(started.verificationUriComplete).replace(/^https?:\/\/[^/]+/, base));
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(`${base}/sandbox`);
      ns = String(
        (
          await rest('/sandbox/pair/token', {
            pairCode: started.pairCode,
            deviceSecret: started.deviceSecret,
          })
        ).namespaceId,
      );

      llm.script(CONVERGING_SCRIPT);
      const box = page.getByRole('region', { name: 'Describe a model' });
      await box
        .getByLabel('What should it compute?')
        .fill('A car loan with a deposit that cannot exceed the price');
      await box.getByRole('button', { name: 'Generate' }).click();

      const log = box.getByRole('log', { name: 'Generation progress' });
      await expect.poll(() => log.textContent(), { timeout: 20_000 }).toContain(`Created ${ns}__car-loan`);
      const lines = await log.getByRole('listitem').allTextContents();
      expect(lines[0]).toBe('Attempt 1: asking anthropic…');
      expect(lines).toContain('Attempt 3: 1 test(s) failed, repairing');
      expect(lines.some((l) => /^Attempt 2: .*unknown function \$minus/.test(l))).toBe(true);

      // the created model is listed, selected and open
      const item = page.getByRole('navigation', { name: 'Models' }).getByRole('button', { name: 'car-loan' });
      await expect.poll(() => item.getAttribute('aria-current')).toBe('true');
      await expect.poll(() => page.getByRole('heading', { level: 2, name: 'car-loan' }).count()).toBe(1);
      expect(await calc.getField(`${ns}__car-loan`, '$.financed')).toBe(18000);
      // the page never saw the provider key; the browser met no errors (a CSP refusal would show)
      expect(await page.content()).not.toContain(PROVIDER_KEY);
      expect(consoleErrors.filter((e) => !/404|status of 4/.test(e))).toEqual([]);
    }, 60_000);

    it('says why when the generation gives up', async () => {
      llm.script(['not json at all']);
      const box = page.getByRole('region', { name: 'Describe a model' });
      await box.getByLabel('What should it compute?').fill('something impossible');
      await box.getByRole('button', { name: 'Generate' }).click();
      await expect
        .poll(() => box.getByRole('alert').textContent(), { timeout: 20_000 })
        .toMatch(/no valid ModelSpec after 6 attempts/);
    }, 60_000);
  },
);
