/**
 * The browser sandbox: pairing in the device-flow shape (docs/sandbox.md) and the namespace guard
 * that keeps a paired session to its own models.
 *
 *   POST /sandbox/pair         (API key)  start a pairing → {pairCode, deviceSecret, userCode, …}
 *   POST /sandbox/pair/token   (API key)  poll → 200 {sessionToken, namespaceId} | 409 pending | 400 {error}
 *   GET  /sandbox/pair/peek?code=…        → {expiresInSec} only
 *   GET  /sandbox/approve                 the page a person approves on (code typed or in the fragment)
 *   POST /sandbox/approve {userCode}      a person's click → {namespaceId, browserToken}
 *   GET  /sandbox                         the sandbox page (models of the browser's session)
 *
 * A request carrying `X-Session-Token` (security.ts resolves it) may only touch model ids that
 * start with `<namespaceId>__`; others answer 404 as if absent, and its model list holds only its own.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { isObject } from '../calc/index.js';
import type { PairingService } from '../service/pairing.js';
import { encodedOnce, type EncodedPage } from '../service/web-assets.js';
import { problem, type ErrorReply } from './problems.js';
import { sessionNamespace } from './security.js';
import { APPROVE_PAGE, APPROVE_SCRIPT_HASH } from './approve-page.js';

export const NAMESPACE_SEPARATOR = '__';

export interface SandboxRouteDeps {
  pairing: PairingService;
  /** The sandbox page's HTML (a built single file); omitted: a page saying it is not built. */
  sandboxHtml?: () => string;
}

const send = (reply: FastifyReply, out: ErrorReply): FastifyReply =>
  reply.code(out.status).type(out.contentType).send(out.body);

/** Codings a page is sent in, ours first when the client likes several equally. */
const CODINGS = ['br', 'gzip', 'identity'] as const;

/** negotiator 1.1 takes a `preferred` order for ties; its published typings predate it. */
type EncodingNegotiator = {
  encoding(available: readonly string[], options: { preferred: readonly string[] }): string | undefined;
};

/** The coding to send a page in, as the request's Accept-Encoding allows (undefined: plain). */
function chooseCoding(request: FastifyRequest): 'br' | 'gzip' | undefined {
  const negotiator = new Negotiator({ headers: request.headers }) as unknown as EncodingNegotiator;
  const chosen = negotiator.encoding(CODINGS, { preferred: CODINGS });
  return chosen === 'br' || chosen === 'gzip' ? chosen : undefined;
}

/**
 * Sends a page compressed as the client accepts (brotli, else gzip, else plain) with its entity
 * tag, or 304 when the client's copy is current. `no-cache`: a browser keeps the page and asks
 * each time whether it is still current, which costs one small request instead of the page.
 */
export function sendEncodedPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: EncodedPage,
): FastifyReply {
  const coding = chooseCoding(request);
  const etag = coding ? `${page.etag.slice(0, -1)}-${coding}"` : page.etag;
  reply.header('vary', 'Accept-Encoding').header('etag', etag).header('cache-control', 'no-cache');
  const known = String(request.headers['if-none-match'] ?? '')
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''));
  if (known.includes(etag) || known.includes('*')) return reply.code(304).send();
  if (coding) reply.header('content-encoding', coding);
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .send(coding ? page.encoded(coding) : page.identity);
}

/** Paths a session may use besides its namespace's models. */
// generation creates models only inside the session's namespace (generate-routes.ts)
const SESSION_PATHS = [
  /^\/sandbox(\/|$)/,
  /^\/share\//,
  /^\/blobs(\/|$)/,
  /^\/health$/,
  /^\/models\/generate(\/|$)/,
];

/** Refuses what a paired session may not do; runs before every route handler. */
async function guardNamespace(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const namespace = sessionNamespace(request);
  if (namespace === undefined) return;
  const prefix = `${namespace}${NAMESPACE_SEPARATOR}`;
  const route = request.routeOptions.url ?? '';
  const id = (request.params as { id?: unknown } | undefined)?.id;
  if (route.includes(':id')) {
    if (typeof id !== 'string' || !id.startsWith(prefix))
      await send(reply, problem(404, `Model not found: ${String(id)}`, { code: 'MODEL_NOT_FOUND' }));
    return;
  }
  if (route === '/models' && request.method === 'POST') {
    const spec: unknown = request.body;
    const specId = isObject(spec) ? spec.id : undefined;
    if (typeof specId !== 'string' || !specId.startsWith(prefix))
      await send(
        reply,
        problem(403, `In a paired session, model ids start with '${prefix}'`, { code: 'FORBIDDEN' }),
      );
    return;
  }
  if (route === '/models' && request.method === 'GET') return; // filtered by the list route below
  if (!SESSION_PATHS.some((p) => p.test(route)))
    await send(reply, problem(403, 'Not available to a paired session', { code: 'FORBIDDEN' }));
}

/** A model list trimmed to the session's namespace, when the request came with one. */
export function listForRequest(request: FastifyRequest, ids: string[]): string[] {
  const namespace = sessionNamespace(request);
  if (namespace === undefined) return ids;
  const prefix = `${namespace}${NAMESPACE_SEPARATOR}`;
  return ids.filter((id) => id.startsWith(prefix));
}

/** Strict CSP for our own inline pages: no outside anything. */
function pageCsp(scriptHash?: string): string {
  return [
    "default-src 'none'",
    scriptHash ? `script-src '${scriptHash}'` : "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    'img-src data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The guard must see every route, so it is added before any is registered. */
export function registerNamespaceGuard(app: FastifyInstance): void {
  app.addHook('preHandler', guardNamespace);
}

export function registerSandboxRoutes(app: FastifyInstance, deps: SandboxRouteDeps): void {
  registerPairingRoutes(app, deps.pairing);
  registerSandboxPages(app, deps);
}

/** The device-flow pairing: start, poll and peek (the agent's side), approve (the person's). */
function registerPairingRoutes(app: FastifyInstance, pairing: SandboxRouteDeps['pairing']): void {
  const tags = ['sandbox'];

  app.post(
    '/sandbox/pair',
    { schema: { tags, summary: 'Start a browser pairing (device-flow shape)' } },
    async (request, reply) => {
      const uri = `${request.protocol}://${request.headers.host ?? '127.0.0.1'}/sandbox/approve`;
      return reply.code(200).send(pairing.start(uri));
    },
  );

  app.post<{ Body: { pairCode?: unknown; deviceSecret?: unknown } }>(
    '/sandbox/pair/token',
    {
      schema: {
        tags,
        summary: 'Poll a pairing: 200 paired, 409 still pending, 400 failed',
        body: {
          type: 'object',
          required: ['pairCode', 'deviceSecret'],
          properties: { pairCode: { type: 'string' }, deviceSecret: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      const outcome = pairing.poll(String(request.body.pairCode), String(request.body.deviceSecret));
      if (outcome.status === 'paired')
        return reply.code(200).send({ sessionToken: outcome.sessionToken, namespaceId: outcome.namespaceId });
      if (outcome.status === 'pending') return reply.code(409).send({ error: 'authorization_pending' });
      return reply.code(400).send({ error: outcome.error });
    },
  );

  app.get<{ Querystring: { code?: string } }>(
    '/sandbox/pair/peek',
    {
      schema: {
        tags,
        summary: 'How long a user code has left (nothing else)',
        querystring: { type: 'object', properties: { code: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const peek = pairing.peek(request.query.code ?? '');
      if (!peek) return send(reply, problem(404, 'No pending pairing has this code'));
      return reply.code(200).send(peek);
    },
  );

  app.post<{ Body: { userCode?: unknown } }>(
    '/sandbox/approve',
    {
      schema: {
        tags,
        summary: "A person's approval of a user code",
        body: { type: 'object', required: ['userCode'], properties: { userCode: { type: 'string' } } },
      },
    },
    async (request, reply) => {
      const outcome = pairing.approve(String(request.body.userCode), request.ip);
      switch (outcome.status) {
        case 'approved':
          return reply
            .code(200)
            .send({ namespaceId: outcome.namespaceId, browserToken: outcome.browserToken });
        case 'unknown_code':
          return send(reply, problem(404, 'No pending pairing has this code: check it and try again'));
        case 'expired':
          return send(
            reply,
            problem(410, 'This code has expired: ask your agent to call pair_browser again'),
          );
        case 'too_many_attempts':
          return send(reply, problem(429, 'Too many wrong codes: wait ten minutes'));
      }
    },
  );
}

/** The approve page and the sandbox page (compressed once, on the first request that finds it built). */
function registerSandboxPages(app: FastifyInstance, deps: SandboxRouteDeps): void {
  const tags = ['sandbox'];
  app.get('/sandbox/approve', { schema: { tags, summary: 'The approve page' } }, (_request, reply) =>
    reply
      .header('content-security-policy', pageCsp(APPROVE_SCRIPT_HASH))
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(APPROVE_PAGE),
  );

  const sandboxPage = deps.sandboxHtml ? encodedOnce(deps.sandboxHtml) : undefined;
  app.get('/sandbox', { schema: { tags, summary: 'The sandbox page' } }, (request, reply) => {
    let page: EncodedPage | undefined;
    try {
      page = sandboxPage?.();
    } catch {
      page = undefined; // not built: say so below
    }
    reply.header('content-security-policy', pageCsp()).header('referrer-policy', 'no-referrer');
    if (page) return sendEncodedPage(request, reply, page);
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send('<!doctype html><title>Sandbox</title><p>The sandbox page is not built (npm run build).');
  });
}
