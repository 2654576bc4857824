/**
 * What the model route modules share: JSON replies, address parsing, write options and the
 * parameter types of `/models/:id/…`.
 */
import type { FastifyReply } from 'fastify';
import { canonicalize } from '../calc/index.js';

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

/** `?expectedRevision`, passed on only when given (a write without it runs as before). */
export const revisionOption = (q: { expectedRevision?: number }) =>
  q.expectedRevision === undefined ? {} : { expectedRevision: q.expectedRevision };

/** A write's query: traces unless `?traces=false`, and the optional expectedRevision. */
export const writeOptions = (q: { traces?: boolean; expectedRevision?: number }) => ({
  includeTraces: q.traces !== false,
  ...revisionOption(q),
});

export type IdParams = { Params: { id: string } };
export type WriteQuery = { Querystring: { traces?: boolean; expectedRevision?: number } };
export type IdPathParams = { Params: { id: string; path: string } };
export const flag = {
  type: 'boolean',
  default: true,
  description: 'Return the cycle traces (default true)',
} as const;
export const xView = {
  type: 'object',
  properties: { 'x-view': { type: 'string', description: 'A view id: also return `viewDelta` for it' } },
} as const;
