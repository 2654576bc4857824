/** The audit trail and its hash chain; snapshots, restores and spec evolution. */
import type { FastifyInstance } from 'fastify';
import { CalcError } from '../calc/index.js';
import type { CalcService } from '../service/calc-service.js';
import { revisionOption, sendJson, type IdParams } from './model-route-kit.js';
import { idempotencyHeaders, idempotencyOf, sendWrite } from './model-write-routes.js';
import { expectedRevision, idParam, modelErrors, reply, VERSION_CONFLICT_REPLY } from './schemas.js';

export function registerAuditRoutes(app: FastifyInstance, calc: CalcService): void {
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
          Object.hasOwn(err.details, 'timestamp')
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
        response: {
          200: reply('{valid, recordsChecked, firstBrokenSequence?, detail?, keyId?}'),
          ...modelErrors,
        },
      },
    },
    async (req, res) => sendJson(res, 200, await calc.verifyAudit(req.params.id)),
  );
}

export function registerLifecycleRoutes(app: FastifyInstance, calc: CalcService): void {
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
        headers: idempotencyHeaders,
        body: { type: 'object', description: 'A Snapshot as /snapshot returned it' },
        response: {
          200: reply(
            '{restored, revision, modelVersion, snapshotVersion?, sameSpec, droppedInputs, warnings}',
          ),
          ...modelErrors,
          409: { description: 'A snapshot of another model (SNAPSHOT_MODEL_MISMATCH)' },
          422: { description: 'Snapshot breaks the schema, or an Idempotency-Key reused with another body' },
        },
      },
    },
    async (req, res) =>
      sendWrite(res, 200, await calc.restore(req.params.id, req.body, idempotencyOf(req.headers))),
  );
  app.post<IdParams & { Querystring: { expectedRevision?: number } }>(
    '/models/:id/spec/evolve',
    {
      schema: {
        tags: ['lifecycle'],
        summary: 'Apply a SpecEvolution',
        params: idParam,
        querystring: { type: 'object', properties: { expectedRevision } },
        headers: idempotencyHeaders,
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
      sendWrite(
        res,
        200,
        await calc.evolveSpec(req.params.id, req.body, {
          ...revisionOption(req.query),
          ...idempotencyOf(req.headers),
        }),
      ),
  );
}
