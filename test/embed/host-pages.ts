// Host pages for the embed tests: plain HTTP servers on their own ports (so their own origins),
// serving the pages a test writes, and nothing else.
import { createServer, type Server } from 'node:http';

export interface HostServer {
  origin: string;
  /** Sets what a path answers (HTML). */
  page(path: string, html: string): void;
  close(): Promise<void>;
}

export async function startHost(port: number): Promise<HostServer> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split(/[?#]/)[0]!;
    const html = pages.get(path);
    if (html === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    page: (path, html) => pages.set(path, html),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A host page: the element (as the given attributes) and a log of its events in `window.events`. */
export function elementPage(serve: string, attributes: string, extra = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Host</title>
<script type="module" src="${serve}/embed/element.js"></script></head><body>
<h1>A host page</h1>
<modelworks-model id="model" ${attributes}></modelworks-model>
<script>
window.events = [];
for (const name of ['ready', 'change', 'constraint', 'error', 'height'])
  document.addEventListener('modelworks-' + name, (e) => window.events.push({ type: name, detail: e.detail }));
</script>
${extra}
</body></html>`;
}

/** HTML attribute text. */
export const attr = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
