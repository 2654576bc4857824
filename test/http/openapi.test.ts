// The OpenAPI document is generated from the route schemas: every registered route is in it
// (and nothing else), so a route added without a schema, or a stale document, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, registeredRoutes } from '../../src/http/app.js';
import { CalcService } from '../../src/service/calc-service.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { createMcpServer } from '../../src/mcp/server.js';
import type { FastifyInstance } from 'fastify';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Routes that are deliberately not REST operations. */
const UNDOCUMENTED = new Set(['/openapi.json', '/mcp']);

let app: FastifyInstance;
let calc: CalcService;
const routes: { method: string; url: string }[] = [];

beforeAll(async () => {
  calc = new CalcService(new MemoryStore());
  app = await buildApp({
    calc,
    createMcpServer: () =>
      createMcpServer({ calc, guidanceTopics: [], groups: new Set(['calc']), modeLine: 'test' }),
  });
  await app.ready();
  routes.push(...registeredRoutes(app));
});
afterAll(async () => {
  await app.close();
  await calc.close();
});

/** `/models/:id/state/:path` → `/models/{id}/state/{path}`. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

describe('/openapi.json', () => {
  it('is an OpenAPI 3 document listing exactly the registered routes', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBe('Modelworks calc API');
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Json))
      for (const method of Object.keys(ops as Json)) documented.add(`${method.toUpperCase()} ${path}`);
    const registered = new Set(
      routes
        .filter((r) => !UNDOCUMENTED.has(r.url) && r.method !== 'HEAD')
        .map((r) => `${r.method} ${openApiPath(r.url)}`),
    );
    expect([...documented].sort()).toEqual([...registered].sort());
    // the spec's endpoints are all there
    for (const op of [
      'POST /models',
      'POST /models/{id}/mutations/patch',
      'GET /models/{id}/state/{path}',
      'GET /models/{id}/explain/{path}',
      'GET /models/{id}/audit/verify',
      'POST /models/{id}/spec/evolve',
      'GET /models/{id}/subscribe',
      'POST /blobs',
      'GET /models/{id}/blobs/{blobId}',
    ])
      expect(documented.has(op), op).toBe(true);
  });

  it('documents parameters and error responses', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
    const mutate = doc.paths['/models/{id}/mutations'].post;
    expect(mutate.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(['id', 'traces']));
    expect(Object.keys(mutate.responses)).toEqual(
      expect.arrayContaining(['200', '404', '409', '422', '429']),
    );
  });

  it('documents expectedRevision on every write and the Model-Revision header of the state', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
    for (const path of [
      '/models/{id}/mutations',
      '/models/{id}/mutations/patch',
      '/models/{id}/spec/evolve',
    ]) {
      const op = doc.paths[path].post;
      const param = op.parameters.find((p: Json) => p.name === 'expectedRevision');
      expect(param, path).toMatchObject({
        in: 'query',
        required: false,
        schema: { type: 'integer', minimum: 0 },
      });
      expect(op.responses['409'].description, path).toContain('Version conflict');
    }
    const state = doc.paths['/models/{id}/state'].get.responses['200'];
    expect(state.headers['Model-Revision']).toMatchObject({ schema: { type: 'integer' } });
    expect(state.headers['Model-Revision'].description).toContain('expectedRevision');
  });
});
