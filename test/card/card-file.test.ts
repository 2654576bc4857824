// The built card (npm run build:card): one self-contained HTML file of about 310 KB (90 KB gzip),
// with no external scripts, styles or images, served as ui://valem/model-card.html.
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CARD_HTML_PATH } from '../../src/mcp/card-tools.js';
import { linked } from './helpers.js';

describe('the built model card', () => {
  let html = '';
  beforeAll(() => {
    if (!existsSync(CARD_HTML_PATH)) throw new Error(`${CARD_HTML_PATH} is missing: run npm run build:card`);
    html = readFileSync(CARD_HTML_PATH, 'utf8');
  });

  it('is one HTML file of at most 500 KB (120 KB gzip) that loads nothing from elsewhere', () => {
    // issue 21: it was 1.19 MB (318 KB gzip) with recharts, all of zod's message locales and
    // react-dom; Preact's compatibility layer stands in for React
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(500 * 1024);
    expect(gzipSync(html).length).toBeLessThanOrEqual(120 * 1024);
    expect(html).not.toContain('recharts');
    expect(html).not.toContain('react.dev/errors'); // React's own runtime (its error links) is not bundled
    expect(html).toMatch(/^<!doctype html>/i);
    // scripts and styles are inlined: no src/href pointing at another file
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*rel="?(stylesheet|modulepreload|preload)/i);
  });

  it('is served as ui://valem/model-card.html with the MCP Apps MIME type', async () => {
    const peer = await linked();
    const { contents } = await peer.client.readResource({ uri: 'ui://valem/model-card.html' });
    expect(contents[0]).toMatchObject({
      uri: 'ui://valem/model-card.html',
      mimeType: 'text/html;profile=mcp-app',
    });
    expect((contents[0] as { text: string }).text).toBe(html);
    await peer.close();
  });
});
