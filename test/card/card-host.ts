// The set-up every Chromium card suite shares: the test host page (web/test-host) built into its
// own folder, a real MCP server over Streamable HTTP on a memory-store CalcService, one origin
// serving both (the host page, and /mcp passed through to the server, as a chat host would), and
// a headless Chromium. Each suite then opens pages and cards its own way.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import { CHROMIUM } from '../helpers/chromium.js';
import { CARD_HTML_PATH } from '../../src/mcp/card-tools.js';
import { serveHttp, type RunningHttpMcp } from '../../src/mcp/http.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { CalcService } from '../../src/service/calc-service.js';
import { BUILTIN_GUIDANCE_TOPICS } from '../../src/service/guidance/topics.js';
import { MemoryStore } from '../../src/store/memory-store.js';

const root = join(import.meta.dirname, '../..');

export interface CardHost {
  calc: CalcService;
  mcp: RunningHttpMcp;
  browser: Browser;
  /** The host page, told where its /mcp is (same origin). */
  hostUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the host. `folder` under .tmp/ is the suite's own: suites run at the same time and would
 * otherwise build into one folder together.
 */
export async function startCardHost(options: { folder: string; modeLine: string }): Promise<CardHost> {
  if (!existsSync(CARD_HTML_PATH)) throw new Error(`${CARD_HTML_PATH} is missing: run npm run build:card`);
  const outDir = join(root, '.tmp', options.folder);
  await build({
    configFile: false,
    root: join(root, 'web/test-host'),
    logLevel: 'silent',
    plugins: [viteSingleFile()],
    build: { outDir, emptyOutDir: true },
  });
  const hostHtml = readFileSync(join(outDir, 'index.html'), 'utf8');
  const calc = new CalcService(new MemoryStore());
  const mcp = await serveHttp({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    log: () => {},
    createServer: () =>
      createMcpServer({
        calc,
        guidanceTopics: BUILTIN_GUIDANCE_TOPICS,
        groups: new Set(['calc']),
        modeLine: options.modeLine,
      }),
  });
  const web: Server = createServer((req, res) => {
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
  const browser = await chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: ['--no-sandbox'],
  });
  return {
    calc,
    mcp,
    browser,
    hostUrl: `http://127.0.0.1:${port}/?mcp=${encodeURIComponent(`http://127.0.0.1:${port}/mcp`)}`,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => web.close(resolve));
      await mcp.close();
    },
  };
}
