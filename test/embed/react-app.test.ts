/**
 * modelworks/react as an app developer gets it: `npm pack` of the project (dist/ as built; `npm
 * test` builds first), the tarball unpacked as a fresh Vite + React app's dependency, `vite build`
 * of that app, and the built app in Chromium rendering <ModelworksModel> against a live `modelworks
 * serve`. Offline: the app's react, react-dom and vite are links to this project's node_modules
 * (the package's own runtime dependencies are not needed by the browser entry points).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM } from '../helpers/chromium.js';
import { carLoanSpec, freePort, startServe, type Serve } from '../client/helpers.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 5 * 60_000, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  const out = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${out}`);
  return out;
}

const APP = `import { createElement, useRef } from 'react';
import { createRoot } from 'react-dom/client';
import { ModelworksModel } from 'modelworks/react';
import spec from './spec.json';

window.events = [];
const log = (type) => (detail) => window.events.push({ type, detail });
function App() {
  const model = useRef(null);
  window.model = model;
  return createElement('main', null,
    createElement('h1', null, 'A Vite + React app'),
    createElement(ModelworksModel, {
      ref: model,
      spec,
      server: new URLSearchParams(location.search).get('server'),
      height: 'auto',
      onReady: log('ready'),
      onChange: log('change'),
      onConstraint: log('constraint'),
      onError: log('error'),
    }));
}
createRoot(document.getElementById('root')).render(createElement(App));
`;

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

describe.skipIf(!CHROMIUM)(
  browserSuite('modelworks/react in a fresh Vite app', 'test/embed/react-app.test.ts'),
  () => {
    let work = '';
    let serve: Serve;
    let site: Server;
    let siteUrl = '';
    let browser: Browser;

    beforeAll(async () => {
      expect(existsSync(join(root, 'dist/embed/react.js')), 'build first (npm run build)').toBe(true);
      work = mkdtempSync(join(tmpdir(), 'modelworks-react-app-'));
      console.log(`react app folder: ${work}`);
      run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root);
      const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'))!;
      const app = join(work, 'app');
      const modules = join(app, 'node_modules');
      mkdirSync(join(modules, 'modelworks'), { recursive: true });
      run(
        'tar',
        ['-xzf', join(work, tarball), '-C', join(modules, 'modelworks'), '--strip-components=1'],
        work,
      );
      for (const dep of ['react', 'react-dom', 'vite', 'scheduler'])
        if (existsSync(join(root, 'node_modules', dep)))
          symlinkSync(join(root, 'node_modules', dep), join(modules, dep), 'dir');
      mkdirSync(join(app, 'src'));
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({
          name: 'fresh-app',
          private: true,
          type: 'module',
          dependencies: { modelworks: `file:../${tarball}` },
        }),
      );
      writeFileSync(
        join(app, 'index.html'),
        '<!doctype html><html><head><meta charset="utf-8"><title>App</title></head><body><div id="root"></div><script type="module" src="/src/main.js"></script></body></html>',
      );
      writeFileSync(join(app, 'src/main.js'), APP);
      writeFileSync(join(app, 'src/spec.json'), JSON.stringify(carLoanSpec('react-loan')));
      run(process.execPath, [join(modules, 'vite/bin/vite.js'), 'build', '--logLevel', 'warn'], app);
      const dist = join(app, 'dist');
      site = createServer((req, res) => {
        const path = (req.url ?? '/').split('?')[0]!;
        const file = join(dist, path === '/' ? 'index.html' : path);
        if (!file.startsWith(dist) || !existsSync(file)) return void res.writeHead(404).end();
        res
          .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
          .end(readFileSync(file));
      });
      const port = await freePort();
      await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
      siteUrl = `http://127.0.0.1:${port}`;
      serve = await startServe({ store: 'memory' });
      browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    }, 300_000);
    afterAll(async () => {
      await browser?.close();
      await serve?.child.stop();
      await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
    });

    it('packs the entry points', () => {
      const pkg = JSON.parse(
        readFileSync(join(work, 'app/node_modules/modelworks/package.json'), 'utf8'),
      ) as {
        exports: Record<string, unknown>;
        peerDependencies: Record<string, string>;
      };
      expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining(['./client', './embed', './react']));
      expect(pkg.peerDependencies.react).toBeDefined();
      for (const file of ['dist/embed/react.js', 'dist/embed/element.js', 'dist/client/index.js'])
        expect(existsSync(join(work, 'app/node_modules/modelworks', file)), file).toBe(true);
    });

    it(
      'renders <ModelworksModel> in the built app and calls its callbacks',
      { timeout: 90_000 },
      async () => {
        const page = await browser.newPage();
        page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
        await page.goto(`${siteUrl}/?server=${encodeURIComponent(serve.url)}`);
        const events = () => page.evaluate<{ type: string; detail: Record<string, any> }[]>('window.events'); // eslint-disable-line @typescript-eslint/no-explicit-any
        await expect
          .poll(async () => (await events()).find((e) => e.type === 'ready')?.detail.modelId, {
            timeout: 30_000,
          })
          .toBe('react-loan');
        const deposit = page.frameLocator('modelworks-model iframe').getByLabel('Deposit', { exact: true });
        expect(await deposit.inputValue()).toBe('4,000');
        // the ref is the element: the app edits the model through it
        await page.evaluate(`window.model.current.set({ '$.deposit': 6000 })`);
        await expect
          .poll(async () => (await events()).find((e) => e.type === 'change')?.detail.state.amountFinanced)
          .toBe(18000);
        await page.evaluate(`window.model.current.set({ '$.deposit': 999999 })`);
        await expect
          .poll(async () => (await events()).some((e) => e.type === 'constraint' && e.detail.rejected))
          .toBe(true);
        await page.close();
      },
    );
  },
);
