/**
 * The model endpoints. Each is one CalcService call (the same function the MCP tool calls) plus
 * status code and body shaping; errors go to the app's error handler (problems.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { canonicalize, CalcError, type JsonObject } from '../calc/index.js';
import type { MutationSummary } from '../service/calc-api.js';
import type { CalcService } from '../service/calc-service.js';
import {
  expectedRevision,
  idParam,
  idPathParams,
  modelErrors,
  modelRevisionHeader,
  mutationErrors,
  reply,
  VERSION_CONFLICT_REPLY,
} from './schemas.js';
import { listForRequest } from './sandbox-routes.js';

/** Replies with JSON whatever the value (Fastify would send a bare string as text/plain). */
export function sendJson(res: FastifyReply, status: number, value: unknown): FastifyReply {
  return res
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(value ?? null));
}

/** `$.a.b` stays as it is; `a.b`, `items.0.x` become canonical addresses. */
export function addressOf(raw: string): string {
  return raw.startsWith('$') ? raw : canonicalize(raw);
}

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

/** `?expectedRevision`, passed on only when given (a write without it runs as before). */
const revisionOption = (q: { expectedRevision?: number }) =>
  q.expectedRevision === undefined ? {} : { expectedRevision: q.expectedRevision };

/** A write's query: traces unless `?traces=false`, and the optional expectedRevision. */
const writeOptions = (q: { traces?: boolean; expectedRevision?: number }) => ({
  includeTraces: q.traces !== false,
  ...revisionOption(q),
});

/** An unknown X-View is refused before anything is written. */
async function checkView(calc: CalcService, id: string, view: string | string[] | undefined): Promise<void> {
  if (typeof view === 'string' && view !== '') await calc.getView(id, view);
}

type IdParams = { Params: { id: string } };
type WriteQuery = { Querystring: { traces?: boolean; expectedRevision?: number } };
type IdPathParams = { Params: { id: string; path: string } };
const flag = {
  type: 'boolean',
  default: true,
  description: 'Return the cycle traces (default true)',
} as const;
const xView = {
  type: 'object',
  properties: { 'x-view': { type: 'string', description: 'A view id: also return `viewDelta` for it' } },
} as const;

export function registerModelRoutes(app: FastifyInstance, calc: CalcService): void {
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
    async (req, res) => sendJson(res, 200, await calc.getModelInfo(req.params.id)),
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

  app.post<IdParams & WriteQuery>(
    '/models/:id/mutations',
    {
      schema: {
        tags: ['mutations'],
        summary: 'Write values as one reactive cycle',
        params: idParam,
        querystring: { type: 'object', properties: { traces: flag, expectedRevision } },
        headers: xView,
        body: { type: 'object', description: '{"$.address": value, …}' },
        response: {
          200: reply('MutationResult'),
          ...mutationErrors,
          400: { description: 'Malformed body, or a write to a derived path' },
        },
      },
    },
    async (req, res) => {
      await checkView(calc, req.params.id, req.headers['x-view']);
      const result = await calc.mutate(req.params.id, req.body, writeOptions(req.query));
      return sendJson(res, 200, await mutationReply(calc, req.params.id, req.headers['x-view'], result));
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
        headers: xView,
        body: { type: 'array', items: { type: 'object' }, description: 'RFC 6902 operations' },
        response: { 200: reply('MutationResult'), ...mutationErrors },
      },
    },
    async (req, res) => {
      await checkView(calc, req.params.id, req.headers['x-view']);
      const result = await calc.patchModel(req.params.id, req.body, writeOptions(req.query));
      return sendJson(res, 200, await mutationReply(calc, req.params.id, req.headers['x-view'], result));
    },
  );

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

  app.get<IdParams & { Querystring: { path?: string; from?: string; to?: string; limit?: number } }>(
    '/models/:id/audit',
    {
      schema: {
        tags: ['audit'],
        summary: 'Audit records, newest first',
        params: idParam,
        querystring: {
          type: 'object',
          properties: {
            path: { type: 'string', description: 'Path prefix' },
            from: { type: 'string', description: 'Inclusive ISO-8601 time' },
            to: { type: 'string', description: 'Exclusive ISO-8601 time' },
            limit: { type: 'integer', minimum: 1, maximum: 10000 },
          },
        },
        response: { 200: reply('[AuditRecord]'), ...modelErrors },
      },
    },
    async (req, res) => {
      const q = req.query;
      try {
        const records = await calc.getAudit(req.params.id, {
          ...(q.path !== undefined ? { pathPrefix: q.path } : {}),
          ...(q.from !== undefined ? { from: q.from } : {}),
          ...(q.to !== undefined ? { to: q.to } : {}),
          ...(q.limit !== undefined ? { limit: q.limit } : {}),
        });
        return sendJson(res, 200, records);
      } catch (err) {
        // this endpoint answers a bad timestamp with a plain {error} body
        if (
          err instanceof CalcError &&
          err.code === 'INVALID_ARGUMENT' &&
          err.message.startsWith('Invalid ISO')
        )
          return sendJson(res, 400, { error: err.message, code: err.code });
        throw err;
      }
    },
  );

  app.get<IdParams>(
    '/models/:id/audit/verify',
    {
      schema: {
        tags: ['audit'],
        summary: "Walk the audit trail's hash chain",
        params: idParam,
        response: { 200: reply('{valid, recordsChecked, firstBrokenSequence?, detail?}'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.verifyAudit(req.params.id)),
  );

  app.post<IdParams>(
    '/models/:id/snapshot',
    {
      schema: {
        tags: ['lifecycle'],
        summary: 'Take a snapshot',
        params: idParam,
        response: { 200: reply('Snapshot'), ...modelErrors },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.snapshot(req.params.id)),
  );

  app.post<IdParams>(
    '/models/:id/restore',
    {
      schema: {
        tags: ['lifecycle'],
        summary: 'Restore a snapshot',
        params: idParam,
        body: { type: 'object', description: 'A Snapshot as /snapshot returned it' },
        response: {
          204: reply('Restored'),
          ...modelErrors,
          422: { description: 'Snapshot breaks the schema' },
        },
      },
    },
    async (req, res) => {
      await calc.restore(req.params.id, req.body);
      return res.code(204).send();
    },
  );

  app.post<IdParams & { Querystring: { expectedRevision?: number } }>(
    '/models/:id/spec/evolve',
    {
      schema: {
        tags: ['lifecycle'],
        summary: 'Apply a SpecEvolution',
        params: idParam,
        querystring: { type: 'object', properties: { expectedRevision } },
        body: { type: 'object', description: 'A SpecEvolution' },
        response: {
          200: reply('{id, version}'),
          ...modelErrors,
          409: { description: `${VERSION_CONFLICT_REPLY} (expectedVersion or expectedRevision is stale)` },
          422: { description: 'The evolved spec is invalid or strands live values' },
        },
      },
    },
    async (req, res) =>
      sendJson(res, 200, await calc.evolveSpec(req.params.id, req.body, revisionOption(req.query))),
  );

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
