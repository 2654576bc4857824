/**
 * Solve over REST (docs/solve.md): the same operation as the MCP tool and the CLI. A client that
 * hangs up stops its solve.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CalcService } from '../service/calc-service.js';
import {
  runSolve,
  SOLVE_ARGUMENT_SCHEMAS,
  solveLimitsFromEnv,
  type SolveArgs,
} from '../service/solve/index.js';
import { sendJson } from './model-routes.js';
import { writeOrigin } from './security.js';
import { commonErrors, idParam, modelErrors, reply } from './schemas.js';

/** A problem-details response (the shape of every refusal) with its own description. */
const problem = (description: string) => ({ ...commonErrors[400], description });

const tags = ['solve'];

const RESULT = reply(
  '{met, reason: converged|bounds|infeasible|budget, inputs, outputs, target | objective, iterations, seed, atBounds, broken, flagged, applied?}',
);

const refused = {
  409: problem('apply: the model was written since the solve began (VERSION_CONFLICT)'),
  422: problem('the spec is invalid, or a path is not a number (SOLVE_NOT_NUMERIC)'),
};

/** Aborted when the connection closes before the answer is sent (the client went away). */
function hangUpSignal(res: FastifyReply): AbortSignal {
  const controller = new AbortController();
  res.raw.once('close', () => {
    if (!res.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}

export function registerSolveRoutes(app: FastifyInstance, calc: CalcService): void {
  const limits = solveLimitsFromEnv(); // a malformed setting stops the server at start

  app.post<{ Params: { id: string }; Body: SolveArgs }>(
    '/models/:id/solve',
    {
      schema: {
        tags,
        summary:
          'Goal seek or optimise a model on a private copy (apply: true writes the answer as one cycle)',
        params: idParam,
        body: {
          type: 'object',
          properties: SOLVE_ARGUMENT_SCHEMAS,
          required: ['vary'],
          additionalProperties: false,
        },
        response: { 200: RESULT, ...modelErrors, ...refused },
      },
    },
    async (req, res) => {
      const args = { ...req.body, id: req.params.id };
      const control = { signal: hangUpSignal(res), source: writeOrigin(req) };
      return sendJson(res, 200, await runSolve(calc, args, limits, control));
    },
  );

  app.post<{ Body: SolveArgs }>(
    '/solve',
    {
      schema: {
        tags,
        summary: 'Goal seek or optimise a ModelSpec given in the body',
        body: {
          type: 'object',
          properties: { spec: { type: 'object', description: 'A ModelSpec' }, ...SOLVE_ARGUMENT_SCHEMAS },
          required: ['spec', 'vary'],
          additionalProperties: false,
        },
        response: {
          200: RESULT,
          ...commonErrors,
          404: problem('a path names nothing in the model'),
          ...refused,
        },
      },
    },
    async (req, res) =>
      sendJson(res, 200, await runSolve(calc, req.body, limits, { signal: hangUpSignal(res) })),
  );
}
