/**
 * The built browser sandbox (web/sandbox.html, `npm run build:sandbox`): one self-contained HTML
 * file that `modelworks serve` shows at /sandbox to a paired browser.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Built by `npm run build:sandbox` (vite, one self-contained file). */
export const SANDBOX_HTML_PATH = `${packageRoot}dist/web/sandbox.html`;

let cachedHtml: string | undefined;
/** The sandbox page's HTML; read again while it is missing, so a build during a session is picked up. */
export function sandboxHtml(): string {
  if (cachedHtml !== undefined) return cachedHtml;
  try {
    cachedHtml = readFileSync(SANDBOX_HTML_PATH, 'utf8');
    return cachedHtml;
  } catch {
    throw new Error(`the sandbox page is not built (${SANDBOX_HTML_PATH}); run npm run build:sandbox`);
  }
}
