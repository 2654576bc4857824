/**
 * The built web pages (web/, `npm run build`): each one self-contained HTML file. The model card is
 * served by the MCP server as ui://valem/model-card.html and by the share routes outside any chat;
 * the sandbox is what `modelworks serve` shows at /sandbox to a paired browser.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';

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

/**
 * A page ready to send: its bytes, an entity tag from its content, and its gzip and brotli forms
 * (each made on first use, then kept). Pages are built single files of up to ~0.5 MB that
 * compress to a fifth or less.
 */
export interface EncodedPage {
  /** Strong entity tag (quoted) of the plain bytes; each encoding's tag adds its name. */
  etag: string;
  identity: Buffer;
  encoded(coding: 'br' | 'gzip'): Buffer;
}

/**
 * Encodes a page. `thorough` (a page encoded once per process) takes stronger settings (brotli 9:
 * ~0.15 s for the sandbox, 7% larger than brotli 11 at a tenth of its time); otherwise quick ones
 * suit a page made per request (a share link's card, ~20 ms).
 */
export function encodePage(html: string, thorough = false): EncodedPage {
  const identity = Buffer.from(html, 'utf8');
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 27);
  const made = new Map<'br' | 'gzip', Buffer>();
  const make = (coding: 'br' | 'gzip'): Buffer =>
    coding === 'gzip'
      ? gzipSync(identity, { level: thorough ? 9 : 6 })
      : brotliCompressSync(identity, {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: thorough ? 9 : 5,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: identity.length,
          },
        });
  return {
    etag: `"${hash}"`,
    identity,
    encoded: (coding) => {
      let out = made.get(coding);
      if (!out) made.set(coding, (out = make(coding)));
      return out;
    },
  };
}

const encodedBuilt = new Map<string, EncodedPage>();

/**
 * A built page's encodings, made once per process for each text it has (the built files do not
 * change while running; a rebuild during a session is a new text).
 */
export function encodedOnce(read: () => string): () => EncodedPage {
  return () => {
    const text = read();
    let page = encodedBuilt.get(text);
    if (!page) {
      if (encodedBuilt.size >= 4) encodedBuilt.clear(); // a few pages, a few rebuilds at most
      encodedBuilt.set(text, (page = encodePage(text, true)));
    }
    return page;
  };
}
