/**
 * WebSocket `/models/{id}/subscribe`: pushes a frame per committed change of one model.
 * `?paths=a,b` keeps only mutation frames touching those address prefixes. Frames:
 * `{kind:"mutation", modelId, mutatedPaths, derivedUpdated, flaggedConstraints, dispatchedEffects}`,
 * `{kind:"spec-evolved", modelId, version}`, and `restored`, `deleted`, `changed` (another process
 * changed the model). The first frame, `{kind:"subscribed", modelId, paths}`, says the listener is on.
 */
import type { FastifyInstance } from 'fastify';
import type { ModelEvent } from '../service/calc-api.js';
import type { CalcService } from '../service/calc-service.js';
import { addressOf } from './model-routes.js';
import { idParam, modelErrors } from './schemas.js';

function touches(event: ModelEvent, prefixes: string[]): boolean {
  if (event.kind !== 'mutation' || prefixes.length === 0) return true;
  return [...event.mutatedPaths, ...event.derivedUpdated].some((p) => prefixes.some((x) => p.startsWith(x)));
}

const QUERY = {
  paths: { type: 'string', description: 'Comma-separated address prefixes' },
  token: { type: 'string', description: 'The API key (browsers cannot set headers here)' },
  session: { type: 'string', description: "A paired browser session's token (instead of the key)" },
} as const;
const SUMMARY = 'WebSocket: a frame per committed change (`?paths=` prefix filter, `?token=` API key)';

/**
 * The OpenAPI operation of the subscription route. @fastify/websocket hides WebSocket routes from
 * @fastify/swagger, so the app adds this one to the generated document itself.
 */
export const SUBSCRIBE_OPERATION = {
  tags: ['subscriptions'],
  summary: SUMMARY,
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Model id' },
    ...Object.entries(QUERY).map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      schema: { type: schema.type },
      description: schema.description,
    })),
  ],
  responses: {
    101: { description: 'Switching to WebSocket' },
    401: { description: 'Missing or wrong API key' },
    403: { description: 'Forbidden Origin or Host' },
    404: { description: 'Model not found' },
  },
};

export function registerSubscribeRoute(app: FastifyInstance, calc: CalcService): void {
  app.get<{ Params: { id: string }; Querystring: { paths?: string; token?: string } }>(
    '/models/:id/subscribe',
    {
      websocket: true,
      schema: {
        tags: ['subscriptions'],
        summary: SUMMARY,
        params: idParam,
        querystring: { type: 'object', properties: QUERY },
        response: { 101: { description: 'Switching to WebSocket' }, ...modelErrors },
      },
      // refuse an unknown model with a 404 before the upgrade
      preHandler: async (req) => {
        await calc.getModelInfo(req.params.id);
      },
    },
    (socket, req) => {
      const modelId = req.params.id;
      const prefixes = (req.query.paths ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean)
        .map(addressOf);
      const off = calc.subscribe(modelId, (event) => {
        if (!touches(event, prefixes)) return;
        socket.send(JSON.stringify(event));
        if (event.kind === 'deleted') socket.close(1000, 'model deleted');
      });
      socket.on('close', off);
      socket.on('error', off);
      socket.send(JSON.stringify({ kind: 'subscribed', modelId, paths: prefixes }));
    },
  );
}
