// The built sandbox page (npm run build:sandbox): one self-contained HTML file that loads nothing
// from elsewhere and uses no eval, so it runs under /sandbox's strict Content-Security-Policy.
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_HTML_PATH, sandboxHtml } from '../../src/service/web-assets.js';

describe('the built sandbox page', () => {
  let html = '';
  beforeAll(() => {
    if (!existsSync(SANDBOX_HTML_PATH))
      throw new Error(`${SANDBOX_HTML_PATH} is missing: run npm run build:sandbox`);
    html = readFileSync(SANDBOX_HTML_PATH, 'utf8');
  });

  it('is one HTML file under 500 KB gzip, served as is by sandboxHtml()', () => {
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<title>Modelworks sandbox</title>');
    expect(gzipSync(html).length).toBeLessThan(500 * 1024);
    expect(sandboxHtml()).toBe(html);
  });

  it('inlines its scripts and styles and points at no other file', () => {
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*\shref=/i);
    expect(html).not.toMatch(/<img[^>]*\ssrc="?(https?:|\/\/)/i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(https?:|\/\/)/i);
    expect(html).toMatch(/<script type="module"[^>]*>[\s\S]{1000,}<\/script>/);
    expect(html).toMatch(/<style[^>]*>[\s\S]{100,}<\/style>/);
  });

  it('needs no eval (the CSP allows inline scripts only)', () => {
    expect(html).not.toMatch(/\beval\(|new Function\(/);
  });

  it('reads the session token the approve page stores, and sends it as X-Session-Token', () => {
    expect(html).toContain('modelworks.sandboxToken');
    expect(html.toLowerCase()).toContain('x-session-token');
    expect(html).toContain('Not paired: open the link your agent gave you');
  });
});
