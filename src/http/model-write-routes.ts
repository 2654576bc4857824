/** Writes: values as one reactive cycle, or an RFC 6902 patch; optionally the changed view components. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { JsonObject } from '../calc/index.js';
import type { MutationSummary } from '../service/calc-api.js';
import type { CalcService } from '../service/calc-service.js';
import { flag, sendJson, writeOptions, xView, type IdParams, type WriteQuery } from './model-route-kit.js';
import { expectedRevision, idParam, mutationErrors, reply } from './schemas.js';
import { findWriteLimitViolation } from '../service/input-limits.js';
import { inputLimitsOf } from './limits.js';
import { inputLimitReply, type ErrorReply } from './problems.js';
import { writeOrigin } from './security.js';

const sendProblem = (res: FastifyReply, out: ErrorReply) =>
  res.code(out.status).type(out.contentType).send(out.body);

/** The evaluated components (nested ones too) bound to an address the cycle changed, by id. */
async function viewDelta(calc: CalcService, id: string, viewId: string, changed: Set<string>) {
  const delta: Record<string, JsonObject> = {};
  const walk = (components: unknown): void => {
    if (!Array.isArray(components)) return;
    for (const c of components as JsonObject[]) {
      if (typeof c.bind === 'string' && changed.has(c.bind) && typeof c.id === 'string') delta[c.id] = c;
      walk(c.components);
    }
  };
  walk((await calc.getView(id, viewId)).components);
  return delta;
}

/**
 * The REST mutation body: traces unless `?traces=false`, and with `X-View: <viewId>` the changed
 * components of that view. (`metaUpdated` stays, so remote MCP results keep their full shape.)
 */
async function mutationReply(
  calc: CalcService,
  id: string,
  view: string | string[] | undefined,
  result: MutationSummary,
): Promise<MutationSummary & { viewDelta?: Record<string, JsonObject> }> {
  if (typeof view !== 'string' || view === '') return result;
  const changed = new Set([...result.mutatedPaths, ...result.derivedUpdated]);
  return { ...result, viewDelta: await viewDelta(calc, id, view, changed) };
}

/** An unknown X-View is refused before anything is written. */
async function checkView(calc: CalcService, id: string, view: string | string[] | undefined): Promise<void> {
  if (typeof view === 'string' && view !== '') await calc.getView(id, view);
}

/** The `Idempotency-Key` request header (see docs/rest-api.md): the service checks its form. */
export const idempotencyHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      description: 'A retry with the same key and body answers the first answer without writing again',
    },
  },
} as const;

/** The key of a request, as the write options take it (the service refuses a malformed one). */
export function idempotencyOf(headers: Record<string, unknown>): { idempotencyKey?: string } {
  const key = headers['idempotency-key'];
  return key === undefined ? {} : { idempotencyKey: key as string };
}

/** Sends a write's answer; a replayed one says so in `Idempotent-Replayed: true` too. */
export function sendWrite(res: FastifyReply, status: number, answer: object): FastifyReply {
  if ((answer as { replayed?: unknown }).replayed === true) res.header('idempotent-replayed', 'true');
  return sendJson(res, status, answer);
}

export function registerWriteRoutes(app: FastifyInstance, calc: CalcService): void {
  app.post<IdParams & WriteQuery>(
    '/models/:id/mutations',
    {
      schema: {
        tags: ['mutations'],
        summary: 'Write values as one reactive cycle',
        params: idParam,
        querystring: { type: 'object', properties: { traces: flag, expectedRevision } },
        headers: { ...xView, properties: { ...xView.properties, ...idempotencyHeaders.properties } },
        body: { type: 'object', description: '{"$.address": value, …}' },
        response: {
          200: reply('MutationResult'),
          ...mutationErrors,
          400: { description: 'Malformed body, or a write to a derived path' },
        },
      },
    },
    async (req, res) => {
      const over = findWriteLimitViolation(req.body, inputLimitsOf(app), 'the mutation');
      if (over) return sendProblem(res, inputLimitReply(over));
      await checkView(calc, req.params.id, req.headers['x-view']);
      const result = await calc.mutate(req.params.id, req.body, {
        source: writeOrigin(req),
        ...writeOptions(req.query),
        ...idempotencyOf(req.headers),
      });
      return sendWrite(res, 200, await mutationReply(calc, req.params.id, req.headers['x-view'], result));
    },
  );
  app.post<IdParams & WriteQuery>(
    '/models/:id/mutations/patch',
    {
      schema: {
        tags: ['mutations'],
        summary: 'Apply an RFC 6902 JSON Patch (application/json-patch+json) as one cycle',
        params: idParam,
        querystring: { type: 'object', properties: { traces: flag, expectedRevision } },
        headers: { ...xView, properties: { ...xView.properties, ...idempotencyHeaders.properties } },
        body: { type: 'array', items: { type: 'object' }, description: 'RFC 6902 operations' },
        response: { 200: reply('MutationResult'), ...mutationErrors },
      },
    },
    async (req, res) => {
      const over = findWriteLimitViolation(req.body, inputLimitsOf(app), 'the patch');
      if (over) return sendProblem(res, inputLimitReply(over));
      await checkView(calc, req.params.id, req.headers['x-view']);
      const result = await calc.patchModel(req.params.id, req.body, {
        ...writeOptions(req.query),
        ...idempotencyOf(req.headers),
      });
      return sendWrite(res, 200, await mutationReply(calc, req.params.id, req.headers['x-view'], result));
    },
  );
}
