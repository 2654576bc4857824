// The synth Service's HTTP app (Fastify, driven with inject) over a real SynthService: routes,
// bearer token, structured errors, size limits, paging, idle eviction and the bounded queue.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SynthService, type SynthServiceOptions } from '../../src/service/synth-service.js';
import { buildSynthServiceApp } from '../../src/synth-service-http/app.js';
import { grind } from '../synth/helpers.js';
import { SKIRMISH, SUPPORT_QUEUE, type Json } from './helpers.js';

let app: FastifyInstance | undefined;
let service: SynthService | undefined;

function make(options: SynthServiceOptions = {}, token?: string): FastifyInstance {
  service = new SynthService(options);
  app = buildSynthServiceApp({ service, ...(token ? { token } : {}) });
  return app;
}

afterEach(async () => {
  await app?.close();
  await service?.close();
  app = service = undefined;
});

const auth = { authorization: 'Bearer s3cret' };

describe('synth Service HTTP app', () => {
  it('DELETE /v1/models/{id} with a JSON content type and no body deletes (no 400)', async () => {
    const a = make();
    const post = await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SKIRMISH } });
    const { modelId } = post.json<{ modelId: string }>();
    const json = { 'content-type': 'application/json' };
    const del = await a.inject({ method: 'DELETE', url: `/v1/models/${modelId}`, headers: json });
    expect(del.statusCode).toBe(204);
    const again = await a.inject({ method: 'DELETE', url: `/v1/models/${modelId}`, headers: json });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ error: { code: 'MODEL_NOT_FOUND' } });
    const empty = await a.inject({ method: 'POST', url: '/v1/models', headers: json });
    expect(empty.statusCode).toBe(400);
  });

  it('requires the bearer token on /v1 when one is configured, never on /health', async () => {
    const a = make({}, 's3cret');
    expect((await a.inject({ url: '/health' })).statusCode).toBe(200);
    const missing = await a.inject({ url: '/v1/components' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: expect.stringContaining('missing bearer token') as unknown },
    });
    const wrong = await a.inject({ url: '/v1/components', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.message).toContain('wrong token');
    const post = await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SKIRMISH } });
    expect(post.statusCode).toBe(401);
    expect(service!.listModels()).toEqual([]); // refused before anything happened
    expect((await a.inject({ url: '/v1/components', headers: auth })).statusCode).toBe(200);
  });

  it('lists components (whole, by name, by category) as list_components does', async () => {
    const a = make();
    const all = (await a.inject({ url: '/v1/components' })).json<Json>();
    expect(all).toEqual(service!.components());
    expect(all.edition).toBe('Pro'); // the full build names itself as the vendor's Pro edition
    const one = (await a.inject({ url: '/v1/components?name=Poisson' })).json<Json>();
    expect(one.components.map((c: Json) => c.name)).toEqual(['Poisson']);
    const gens = (await a.inject({ url: '/v1/components?category=generator' })).json<Json>();
    expect(gens.totalCount).toBe(gens.components.length);
    const unknown = await a.inject({ url: '/v1/components?name=Nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('COMPONENT_NOT_FOUND');
    expect((await a.inject({ url: '/v1/components?name=Normal&category=filter' })).statusCode).toBe(400);
  });

  it('serves the allowlists in the wire shape', async () => {
    const a = make({
      allowlists: () => ({
        flatFilePathAllowlist: ['/data'],
        databaseUrlAllowlist: [],
        databaseAllowQuery: true,
        serviceUrlAllowlist: ['https://x.example/'],
      }),
      customComponentDirs: () => ['/srv/components'],
    });
    expect((await a.inject({ url: '/v1/allowlists' })).json()).toEqual({
      flatFilePathAllowlist: ['/data'],
      databaseUrlAllowlist: [],
      databaseAllowQuery: true,
      serviceUrlAllowlist: ['https://x.example/'],
      customComponentDirAllowlist: ['/srv/components'],
    });
  });

  it('registers models (JSON or plain text), lists, reads and deletes them', async () => {
    const a = make();
    const r1 = await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SUPPORT_QUEUE } });
    expect(r1.statusCode).toBe(201);
    const m1 = r1.json<Json>();
    expect(m1).toMatchObject({ rootName: 'Ticket', nodeCount: 13 });
    expect(m1.modelId).toMatch(/^m-[0-9a-f]{16}$/);
    expect(m1.sha256).toMatch(/^[0-9a-f]{64}$/);
    const r2 = await a.inject({
      method: 'POST',
      url: '/v1/models',
      headers: { 'content-type': 'text/plain' },
      payload: SKIRMISH,
    });
    expect(r2.statusCode).toBe(201);
    const m2 = r2.json<Json>();
    expect(m2.rootName).toBe('Round');
    const list = (await a.inject({ url: '/v1/models' })).json<Json>();
    expect(list.models.map((m: Json) => m.modelId).sort()).toEqual([m1.modelId, m2.modelId].sort());
    expect((await a.inject({ url: `/v1/models/${m1.modelId}` })).json().rootName).toBe('Ticket');
    expect((await a.inject({ method: 'DELETE', url: `/v1/models/${m1.modelId}` })).statusCode).toBe(204);
    const gone = await a.inject({ url: `/v1/models/${m1.modelId}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toMatchObject({ code: 'MODEL_NOT_FOUND', modelId: m1.modelId });
    const gen = await a.inject({
      method: 'POST',
      url: '/v1/generate',
      payload: { modelId: m1.modelId, count: 1 },
    });
    expect(gen.statusCode).toBe(404);
  });

  it('refuses bad models, bad bodies and oversized bodies with structured errors', async () => {
    const a = make();
    const bad = await a.inject({
      method: 'POST',
      url: '/v1/models',
      payload: { modelText: 'dataset.root = A\nA = Nope()\n' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.code).toBe('MODEL_INVALID');
    expect(bad.json().error.validation).toMatchObject({ valid: false });
    const invalid = await a.inject({
      method: 'POST',
      url: '/v1/models',
      payload: { modelText: 'dataset.root = M\nM = Mix((A, 1))\nA = Uniform()\n' },
    });
    expect(invalid.json().error.validation.failures[0]).toMatchObject({ nodeType: 'Mix' });
    expect(
      (await a.inject({ method: 'POST', url: '/v1/models', payload: { text: 'x' } })).json().error.code,
    ).toBe('BAD_REQUEST');
    const notJson = await a.inject({
      method: 'POST',
      url: '/v1/models',
      headers: { 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().error.code).toBe('BAD_REQUEST');
    const huge = await a.inject({
      method: 'POST',
      url: '/v1/models',
      payload: { modelText: `${SKIRMISH}\n${'#'.repeat(2 * 1024 * 1024)}` },
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('TOO_LARGE');
    const route = await a.inject({ url: '/v2/nothing' });
    expect(route.statusCode).toBe(404);
    expect(route.json().error.code).toBe('NOT_FOUND');
    expect(service!.listModels()).toEqual([]);
  });

  it('generates g-… generations and pages them back to exactly the grind output', async () => {
    const a = make();
    const { modelId } = (
      await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SUPPORT_QUEUE } })
    ).json<Json>();
    const gen = (
      await a.inject({
        method: 'POST',
        url: '/v1/generate',
        payload: { modelId, count: 3000, seed: '42', previewLimit: 10 },
      })
    ).json<Json>();
    expect(gen).toMatchObject({
      modelId,
      count: 3000,
      rowCount: 10,
      totalCount: 3000,
      hasMore: true,
      seed: '42',
      seedSource: 'request',
    });
    expect(gen.generationId).toMatch(/^g-[0-9a-f]{16}$/);
    let text = '';
    let offset = 0;
    let pages = 0;
    for (;;) {
      const page = (
        await a.inject({
          url: `/v1/generate/${gen.generationId}/data?offset=${offset}&limit=1000&maxChars=30000`,
        })
      ).json<Json>();
      expect(page.offset).toBe(offset);
      text += page.data;
      offset += page.rowCount;
      pages++;
      if (!page.hasMore) break;
      expect(page.nextOffset).toBe(offset);
    }
    expect(pages).toBeGreaterThan(3); // maxChars kept pages below the 1,000-row limit
    expect(text).toBe(grind(SUPPORT_QUEUE, 42n, 3000));
    const info = (await a.inject({ url: `/v1/generate/${gen.generationId}` })).json<Json>();
    expect(info).toMatchObject({ count: 3000, format: 'csv', seed: '42', bytes: Buffer.byteLength(text) });
    expect((await a.inject({ url: `/v1/generate/${gen.generationId}/data?offset=-1` })).statusCode).toBe(400);
    expect((await a.inject({ url: `/v1/generate/${gen.generationId}/data?limit=abc` })).statusCode).toBe(400);
    expect((await a.inject({ method: 'DELETE', url: `/v1/generate/${gen.generationId}` })).statusCode).toBe(
      204,
    );
    const gone = await a.inject({ url: `/v1/generate/${gen.generationId}/data` });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('GENERATION_NOT_FOUND');
  });

  it('refuses a generation over the size cap on the projection, before generating it', async () => {
    const a = make({ serviceMaxBytes: 50_000 });
    const { modelId } = (
      await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SUPPORT_QUEUE } })
    ).json<Json>();
    const r = await a.inject({ method: 'POST', url: '/v1/generate', payload: { modelId, count: 2_000_000 } });
    expect(r.statusCode).toBe(413);
    expect(r.json().error).toMatchObject({ code: 'TOO_LARGE', maxBytes: 50_000 });
    // 2M rows of 7 columns: 14 MB even at the shortest (7 bytes a row), refused before any row
    expect(r.json().error.projectedBytes).toBeGreaterThanOrEqual(14_000_000);
    const over = await a.inject({
      method: 'POST',
      url: '/v1/generate',
      payload: { modelId, count: 2_000_001 },
    });
    expect(over.json().error.code).toBe('TOO_LARGE');
  });

  it('forgets a model after the idle timeout; using it keeps it alive', async () => {
    let now = 1_000_000;
    const a = make({ modelIdleTimeoutMs: 60_000, now: () => now });
    const m1 = (
      await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SKIRMISH } })
    ).json<Json>();
    const m2 = (
      await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SKIRMISH } })
    ).json<Json>();
    expect(m2.modelId).not.toBe(m1.modelId); // every registration is its own
    now += 40_000;
    expect(
      (await a.inject({ method: 'POST', url: '/v1/generate', payload: { modelId: m2.modelId, count: 1 } }))
        .statusCode,
    ).toBe(200);
    now += 40_000;
    expect((await a.inject({ url: `/v1/models/${m1.modelId}` })).statusCode).toBe(404);
    expect((await a.inject({ url: `/v1/models/${m2.modelId}` })).statusCode).toBe(200);
  });

  it("pauses a model's idle clock while its generation runs, and restarts it at the end", async () => {
    let now = 1_000_000;
    const s = new SynthService({ modelIdleTimeoutMs: 60_000, now: () => now });
    service = s;
    const { modelId } = await s.registerModel(SUPPORT_QUEUE);
    const running = s.generate(modelId, { count: 200_000, seed: 1, previewLimit: 1 });
    await new Promise<void>((resolve) => setImmediate(resolve)); // let it start its first slice
    expect(s.stats.queueDepth).toBe(1); // still generating: the rest of the test needs that
    now += 120_000; // two idle timeouts pass during the generation
    expect(s.listModels().map((m) => m.modelId)).toContain(modelId);
    const done = await running;
    expect(done.totalCount).toBe(200_000);
    now += 40_000; // less than the timeout since the generation ended
    expect(s.listModels().map((m) => m.modelId)).toContain(modelId);
    now += 40_000;
    expect(s.listModels()).toEqual([]);
  });

  it('runs generations one at a time and refuses work beyond the queue bound', async () => {
    const a = make({ maxQueue: 1 });
    const { modelId } = (
      await a.inject({ method: 'POST', url: '/v1/models', payload: { modelText: SUPPORT_QUEUE } })
    ).json<Json>();
    const replies = await Promise.all(
      [1, 2, 3, 4].map((seed) =>
        a.inject({
          method: 'POST',
          url: '/v1/generate',
          payload: { modelId, count: 100_000, seed, previewLimit: 1 },
        }),
      ),
    );
    const codes = replies.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(2);
    const busy = replies.filter((r) => r.statusCode === 429);
    expect(busy.length).toBeGreaterThanOrEqual(1);
    expect(busy[0]!.json().error.code).toBe('BUSY');
  });
});
