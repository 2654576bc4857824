/**
 * Simulation over REST (docs/simulate.md): the same operation as the MCP tool and the CLI. A
 * client that hangs up stops its simulation.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CalcService } from '../service/calc-service.js';
import {
  runSimulation,
  SIMULATE_ARGUMENT_SCHEMAS,
  simulationLimitsFromEnv,
  type SimulateArgs,
} from '../service/simulate/index.js';
import { sendJson } from './model-routes.js';
import { commonErrors, idParam, modelErrors, reply } from './schemas.js';

const tags = ['simulate'];

const request = SIMULATE_ARGUMENT_SCHEMAS;

const RESULT = reply(
  '{runs, seed, failedRuns, failures, outputs: {path: {count, mean, stdDev, min, max, percentiles, histogram}}, constraints, sensitivity}',
);

/** Aborted when the connection closes before the answer is sent (the client went away). */
function hangUpSignal(res: FastifyReply): AbortSignal {
  const controller = new AbortController();
  res.raw.once('close', () => {
    if (!res.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}

export function registerSimulateRoutes(app: FastifyInstance, calc: CalcService): void {
  const limits = simulationLimitsFromEnv(); // a malformed setting stops the server at start

  app.post<{ Params: { id: string }; Body: SimulateArgs }>(
    '/models/:id/simulations',
    {
      schema: {
        tags,
        summary: "Simulate a model (on a private copy: the model doesn't change)",
        params: idParam,
        body: { type: 'object', properties: request, required: ['outputs'], additionalProperties: false },
        response: { 200: RESULT, ...modelErrors },
      },
    },
    async (req, res) => {
      const args = { ...req.body, id: req.params.id };
      return sendJson(res, 200, await runSimulation(calc, args, limits, { signal: hangUpSignal(res) }));
    },
  );

  app.post<{ Body: SimulateArgs }>(
    '/simulations',
    {
      schema: {
        tags,
        summary: 'Simulate a ModelSpec given in the body',
        body: {
          type: 'object',
          properties: { spec: { type: 'object', description: 'A ModelSpec' }, ...request },
          required: ['spec', 'outputs'],
          additionalProperties: false,
        },
        response: { 200: RESULT, ...commonErrors, 422: { description: 'the spec is invalid' } },
      },
    },
    async (req, res) =>
      sendJson(res, 200, await runSimulation(calc, req.body, limits, { signal: hangUpSignal(res) })),
  );
}
