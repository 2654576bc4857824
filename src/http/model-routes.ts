/**
 * The model endpoints, by concern: the model catalogue and its documents here, writes, reads,
 * audit and lifecycle, and views in their own modules. Each endpoint is one CalcService call (the
 * same function the MCP tool calls) plus status code and body shaping; errors go to the app's error
 * handler (problems.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { CalcService } from '../service/calc-service.js';
import { modelInfoWithPendingEffects } from '../service/effects/pending.js';
import { sendJson, type IdParams } from './model-route-kit.js';
import { registerAuditRoutes, registerLifecycleRoutes } from './model-audit-routes.js';
import { registerInsightRoutes, registerStateRoutes, registerViewRoutes } from './model-read-routes.js';
import { registerWriteRoutes } from './model-write-routes.js';
import { listForRequest } from './sandbox-routes.js';
import { idParam, modelErrors, reply } from './schemas.js';

export { addressOf, sendJson } from './model-route-kit.js';

export function registerModelRoutes(app: FastifyInstance, calc: CalcService): void {
  registerCatalogueRoutes(app, calc);
  registerDocumentRoutes(app, calc);
  registerWriteRoutes(app, calc);
  registerStateRoutes(app, calc);
  registerInsightRoutes(app, calc);
  registerAuditRoutes(app, calc);
  registerLifecycleRoutes(app, calc);
  registerViewRoutes(app, calc);
}

/** List, create, describe and delete models. */
function registerCatalogueRoutes(app: FastifyInstance, calc: CalcService): void {
  const tags = ['models'];
  app.get(
    '/models',
    { schema: { tags, summary: 'Model ids, sorted', response: { 200: reply('[id…]') } } },
    async (req, res) => sendJson(res, 200, listForRequest(req, await calc.listModels())),
  );
  app.post(
    '/models',
    {
      schema: {
        tags,
        summary: 'Create a model from a ModelSpec',
        body: { type: 'object', description: 'A ModelSpec' },
        response: {
          201: reply('{id, status:"created"}; Location: /models/{id}'),
          409: { description: '{error:"Model with id \'x\' already exists"}, or a rollback while seeding' },
          422: {
            description: '{message:"Model spec validation failed", errors:[{location,message,severity}]}',
          },
          ...modelErrors,
        },
      },
    },
    async (req, res) => {
      const info = await calc.createModel(req.body);
      void res.header('location', `/models/${encodeURIComponent(info.id)}`);
      return sendJson(res, 201, { id: info.id, status: 'created' });
    },
  );
  app.get<IdParams>(
    '/models/:id',
    {
      schema: {
        tags,
        summary: 'Model info',
        params: idParam,
        response: { 200: reply('ModelInfo and its revision'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await modelInfoWithPendingEffects(calc, req.params.id)),
  );
  app.delete<IdParams>(
    '/models/:id',
    {
      schema: {
        tags,
        summary: 'Delete a model and its audit trail',
        params: idParam,
        response: { 204: reply('Deleted'), ...modelErrors },
      },
    },
    async (req, res) => {
      await calc.deleteModel(req.params.id);
      return res.code(204).send();
    },
  );
}

/** A model's stored spec, lineage, pending inherited effects and library. */
function registerDocumentRoutes(app: FastifyInstance, calc: CalcService): void {
  const tags = ['models'];
  app.get<IdParams>(
    '/models/:id/spec',
    {
      schema: {
        tags,
        summary: 'The stored spec',
        params: idParam,
        response: { 200: reply('ModelSpec'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getSpec(req.params.id)),
  );
  app.get<IdParams>(
    '/models/:id/lineage',
    {
      schema: {
        tags,
        summary: 'Lineage entries',
        params: idParam,
        response: { 200: reply('[LineageEntry]'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getLineage(req.params.id)),
  );
  app.get<IdParams>(
    '/models/:id/effects/pending',
    {
      schema: {
        tags,
        summary: 'Inherited effects of another owner that wait for approval',
        params: idParam,
        response: {
          200: reply('[{effectId, executor, definitionHash, fromRef, fromOwner}]'),
          ...modelErrors,
        },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.pendingEffects(req.params.id)),
  );
  app.post<{ Params: { id: string; effectId: string } }>(
    '/models/:id/effects/:effectId/approve',
    {
      schema: {
        tags,
        summary: 'Approve an inherited effect as it is defined now',
        params: {
          type: 'object',
          properties: { id: { type: 'string' }, effectId: { type: 'string' } },
          required: ['id', 'effectId'],
        },
        response: { 200: reply('{id, effectId, approved: true}'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.approveEffect(req.params.id, req.params.effectId)),
  );
  app.get<IdParams>(
    '/models/:id/library',
    {
      schema: {
        tags,
        summary: "The model's library vocabulary",
        params: idParam,
        response: { 200: reply('{description?, layers, exports}'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.getLibrary(req.params.id)),
  );
}
