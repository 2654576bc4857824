// The share-link plugin on a bare Fastify instance: the page carries the card with the link's
// spec and values computed, the JSON endpoints answer like the card tools, bad links are refused.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerShareRoutes } from '../../src/http/share-routes.js';
import { CardRunner, specHash } from '../../src/service/card-runner.js';
import { shareLinkBuilder } from '../../src/service/share-links.js';
import { carLoan, type Json } from './helpers.js';

const links = shareLinkBuilder('http://localhost');
const pathOf = (url: string): string => url.slice('http://localhost'.length);
const TEMPLATE =
  '<!doctype html><html><head><title>card</title><script type="module">boot()</script></head><body></body></html>';

/** The data the page hands the card. */
function injected(body: string): Json {
  const m = /window\.__MODELWORKS_SHARE__=(.*?)<\/script>/s.exec(body);
  if (!m) throw new Error('no share data in the page');
  return JSON.parse(m[1]!) as Json;
}

describe('share routes', () => {
  let app: FastifyInstance;
  let runner: CardRunner;
  beforeEach(async () => {
    app = Fastify();
    runner = new CardRunner();
    registerShareRoutes(app, { runner, html: () => TEMPLATE });
    await app.ready();
  });
  afterEach(() => app.close());

  it('keeps a spec text that closes the script element inside the page data', async () => {
    const hostile = '</script><script>alert(1)</script><!-- \u2028';
    const spec = carLoan();
    spec.schema.properties.vehiclePrice.description = hostile;
    const url = pathOf(links.shareUrl({ spec, inputs: {} })!);
    const page = await app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<!--');
    // the text arrives intact in the data the card reads
    expect(injected(page.body).card.spec.schema.properties.vehiclePrice.description).toBe(hostile);
  });

  it('sends the page compressed as accepted, with an entity tag; 304 when the copy is current', async () => {
    const url = pathOf(links.shareUrl({ spec: carLoan(), inputs: { '$.deposit': 8000 } })!);
    const plain = await app.inject({ method: 'GET', url });
    const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gunzipSync(gz.rawPayload).toString('utf8')).toBe(plain.body);
    expect(gz.headers.vary).toBe('Accept-Encoding');
    // the same link gives the same page and tag
    const tag = String(gz.headers.etag);
    const again = await app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip', 'if-none-match': tag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    // another link: another page
    const other = pathOf(links.shareUrl({ spec: carLoan(), inputs: { '$.deposit': 9000 } })!);
    const changed = await app.inject({
      method: 'GET',
      url: other,
      headers: { 'accept-encoding': 'gzip', 'if-none-match': tag },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
  });

  it('serves the card with the values carried in the link, computed, and a strict CSP', async () => {
    const url = links.shareUrl({ spec: carLoan(), inputs: { '$.deposit': 8000 } })!;
    const res = await app.inject({ method: 'GET', url: pathOf(url) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none';/);
    const data = injected(res.body);
    expect(data).toMatchObject({ api: '/share/api', embed: false });
    expect(data.card).toMatchObject({
      mode: 'stateless',
      specHash: specHash(carLoan()),
      given: { '$.deposit': 8000 },
    });
    expect(data.card.state).toMatchObject({ deposit: 8000, amountFinanced: 16000 });
    // injected ahead of the card's own script, which then finds it
    expect(res.body.indexOf('__MODELWORKS_SHARE__')).toBeLessThan(res.body.indexOf('boot()'));
    const embed = await app.inject({
      method: 'GET',
      url: pathOf(links.embedUrl({ spec: carLoan(), inputs: {} })!),
    });
    expect(embed.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(injected(embed.body).embed).toBe(true);
  });

  it('keeps the page safe from a spec that carries markup', async () => {
    const spec = carLoan();
    spec.viewDefinition.views[0].label = '</script><script>alert(1)</script>';
    const res = await app.inject({ method: 'GET', url: pathOf(links.shareUrl({ spec, inputs: {} })!) });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>alert(1)');
    expect(injected(res.body).card.views[0].title).toBe('</script><script>alert(1)</script>');
  });

  it('refuses a link that carries no model (400) and one whose spec is invalid (422)', async () => {
    expect((await app.inject({ method: 'GET', url: '/share/card?m=not!base64' })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/share/card' })).statusCode).toBe(400);
    const spec = carLoan();
    spec.tests[0].expect['$.monthlyPayment'] = 1;
    const res = await app.inject({ method: 'GET', url: pathOf(links.shareUrl({ spec, inputs: {} })!) });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('failed');
  });

  it('recomputes and explains like the card tools, with spec_unknown for a spec it does not hold', async () => {
    const spec = carLoan();
    const hash = specHash(spec);
    const unknown = await app.inject({
      method: 'POST',
      url: '/share/api/valem_recompute',
      payload: { specHash: hash, inputs: { '$.years': 5 } },
    });
    expect(unknown.json()).toMatchObject({ isError: true, structuredContent: { error: 'spec_unknown' } });
    const ok = await app.inject({
      method: 'POST',
      url: '/share/api/valem_recompute',
      payload: { specHash: hash, inputs: { '$.years': 5 }, spec },
    });
    expect(ok.json()).toMatchObject({
      isError: false,
      structuredContent: { specHash: hash, state: { payments: 60 } },
    });
    const refused = await app.inject({
      method: 'POST',
      url: '/share/api/valem_recompute',
      payload: { specHash: hash, inputs: { '$.deposit': 1e9 } },
    });
    expect(refused.json().structuredContent).toMatchObject({ rejected: true });
    const why = await app.inject({
      method: 'POST',
      url: '/share/api/explain_value',
      payload: { specHash: hash, path: '$.payments' },
    });
    expect(why.json()).toMatchObject({
      structuredContent: { kind: 'computed', value: 48, expression: 'years * 12' },
    });
  });
});
