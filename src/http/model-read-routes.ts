/** Reads: the merged state and its fields, history, schemas, explanations, the graph, flags, tests, views. */
import type { FastifyInstance } from 'fastify';
import type { CalcService } from '../service/calc-service.js';
import { addressOf, sendJson, type IdParams, type IdPathParams } from './model-route-kit.js';
import { idParam, idPathParams, modelErrors, modelRevisionHeader, reply } from './schemas.js';

/** The state (optionally as of a time, pruned or collapsed), one field, and the cycle history. */
export function registerStateRoutes(app: FastifyInstance, calc: CalcService): void {
  app.get<IdParams & { Querystring: { at?: string; paths?: string; depth?: number } }>(
    '/models/:id/state',
    {
      schema: {
        tags: ['state'],
        summary: 'The merged state; `at` reads it as of an ISO-8601 time',
        params: idParam,
        querystring: {
          type: 'object',
          properties: {
            at: { type: 'string', description: 'ISO-8601 time' },
            paths: { type: 'string', description: 'Comma-separated addresses: keep only these subtrees' },
            depth: { type: 'integer', minimum: 0, description: 'Collapse containers deeper than this' },
          },
        },
        response: {
          200: { description: 'The merged document', headers: modelRevisionHeader },
          ...modelErrors,
        },
      },
    },
    async (req, res) => {
      const q = req.query;
      const { state, revision } = await calc.readState(req.params.id, {
        ...(q.at !== undefined ? { at: q.at } : {}),
        ...(q.paths !== undefined ? { paths: q.paths.split(',').map((p) => addressOf(p.trim())) } : {}),
        ...(q.depth !== undefined ? { depth: q.depth } : {}),
      });
      void res.header('model-revision', String(revision));
      return sendJson(res, 200, state);
    },
  );
  app.get<IdPathParams>(
    '/models/:id/state/:path',
    {
      schema: {
        tags: ['state'],
        summary: 'The value at one address',
        params: idPathParams,
        response: { 200: reply('The value'), ...modelErrors },
      },
    },
    async (req, res) =>
      sendJson(
        res,
        200,
        await calc.getField(req.params.id, addressOf(req.params.path), { missing: 'error' }),
      ),
  );
  app.get<IdParams>(
    '/models/:id/history',
    {
      schema: {
        tags: ['state'],
        summary: 'Timestamps of recent cycles',
        params: idParam,
        response: { 200: reply('[ISO…]'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getHistory(req.params.id)),
  );
}

/** How the model computes and stands: schemas, explanations, the graph, failing flags, embedded tests. */
export function registerInsightRoutes(app: FastifyInstance, calc: CalcService): void {
  const tags = ['models'];
  app.get<IdPathParams>(
    '/models/:id/schema/:path',
    {
      schema: {
        tags: ['state'],
        summary: 'Effective schema at an address ({} when unknown)',
        params: idPathParams,
        response: { 200: reply('JSON Schema'), ...modelErrors },
      },
    },
    async (req, res) =>
      sendJson(res, 200, await calc.getEffectiveSchema(req.params.id, addressOf(req.params.path))),
  );
  app.get<IdPathParams & { Querystring: { limit?: number } }>(
    '/models/:id/explain/:path',
    {
      schema: {
        tags: ['state'],
        summary: 'Derivation traces of recent cycles under an address (%24constraint%3Aid for constraints)',
        params: idPathParams,
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 0 } } },
        response: { 200: reply('[DerivationTrace]'), ...modelErrors },
      },
    },
    async (req, res) =>
      sendJson(res, 200, await calc.explain(req.params.id, addressOf(req.params.path), req.query.limit)),
  );
  app.get<IdParams>(
    '/models/:id/graph',
    {
      schema: {
        tags,
        summary: 'Dependency graph: nodes, edges, levels',
        params: idParam,
        response: { 200: reply('{modelId, nodes, edges, levels}'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getGraph(req.params.id)),
  );
  app.get<IdParams>(
    '/models/:id/flags',
    {
      schema: {
        tags,
        summary: 'The flag rules failing now',
        params: idParam,
        response: { 200: reply('[{constraintId, message, policy:"flag"}…]'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getFlags(req.params.id)),
  );
  app.get<IdParams>(
    '/models/:id/verification',
    {
      schema: {
        tags,
        summary: 'Which embedded tests are checkable, and whether they pass',
        params: idParam,
        response: { 200: reply('Verification report'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getVerification(req.params.id)),
  );
}

/** The default view and named views, evaluated against the current state. */
export function registerViewRoutes(app: FastifyInstance, calc: CalcService): void {
  const viewResponse = { 200: reply('EvaluatedView'), ...modelErrors };
  app.get<IdParams>(
    '/models/:id/view',
    {
      schema: {
        tags: ['views'],
        summary: 'The default view, evaluated',
        params: idParam,
        response: viewResponse,
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getView(req.params.id)),
  );
  app.get<{ Params: { id: string; viewId: string } }>(
    '/models/:id/view/:viewId',
    {
      schema: {
        tags: ['views'],
        summary: 'A named view, evaluated',
        params: {
          type: 'object',
          properties: { id: { type: 'string' }, viewId: { type: 'string' } },
          required: ['id', 'viewId'],
        },
        response: viewResponse,
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getView(req.params.id, req.params.viewId)),
  );
}
