/**
 * `/metrics` on a Fastify server (`serve`, `synth serve`), and the count of every request it
 * answers. The route sits behind the server's own guards (the API key or bearer token when one
 * is set), like every other non-health route.
 */
import type { FastifyInstance } from 'fastify';
import { UNMATCHED_ROUTE, type ServerMetrics } from '../observability/metrics.js';

export const METRICS_PATH = '/metrics';

export function registerMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  // the route pattern, not the URL: one series per route whatever the ids in the path
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get(
    METRICS_PATH,
    {
      schema: {
        tags: ['health'],
        summary: 'Prometheus metrics (text exposition format); needs the key when the server has one',
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.scrape();
      return reply.type(contentType).send(body);
    },
  );
}
