/**
 * Embedding a live model in any web page (docs/embedding.md): the page the `<modelworks-model>`
 * element frames, the element's script, and the page's own calls.
 *
 *   GET  /embed                        the card for an <iframe>; what to show travels in the URL
 *                                      fragment (`#e=`), which browsers never send to a server
 *   GET  /embed/element.js             the element (an ES module; any origin may load it)
 *   POST /embed/api/open               {spec, inputs?} → the card of a private copy of the spec
 *   POST /embed/api/models/{id}/card   {specHash?, mutations?} → a stored model's card, after the
 *                                      edits (keyed like every model route)
 *
 * A spec's copy is private and expiring: it is the card runner's compiled spec, held by its hash
 * for an hour of disuse (then the card resends it), never stored, listed or shared. Which pages may
 * frame the embed page: MODELWORKS_EMBED_ALLOWED_ORIGINS (the CSP's frame-ancestors, and the only
 * parents the page talks to); unset, loopback origins only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isObject } from '../calc/index.js';
import { storedCard } from '../mcp/card-tools.js';
import { CardError, cardPayload, issuesOf, type CardRunner } from '../service/card-runner.js';
import type { CalcService } from '../service/calc-service.js';
import { cardHtml, encodePage } from '../service/web-assets.js';
import { problem } from './problems.js';
import { sendEncodedPage } from './sandbox-routes.js';
import { idParam, modelErrors, reply } from './schemas.js';
import { cardPageCsp, scriptJson } from './share-routes.js';

export const EMBED_ORIGINS_ENV = 'MODELWORKS_EMBED_ALLOWED_ORIGINS';

/** Origins that may frame the embed page: a list, any (`*`), or loopback ones only (unset). */
export type EmbedOrigins = { kind: 'list'; origins: string[] } | { kind: 'any' } | { kind: 'loopback' };

/** Loopback parents, as CSP sources (any port). */
const LOOPBACK_SOURCES = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];

/**
 * MODELWORKS_EMBED_ALLOWED_ORIGINS: comma-separated origins (`https://app.example.com`) or `*`.
 * @throws Error naming the entry that is not an origin (the server does not start)
 */
export function embedOriginsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedOrigins {
  const text = env[EMBED_ORIGINS_ENV]?.trim();
  if (!text) return { kind: 'loopback' };
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.includes('*')) return { kind: 'any' };
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== entry || !/^https?:/.test(entry))
      throw new Error(
        `${EMBED_ORIGINS_ENV}: '${entry}' is not an origin; write it as scheme://host[:port], e.g. https://app.example.com`,
      );
  }
  return { kind: 'list', origins: entries };
}

/** The embed page's CSP: our inline code only, calls to its own server, framed by allowed origins. */
export function embedCsp(origins: EmbedOrigins): string {
  return cardPageCsp(
    origins.kind === 'any'
      ? '*'
      : origins.kind === 'list'
        ? ["'self'", ...origins.origins].join(' ')
        : ["'self'", ...LOOPBACK_SOURCES].join(' '),
  );
}

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));
/** Built by `npm run build:embed` (tsc -p web/embed/tsconfig.json). */
export const ELEMENT_JS_PATH = `${packageRoot}dist/embed/element.js`;

let elementScript: string | undefined;
function readElementScript(): string | undefined {
  try {
    elementScript ??= readFileSync(ELEMENT_JS_PATH, 'utf8');
  } catch {
    return undefined;
  }
  return elementScript;
}

export interface EmbedRouteDeps {
  runner: CardRunner;
  calc: CalcService;
  /** The card's HTML (default: the built dist/web/model-card.html). */
  html?: () => string;
  origins?: EmbedOrigins;
}

const tags = ['embed'];
const body = (raw: unknown): Record<string, unknown> => (isObject(raw) ? raw : {});

export function registerEmbedRoutes(app: FastifyInstance, deps: EmbedRouteDeps): void {
  const origins = deps.origins ?? embedOriginsFromEnv();
  registerEmbedPages(app, deps.html ?? cardHtml, origins);
  registerEmbedCalls(app, deps);
}

/** The embed page and the element's script. */
function registerEmbedPages(app: FastifyInstance, html: () => string, origins: EmbedOrigins): void {
  const csp = embedCsp(origins);
  let page: ReturnType<typeof encodePage> | undefined;
  const embedPage = () => {
    if (page) return page;
    const config = {
      api: '/embed/api',
      share: '/share/api',
      parents: origins.kind === 'list' ? origins.origins : origins.kind,
    };
    const inject = `<script>window.__MODELWORKS_EMBED__=${scriptJson(config)}</script>`;
    const text = html();
    const at = text.indexOf('<script');
    page = encodePage(at < 0 ? `${text}${inject}` : `${text.slice(0, at)}${inject}${text.slice(at)}`, true);
    return page;
  };

  app.get(
    '/embed',
    {
      schema: {
        tags,
        summary: 'The embed page: a model card for an <iframe> (what to show is in the #e= fragment)',
        response: { 200: reply('HTML') },
      },
    },
    (request: FastifyRequest, res: FastifyReply) => {
      res.header('content-security-policy', csp).header('referrer-policy', 'no-referrer');
      return sendEncodedPage(request, res, embedPage());
    },
  );

  app.get(
    '/embed/element.js',
    {
      schema: {
        tags,
        summary: 'The <modelworks-model> custom element (an ES module any page may load)',
        response: { 200: reply('JavaScript'), 404: reply('Not built') },
      },
    },
    (_request, res) => {
      const script = readElementScript();
      if (script === undefined) {
        const out = problem(404, 'The embed element is not built; run npm run build', { code: 'NOT_FOUND' });
        return res.code(404).type(out.contentType).send(out.body);
      }
      return res
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'no-cache')
        .type('text/javascript; charset=utf-8')
        .send(script);
    },
  );
}

/** The embed page's own calls: open a spec's private copy, show and edit a stored model. */
function registerEmbedCalls(app: FastifyInstance, deps: EmbedRouteDeps): void {
  app.post(
    '/embed/api/open',
    {
      schema: {
        tags,
        summary: "A spec's card on a private, expiring copy: {spec, inputs?} → {structuredContent}",
        body: { type: 'object', description: '{spec, inputs?}' },
        response: { 200: reply('{structuredContent, isError}') },
      },
    },
    async (request, res) => {
      const b = body(request.body);
      try {
        const compiled = await deps.runner.compile(b.spec);
        const inputs = isObject(b.inputs) ? b.inputs : {};
        const card = await deps.runner.render(compiled, inputs);
        const accepted = Object.fromEntries(
          Object.entries(inputs).filter(([p]) => !card.rejectedInputs.some((r) => r.path === p)),
        );
        return { structuredContent: cardPayload(card, accepted, false), isError: false };
      } catch (err) {
        if (err instanceof CardError)
          return res.code(200).send({ structuredContent: err.payload, isError: true });
        throw err;
      }
    },
  );

  app.post<{ Params: { id: string } }>(
    '/embed/api/models/:id/card',
    {
      schema: {
        tags,
        summary: "A stored model's card after the edits: {specHash?, mutations?} → {structuredContent}",
        params: idParam,
        body: { type: 'object', description: '{specHash?, mutations?}' },
        response: { 200: reply('{structuredContent, isError}'), ...modelErrors },
      },
    },
    async (request) => {
      const id = request.params.id;
      const b = body(request.body);
      const mutations = isObject(b.mutations) ? b.mutations : {};
      const known = typeof b.specHash === 'string' ? b.specHash : undefined;
      if (Object.keys(mutations).length > 0) {
        try {
          await deps.calc.mutate(id, mutations);
        } catch (err) {
          const issues = issuesOf(err);
          if (!issues) throw err;
          const current = await storedCard(deps.calc, id, known);
          return {
            structuredContent: { specHash: current.specHash, rejected: true, issues },
            isError: false,
          };
        }
      }
      const card = await storedCard(deps.calc, id, known);
      return { structuredContent: { mode: 'stored', ...card }, isError: false };
    },
  );
}
