// Issue 10 end to end: an agent (SDK client → `modelworks mcp --url … --browser`, a child process)
// and a person (headless Chromium) on the same live models of a real `modelworks serve` child.
// The agent calls pair_browser; the person opens the link it hands over (URL elicitation) and
// approves; the agent's model appears in the sandbox; the person's edit there reaches the agent as
// resources/updated and in get_state. Skipped, with the reason, when no Chromium is installed.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { carLoan } from '../card/helpers.js';
import { cli } from '../mcp/helpers/peers.js';
import { startServe } from '../mcp/helpers/serve.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const ARTEFACTS = join(import.meta.dirname, '../../artefacts/sandbox');
const KEY = 'agent-and-browser-key';

describe.skipIf(!CHROMIUM)(
  browserSuite('an agent and a person on the same models', 'test/sandbox/agent-and-browser.test.ts'),
  () => {
    let serve: { url: string; child: ChildProcess };
    let agent: Client;
    let browser: Browser;
    let page: Page;

    beforeAll(async () => {
      mkdirSync(ARTEFACTS, { recursive: true });
      serve = await startServe('memory', { MODELWORKS_API_KEY: KEY });
      browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true });
      page = await (await browser.newContext()).newPage();
      agent = new Client({ name: 'agent', version: '1' }, { capabilities: { elicitation: { url: {} } } });
      await agent.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [cli, 'mcp', '--url', serve.url, '--browser'],
          env: { ...process.env, MODELWORKS_API_KEY: KEY, MODELWORKS_STORE: 'memory' },
          stderr: 'ignore',
        }),
      );
    }, 60_000);
    afterAll(async () => {
      await agent?.close();
      await browser?.close();
      serve?.child.kill('SIGTERM');
    });

    it('pairs through the link, shares the agent’s model, and brings the person’s edit back', async () => {
      // the person gets the link as a URL elicitation, opens it and clicks Approve
      const links: string[] = [];
      agent.setRequestHandler('elicitation/create', async (request) => {
        const url = (request.params as Json).url as string;
        links.push(url);
        await page.goto(url);
        await page.getByRole('button', { name: 'Approve' }).click();
        return { action: 'accept' };
      });
      const progress: string[] = [];
      const paired = (await agent.callTool(
        { name: 'pair_browser', arguments: {} },
        {
          timeout: 60_000,
          onprogress: (p) => progress.push(p.message ?? ''),
        },
      )) as Json;
      expect(paired.structuredContent).toMatchObject({ status: 'paired' });
      expect(links).toHaveLength(1);
      expect(links[0]).toMatch(/\/sandbox\/approve#code=[A-Z]{4}-[A-Z]{4}$/);
      await page.waitForURL(/\/sandbox$/);
      expect(page.url()).not.toContain('#code='); // the code left the address bar

      // the agent builds a model; it appears in the person's sandbox under the agent's own id
      const created = (await agent.callTool({
        name: 'create_model',
        arguments: { spec: { ...carLoan(), id: 'loan' } },
      })) as Json;
      expect(created.isError).toBeFalsy();
      const list = page.getByRole('navigation', { name: 'Models' });
      await expect
        .poll(() => list.getByRole('button').allTextContents(), { timeout: 15_000 })
        .toEqual(['loan']);
      await expect.poll(() => page.locator('[data-testid="value-payment"]').textContent()).toContain('$');

      // the person edits; the subscribed agent is told, and sees the new value
      await agent.subscribeResource({ uri: 'valem://state/loan' });
      const updated = new Promise<string>((resolve) =>
        agent.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
      );
      const deposit = page.getByLabel('Deposit', { exact: true });
      await deposit.fill('6500');
      await deposit.press('Enter');
      expect(await updated).toBe('valem://state/loan');
      const state = (await agent.callTool({ name: 'get_state', arguments: { id: 'loan' } })) as Json;
      expect(JSON.parse(state.content[0].text as string)).toMatchObject({ deposit: 6500 });
      const audit = (await agent.callTool({ name: 'get_audit', arguments: { id: 'loan' } })) as Json;
      expect(audit.content[0].text).toContain('"$.deposit": 6500');

      await page.emulateMedia({ colorScheme: 'light' });
      await page.screenshot({ path: join(ARTEFACTS, 'agent-and-browser-light.png'), fullPage: true });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: join(ARTEFACTS, 'agent-and-browser-dark.png'), fullPage: true });
      expect(existsSync(join(ARTEFACTS, 'agent-and-browser-dark.png'))).toBe(true);
    }, 120_000);
  },
);
