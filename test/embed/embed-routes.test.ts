// The embed routes in process: who may frame the page (MODELWORKS_EMBED_ALLOWED_ORIGINS → CSP),
// what needs the key (a stored model's card) and what does not (the page, the element, a spec's
// private copy), and refusals in our words.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { embedCsp, embedOriginsFromEnv } from '../../src/http/embed-routes.js';
import { CalcService } from '../../src/service/calc-service.js';
import { CardRunner } from '../../src/service/card-runner.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { carLoanSpec } from '../client/helpers.js';

const KEY = 'embed-routes-key';

describe('MODELWORKS_EMBED_ALLOWED_ORIGINS', () => {
  it('is loopback pages by default, a list of origins, or any', () => {
    expect(embedOriginsFromEnv({})).toEqual({ kind: 'loopback' });
    expect(embedCsp(embedOriginsFromEnv({}))).toContain(
      "frame-ancestors 'self' http://localhost:* http://127.0.0.1:*",
    );
    const list = embedOriginsFromEnv({
      MODELWORKS_EMBED_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080',
    });
    expect(list).toEqual({ kind: 'list', origins: ['https://a.example', 'http://b.example:8080'] });
    expect(embedCsp(list)).toContain("frame-ancestors 'self' https://a.example http://b.example:8080");
    expect(embedCsp(embedOriginsFromEnv({ MODELWORKS_EMBED_ALLOWED_ORIGINS: '*' }))).toContain(
      'frame-ancestors *',
    );
  });

  it('refuses what is not an origin, naming it', () => {
    for (const bad of [
      'https://a.example/path',
      'a.example',
      "https://a.example 'unsafe-inline'",
      'javascript:alert(1)',
    ])
      expect(() => embedOriginsFromEnv({ MODELWORKS_EMBED_ALLOWED_ORIGINS: bad })).toThrow(
        /is not an origin/,
      );
  });
});

describe('embed routes on a keyed server', () => {
  let app: FastifyInstance;
  let calc: CalcService;
  beforeAll(async () => {
    calc = new CalcService(new MemoryStore());
    await calc.createModel(carLoanSpec('stored'));
    app = await buildApp({ calc, apiKey: KEY, share: { runner: new CardRunner() } });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await calc.close();
  });

  it('serves the page without the key, with its CSP', async () => {
    const res = await app.inject({ method: 'GET', url: '/embed' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'self' http:\/\/localhost:\*/);
    // nothing loads from elsewhere: every kind of source falls back to none
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none';/);
    expect(res.body).toContain('__MODELWORKS_EMBED__');
  });

  it("opens a spec's private copy without the key, and says why a bad spec cannot be shown", async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/embed/api/open',
      payload: { spec: carLoanSpec('copy') },
    });
    expect(ok.json()).toMatchObject({
      isError: false,
      structuredContent: { mode: 'stateless', modelId: 'copy' },
    });
    // a private copy: nothing stored
    expect(await calc.listModels()).toEqual(['stored']);
    const bad = await app.inject({ method: 'POST', url: '/embed/api/open', payload: { spec: { id: 'x' } } });
    expect(bad.statusCode).toBe(200);
    expect(bad.json()).toMatchObject({ isError: true, structuredContent: { valid: false } });
  });

  it("keeps a stored model's card behind the key", async () => {
    const refused = await app.inject({ method: 'POST', url: '/embed/api/models/stored/card', payload: {} });
    expect(refused.statusCode).toBe(401);
    const read = await app.inject({
      method: 'POST',
      url: '/embed/api/models/stored/card',
      headers: { authorization: `Bearer ${KEY}` },
      payload: { mutations: { '$.deposit': 999999 } },
    });
    expect(read.json()).toMatchObject({ structuredContent: { rejected: true } });
    const written = await app.inject({
      method: 'POST',
      url: '/embed/api/models/stored/card',
      headers: { authorization: `Bearer ${KEY}` },
      payload: { mutations: { '$.deposit': 5000 } },
    });
    expect(written.json()).toMatchObject({ structuredContent: { mode: 'stored', state: { deposit: 5000 } } });
  });
});
