/**
 * Share links outside any chat (a Fastify plugin for `modelworks serve`): the page at a share URL
 * is the same model card, with the spec and the values on screen taken from the link and computed
 * here; the card's edits come back to two JSON endpoints that answer like the card tools.
 *
 *   GET  /share/card?m=…    the card, for a browser tab (never framed)
 *   GET  /share/embed?m=…   the same card for an <iframe>
 *   POST /share/api/valem_recompute   {specHash, inputs, spec?}  → as the MCP tool
 *   POST /share/api/explain_value     {specHash, path, inputs?, spec?}
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isEngineError, isObject, publicMessage } from '../calc/index.js';
import { cardHtml, encodePage } from '../service/web-assets.js';
import { sendEncodedPage } from './sandbox-routes.js';
import { CardError, cardPayload, recomputeAnswer, type CardRunner } from '../service/card-runner.js';
import { decodeSharePayload } from '../service/share-links.js';

export interface ShareRouteDeps {
  runner: CardRunner;
  /** The card's HTML (default: the built dist/web/model-card.html). */
  html?: () => string;
}

/**
 * A card page's CSP (share and embed pages): inline scripts and styles only, calls to its own
 * origin and nothing else; `frameAncestors` says who may frame it.
 */
export function cardPageCsp(frameAncestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    'img-src data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

const csp = (framed: boolean): string => cardPageCsp(framed ? '*' : "'none'");

/** JSON for an inline <script>: nothing in it can close the script element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function problemPage(reply: FastifyReply, status: number, title: string, detail: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp(false))
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>`,
    );
}

/** A tool-shaped answer: structuredContent, or a structured error. */
function toolAnswer(payload: Record<string, unknown>, isError = false): Record<string, unknown> {
  return { structuredContent: payload, isError };
}

export function registerShareRoutes(app: FastifyInstance, deps: ShareRouteDeps): void {
  const html = deps.html ?? cardHtml;

  const page = async (
    framed: boolean,
    m: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    const payload = typeof m === 'string' ? decodeSharePayload(m) : undefined;
    if (!payload)
      return problemPage(
        reply,
        400,
        'Not a model link',
        'This link does not carry a model; ask for a new one.',
      );
    try {
      const compiled = await deps.runner.compile(payload.spec);
      const card = await deps.runner.render(compiled, payload.inputs);
      const accepted = Object.fromEntries(
        Object.entries(payload.inputs).filter(([p]) => !card.rejectedInputs.some((r) => r.path === p)),
      );
      const data = { card: cardPayload(card, accepted, false), api: '/share/api', embed: framed };
      const inject = `<script>window.__MODELWORKS_SHARE__=${scriptJson(data)}</script>`;
      const text = html();
      const at = text.indexOf('<script');
      const body = at < 0 ? `${text}${inject}` : `${text.slice(0, at)}${inject}${text.slice(at)}`;
      // the page is the link's card: the same link gives the same page, so a browser may revalidate it
      reply.header('content-security-policy', csp(framed)).header('referrer-policy', 'no-referrer');
      return sendEncodedPage(request, reply, encodePage(body));
    } catch (err) {
      if (err instanceof CardError) return problemPage(reply, 422, 'This model cannot be shown', err.message);
      throw err;
    }
  };

  app.get('/share/card', (req, reply) => page(false, (req.query as Record<string, unknown>).m, req, reply));
  app.get('/share/embed', (req, reply) => page(true, (req.query as Record<string, unknown>).m, req, reply));

  const body = (raw: unknown): Record<string, unknown> => (isObject(raw) ? raw : {});
  const inputsOf = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});

  app.post('/share/api/valem_recompute', async (req, reply) => {
    const b = body(req.body);
    try {
      const outcome = await deps.runner.recompute(String(b.specHash ?? ''), inputsOf(b.inputs), b.spec);
      return toolAnswer(recomputeAnswer(outcome));
    } catch (err) {
      if (err instanceof CardError) return reply.code(200).send(toolAnswer(err.payload, true));
      throw err;
    }
  });

  app.post('/share/api/explain_value', async (req, reply) => {
    const b = body(req.body);
    try {
      const { text, ...why } = await deps.runner.explain(
        String(b.specHash ?? ''),
        String(b.path ?? ''),
        inputsOf(b.inputs),
        b.spec,
      );
      return { ...toolAnswer(why), content: [{ type: 'text', text }] };
    } catch (err) {
      if (err instanceof CardError) return reply.code(200).send(toolAnswer(err.payload, true));
      if (isEngineError(err)) req.log.error({ err }, 'explain failed');
      return reply.code(200).send(toolAnswer({ error: publicMessage(err) }, true));
    }
  });
}
