/**
 * The built web pages (web/, `npm run build`): each one self-contained HTML file. The model card is
 * served by the MCP server as ui://valem/model-card.html and by the share routes outside any chat;
 * the sandbox is what `modelworks serve` shows at /sandbox to a paired browser.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A built page's HTML, read once it exists (read again while missing, so a build mid-session counts). */
function builtPage(path: string, what: string, script: string): () => string {
  let cached: string | undefined;
  return () => {
    if (cached !== undefined) return cached;
    try {
      cached = readFileSync(path, 'utf8');
      return cached;
    } catch {
      throw new Error(`the ${what} is not built (${path}); run npm run ${script}`);
    }
  };
}

/** Built by `npm run build:card` (vite, one self-contained file). */
export const CARD_HTML_PATH = `${packageRoot}dist/web/model-card.html`;
export const cardHtml = builtPage(CARD_HTML_PATH, 'model card', 'build:card');

/** Built by `npm run build:sandbox` (vite, one self-contained file). */
export const SANDBOX_HTML_PATH = `${packageRoot}dist/web/sandbox.html`;
export const sandboxHtml = builtPage(SANDBOX_HTML_PATH, 'sandbox page', 'build:sandbox');
