/**
 * The composition graph over REST (docs/composition.md): every stored model, the links between
 * them with their last status, and the lineage edges to their templates.
 */
import type { FastifyInstance } from 'fastify';
import type { CalcService } from '../service/calc-service.js';
import { sendJson } from './model-routes.js';
import { commonErrors, reply } from './schemas.js';

export function registerCompositionRoutes(app: FastifyInstance, calc: CalcService): void {
  app.get(
    '/composition/graph',
    {
      schema: {
        tags: ['models'],
        summary: 'Models, the links between them and their templates',
        response: {
          200: reply(
            '{nodes: [{ref, modelClass, running}], linkEdges: [{from, to, effectId, kind, last}], lineageEdges: [{branch, template}]}',
          ),
          ...commonErrors,
        },
      },
    },
    async (_req, res) => sendJson(res, 200, await calc.compositionGraph()),
  );
}
