/**
 * Spec generation over REST (docs/generate.md): the prompt preview (no provider needed), one-shot
 * and streamed (SSE) generation, natural-language evolution of a stored model, and the
 * interactions log. Without a provider the generating routes answer 503 saying how to set one up.
 * A paired sandbox session may generate: its model ids are kept inside its namespace.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CalcError, publicMessage } from '../calc/index.js';
import { LlmError, notConfigured } from '../llm/index.js';
import type { CalcService } from '../service/calc-service.js';
import type { GenerateRequest, GenerateResult, ProgressFrame, SpecGenerator } from '../service/generate.js';
import { calcErrorReply, problem, type ErrorReply } from './problems.js';
import { NAMESPACE_SEPARATOR } from './sandbox-routes.js';
import { commonErrors, expectedRevision, idParam, modelErrors, reply } from './schemas.js';
import { sessionNamespace } from './security.js';

const tags = ['generate'];

const problemOf = (description: string) => ({ ...commonErrors[400], description });

const GENERATE_BODY = {
  type: 'object',
  properties: {
    description: { type: 'string', description: 'The model in plain language (at most 5,000 characters)' },
    domainDescription: { type: 'string', description: 'Same as description (Valem’s name)' },
    prompt: { type: 'string', description: 'A whole user prompt instead (at most 100,000 characters)' },
    modelId: { type: 'string', description: 'The id to give the spec; otherwise the model chooses one' },
    includeView: { type: 'boolean', description: 'Ask for a viewDefinition too (default false)' },
    topics: { type: 'array', items: { type: 'string' }, description: 'Domain-guidance topic ids to include' },
    create: {
      type: 'boolean',
      description: 'Create the model when the spec is valid (answer carries created)',
    },
  },
  additionalProperties: false,
} as const;

interface GenerateBody extends GenerateRequest {
  domainDescription?: string;
  create?: boolean;
}

const generationErrors = {
  ...commonErrors,
  413: problemOf('LLM_BUDGET_EXCEEDED: the token or time budget ran out; errors, rawResponse, best spec'),
  422: problemOf('GENERATION_UNCONVERGED: no valid spec within the attempts; errors, rawResponse, best spec'),
  429: problemOf('BUSY: too many language-model calls waiting'),
  502: problemOf('LLM_FAILED: the provider call failed'),
  503: problemOf('LLM_NOT_CONFIGURED: no provider is configured (the detail says how to set one up)'),
};

/** The reply of a refusal: our catalogue code, status and words, plus the loop's details. */
export function llmErrorReply(err: unknown): ErrorReply | undefined {
  if (err instanceof LlmError) {
    const { errors, rawResponse, spec, verification, attempts, retryAfterSeconds } = err.details;
    return problem(err.status, err.message, {
      code: err.code,
      ...(err.code === 'GENERATION_UNCONVERGED' || err.code === 'LLM_BUDGET_EXCEEDED'
        ? { valid: false }
        : {}),
      ...(errors !== undefined ? { errors } : {}),
      ...(rawResponse !== undefined ? { rawResponse } : {}),
      ...(spec !== undefined ? { spec } : {}),
      ...(verification !== undefined ? { verification } : {}),
      ...(attempts !== undefined ? { attempts } : {}),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    });
  }
  if (err instanceof CalcError) return calcErrorReply(err);
  return undefined;
}

async function replyWithError(res: FastifyReply, err: unknown): Promise<FastifyReply> {
  const out = llmErrorReply(err);
  if (!out) throw err; // the app's handler logs it and answers our generic 500
  if (out.status === 429) void res.header('retry-after', String(out.body.retryAfterSeconds ?? 60));
  return res.code(out.status).type(out.contentType).send(out.body);
}

/** `ns__` for a paired session's request, '' otherwise. */
function namespacePrefix(request: FastifyRequest): string {
  const ns = sessionNamespace(request);
  return ns === undefined ? '' : `${ns}${NAMESPACE_SEPARATOR}`;
}

function requestOf(body: GenerateBody | undefined, prefix: string): GenerateRequest {
  const b = body ?? {};
  const description = b.description ?? b.domainDescription;
  const modelId =
    b.modelId === undefined || b.modelId.startsWith(prefix) ? b.modelId : `${prefix}${b.modelId}`;
  return {
    ...(description !== undefined ? { description } : {}),
    ...(b.prompt !== undefined ? { prompt: b.prompt } : {}),
    ...(modelId !== undefined ? { modelId } : {}),
    ...(b.includeView !== undefined ? { includeView: b.includeView } : {}),
    ...(b.topics !== undefined ? { topics: b.topics } : {}),
  };
}

/** The result, its spec id kept in the session's namespace, and the model created when asked. */
async function finish(
  calc: CalcService,
  result: GenerateResult,
  prefix: string,
  create: boolean,
): Promise<Record<string, unknown>> {
  const id = typeof result.spec.id === 'string' ? result.spec.id : '';
  if (prefix && !id.startsWith(prefix)) result.spec.id = `${prefix}${id}`;
  if (!create) return { ...result };
  try {
    return { ...result, created: await calc.createModel(result.spec) };
  } catch (err) {
    const code = err instanceof CalcError ? err.code : 'INTERNAL';
    return { ...result, created: null, createError: { code, message: publicMessage(err) } };
  }
}

/** Aborted when the client hangs up before the answer is sent. */
function hangUpSignal(res: FastifyReply): AbortSignal {
  const controller = new AbortController();
  res.raw.once('close', () => {
    if (!res.raw.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}

export function registerGenerateRoutes(
  app: FastifyInstance,
  calc: CalcService,
  generator: SpecGenerator,
): void {
  registerPreviewRoute(app, generator);
  registerGenerateRoute(app, calc, generator);
  registerStreamRoute(app, calc, generator);
  registerEvolveRoute(app, calc, generator);
  registerInteractionsRoute(app, generator);
}

function registerPreviewRoute(app: FastifyInstance, generator: SpecGenerator): void {
  app.post<{ Body: GenerateBody }>(
    '/models/generate/preview',
    {
      schema: {
        tags,
        summary: 'The prompt a generation would send (no provider call; works without a provider)',
        body: GENERATE_BODY,
        response: { 200: reply('{system, user, topics}'), ...commonErrors },
      },
    },
    async (req, res) => {
      try {
        return await res.code(200).send(generator.preview(requestOf(req.body, namespacePrefix(req))));
      } catch (err) {
        return replyWithError(res, err);
      }
    },
  );
}

function registerGenerateRoute(app: FastifyInstance, calc: CalcService, generator: SpecGenerator): void {
  app.post<{ Body: GenerateBody }>(
    '/models/generate',
    {
      schema: {
        tags,
        summary:
          'Generate a ModelSpec from a description (the whole repair loop; create: true also creates it)',
        body: GENERATE_BODY,
        response: {
          200: reply(
            '{valid: true, spec, verification: {state, checkedCount, passedCount, unverifiableCount, cases}, attempts, topics, warnings, created?}',
          ),
          ...generationErrors,
        },
      },
    },
    async (req, res) => {
      const prefix = namespacePrefix(req);
      try {
        const request = requestOf(req.body, prefix);
        generator.preview(request); // a malformed request is refused before the provider is asked
        if (!generator.configured) throw notConfigured();
        const result = await generator.generate(request, { signal: hangUpSignal(res) });
        return await res.code(200).send(await finish(calc, result, prefix, req.body?.create === true));
      } catch (err) {
        return replyWithError(res, err);
      }
    },
  );
}

function registerStreamRoute(app: FastifyInstance, calc: CalcService, generator: SpecGenerator): void {
  app.post<{ Body: GenerateBody }>(
    '/models/generate/stream',
    {
      schema: {
        tags,
        summary: 'Generate as a server-sent event stream: progress frames, then done or error',
        body: GENERATE_BODY,
        response: {
          200: reply(
            'text/event-stream: `event: progress` {phase, attempt, …} frames, then `event: done` (as POST /models/generate answers) or `event: error` {code, message, errors?, rawResponse?}',
          ),
          ...generationErrors,
        },
      },
    },
    async (req, res) => {
      const prefix = namespacePrefix(req);
      let request: GenerateRequest;
      try {
        request = requestOf(req.body, prefix);
        generator.preview(request);
        if (!generator.configured) throw notConfigured();
      } catch (err) {
        return replyWithError(res, err);
      }
      res.hijack();
      const raw = res.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      const send = (event: string, data: unknown): void => {
        if (!raw.writableEnded) raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      };
      const signal = hangUpSignal(res);
      try {
        const result = await generator.generate(request, {
          signal,
          progress: (frame: ProgressFrame) => send('progress', frame),
        });
        send('done', await finish(calc, result, prefix, req.body?.create === true));
      } catch (err) {
        const out = llmErrorReply(err);
        if (!out) req.log.error({ err }, 'generation failed');
        const body = out?.body ?? { code: 'INTERNAL', detail: 'Internal server error' };
        const { detail, type: _t, title: _ti, status: _s, ...rest } = body;
        send('error', { ...rest, message: detail });
      }
      raw.end();
    },
  );
}

function registerEvolveRoute(app: FastifyInstance, calc: CalcService, generator: SpecGenerator): void {
  app.post<{ Params: { id: string }; Body: GenerateBody & { expectedRevision?: number } }>(
    '/models/:id/spec/evolve/ai',
    {
      schema: {
        tags,
        summary:
          'Evolve a model from a description: the drafted SpecEvolution goes through the ordinary evolve path',
        params: idParam,
        body: {
          ...GENERATE_BODY,
          properties: { ...GENERATE_BODY.properties, expectedRevision },
        },
        response: {
          200: reply('{id, version, revision, evolution, spec, verification, attempts}'),
          ...modelErrors,
          409: problemOf('VERSION_CONFLICT: the model changed while the evolution was drafted'),
          413: generationErrors[413],
          422: generationErrors[422],
          429: generationErrors[429],
          502: generationErrors[502],
          503: generationErrors[503],
        },
      },
    },
    async (req, res) => {
      try {
        const request = requestOf(req.body, '');
        const { modelId: _ignored, ...rest } = request;
        generator.preview(rest);
        if (!generator.configured) throw notConfigured();
        const result = await generator.evolve(
          calc,
          req.params.id,
          {
            ...rest,
            ...(req.body?.expectedRevision !== undefined
              ? { expectedRevision: req.body.expectedRevision }
              : {}),
          },
          { signal: hangUpSignal(res) },
        );
        return await res.code(200).send(result);
      } catch (err) {
        return replyWithError(res, err);
      }
    },
  );
}

function registerInteractionsRoute(app: FastifyInstance, generator: SpecGenerator): void {
  app.get(
    '/llm/interactions',
    {
      schema: {
        tags,
        summary:
          'The last provider calls, newest first (content redacted when MODELWORKS_LLM_LOG_CONTENT=false)',
        response: {
          200: reply(
            '{configured, provider?, model?, interactions: [{timestamp, purpose, provider, model, attempt?, system, user, response, errorMessage, outcome, durationMs, promptChars, responseChars, inputTokens, outputTokens}]}',
          ),
          ...commonErrors,
        },
      },
    },
    async (req, res) => {
      // the operator's view: never a paired browser's (it may hold other sessions' prompts)
      if (sessionNamespace(req) !== undefined)
        return res
          .code(403)
          .type('application/problem+json')
          .send(problem(403, 'The interactions log is for the server operator', { code: 'FORBIDDEN' }).body);
      return res.code(200).send(generator.interactions());
    },
  );
}
