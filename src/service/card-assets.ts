/**
 * The built model card (web/, `npm run build:card`): one self-contained HTML file, served by the
 * MCP server as ui://valem/model-card.html and by the share routes outside any chat.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Built by `npm run build:card` (vite, one self-contained file). */
export const CARD_HTML_PATH = `${packageRoot}dist/web/model-card.html`;

let cachedHtml: string | undefined;
/** The card's HTML; read again while it is missing, so a build during a session is picked up. */
export function cardHtml(): string {
  if (cachedHtml !== undefined) return cachedHtml;
  try {
    cachedHtml = readFileSync(CARD_HTML_PATH, 'utf8');
    return cachedHtml;
  } catch {
    throw new Error(`the model card is not built (${CARD_HTML_PATH}); run npm run build:card`);
  }
}
