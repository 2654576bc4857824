/**
 * The six synth tools: list_components, validate_model, analyze_model, get_allowlists, generate
 * and read_generation. Discovery, validation and analysis run in this process in both modes;
 * generate goes to the embedded engine or the synth Service by the server-wide mode, and
 * read_generation routes by id prefix (`e-` local cache, `g-` the Service) whatever the mode.
 */
import type { SynthServiceClient } from '../remote/synth-service-client.js';
import { SynthServiceError } from '../service/synth-errors.js';
import {
  DEFAULT_PAGE_LIMIT,
  DEFAULT_PREVIEW_LIMIT,
  MAX_PAGE_LIMIT,
  MAX_PREVIEW_LIMIT,
  modelTextArg,
  type SynthService,
} from '../service/synth-service.js';
import { PAGED_FORMATS } from '../service/synth-generation.js';
import { RESULT_LIMIT_CHARS, type ToolResult } from './results.js';
import { input, output, READ, WRITE, type ToolDefinition } from './tool.js';

export type SynthGenerateMode = 'embedded' | 'proxy';

export interface SynthToolsOptions {
  service: SynthService;
  mode: SynthGenerateMode;
  /** The synth Service: proxy mode's generate, and reading any `g-…` generation. */
  remote: SynthServiceClient;
  /** Where the detail of an unexpected failure goes (the result carries only INTERNAL). */
  log?: (message: string) => void;
}

/** A page's JSON-escaped data budget: the page plus its other fields stays inside one result. */
export const PAGE_MAX_CHARS = RESULT_LIMIT_CHARS - 10_000;
/** list_components' own guard: room for the full catalogue of this build. */
const COMPONENT_LIST_LIMIT_CHARS = 200_000;

/** An error's stable code when it carries one of ours (the proxy client's errors do). */
function ownCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && /^[A-Z_]+$/.test(code) ? code : undefined;
}

/**
 * Errors as structured results: `error` is the message, `code` the stable code. A failure that is
 * not one of ours is INTERNAL with a generic message; its detail goes to `log` only.
 */
export function synthErrorResult(err: unknown, log?: (message: string) => void): ToolResult {
  let shape: Record<string, unknown>;
  if (err instanceof SynthServiceError) shape = { error: err.message, code: err.code, ...err.details };
  else if (ownCode(err) !== undefined) shape = { error: (err as Error).message, code: ownCode(err) };
  else {
    log?.(`synth tool: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    shape = {
      error: 'internal error; nothing was changed, and the server log has the details',
      code: 'INTERNAL',
    };
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(shape, null, 2) }],
    structuredContent: shape,
    isError: true,
  };
}

/**
 * A successful result: the text block is the compact JSON of structuredContent (generated data is
 * mostly escaped newlines; pretty-printing would only spend the host's context window).
 */
function synthResult(payload: Record<string, unknown>, limit = RESULT_LIMIT_CHARS): ToolResult {
  const text = JSON.stringify(payload);
  if (text.length > limit)
    return synthErrorResult(
      new SynthServiceError(
        'TOO_LARGE',
        `Result too large (${text.length} characters, limit ${limit}); narrow the request`,
      ),
    );
  return { content: [{ type: 'text', text }], structuredContent: payload };
}

async function guardedCall(
  run: () => unknown,
  limit = RESULT_LIMIT_CHARS,
  log?: (message: string) => void,
): Promise<ToolResult> {
  try {
    return synthResult((await run()) as Record<string, unknown>, limit);
  } catch (err) {
    return synthErrorResult(err, log);
  }
}

const modelText = {
  type: 'string',
  description:
    'Model text (XML, JSON or .sgm), not a path; relative Import/FlatFile/SQLite paths resolve only under allowlisted folders (get_allowlists)',
};

const COMPONENT_LIST = output(
  {
    edition: { type: 'string' },
    totalCount: { type: 'integer' },
    components: { type: 'array', items: { type: 'object' } },
  },
  ['edition', 'totalCount', 'components'],
);

const VALIDATION = output(
  {
    valid: { type: 'boolean' },
    rootName: { type: ['string', 'null'] },
    nodeCount: { type: ['integer', 'null'] },
    failures: { type: 'array', items: { type: 'object' } },
    loadError: { type: 'string' },
  },
  ['valid', 'rootName', 'nodeCount', 'failures'],
);

const ANALYSIS = output(
  {
    rootName: { type: 'string' },
    timestamp: { type: 'string' },
    complexity: { type: 'object' },
    throughput: { type: ['object', 'null'] },
    isolatedBenchmark: { type: ['object', 'null'] },
  },
  ['rootName', 'timestamp', 'complexity'],
);

const ALLOWLISTS = output(
  {
    flatFilePathAllowlist: { type: 'array', items: { type: 'string' } },
    databaseUrlAllowlist: { type: 'array', items: { type: 'string' } },
    databaseAllowQuery: { type: 'boolean' },
    serviceUrlAllowlist: { type: 'array', items: { type: 'string' } },
    customComponentDirAllowlist: { type: 'array', items: { type: 'string' } },
  },
  [
    'flatFilePathAllowlist',
    'databaseUrlAllowlist',
    'databaseAllowQuery',
    'serviceUrlAllowlist',
    'customComponentDirAllowlist',
  ],
);

const format = { type: 'string', enum: [...PAGED_FORMATS] };

const GENERATION = output(
  {
    modelId: { type: 'string' },
    generationId: { type: 'string' },
    count: { type: 'integer' },
    rowCount: { type: 'integer' },
    totalCount: { type: 'integer' },
    hasMore: { type: 'boolean' },
    format,
    seed: { type: 'string' },
    seedSource: { type: 'string' },
    preview: { type: 'string' },
  },
  ['modelId', 'generationId', 'count', 'rowCount', 'totalCount', 'hasMore', 'format', 'seed', 'preview'],
);

const PAGE = output(
  {
    generationId: { type: 'string' },
    modelId: { type: 'string' },
    offset: { type: 'integer' },
    rowCount: { type: 'integer' },
    totalCount: { type: 'integer' },
    hasMore: { type: 'boolean' },
    nextOffset: { type: ['integer', 'null'] },
    format,
    data: { type: 'string' },
  },
  ['generationId', 'offset', 'rowCount', 'totalCount', 'hasMore', 'data'],
);

/** Runs a tool's work under the result size guard, with errors as stable codes. */
type Guarded = (run: () => unknown, limit?: number) => Promise<ToolResult>;

export function synthTools(options: SynthToolsOptions): ToolDefinition[] {
  const guarded: Guarded = (run, limit = RESULT_LIMIT_CHARS) => guardedCall(run, limit, options.log);
  return [...synthModelTools(options, guarded), ...generationTools(options, guarded)];
}

/** The catalogue, checking and costing a model, and what outside data models may reach. */
function synthModelTools({ service }: SynthToolsOptions, guarded: Guarded): ToolDefinition[] {
  return [
    {
      name: 'list_components',
      title: 'List synth components',
      description:
        'The generators and filters a synth model can use, with every parameter (name, type, default, aliases, allowed values). Filter by `name` (one component) or `category` (generator | filter), not both. Result: {edition, totalCount, components}.',
      inputSchema: input({
        name: { type: 'string', description: 'One component by name, e.g. "Normal"' },
        category: { type: 'string', enum: ['generator', 'filter'], description: 'Only this category' },
      }),
      outputSchema: COMPONENT_LIST,
      annotations: READ,
      // The whole catalogue (Free + Pro, ~60k characters) is fixed by the build, not by the caller,
      // and the contract returns it unfiltered: the size guard is for caller-driven results.
      run: (a) =>
        guarded(() => service.components({ name: a.name, category: a.category }), COMPONENT_LIST_LIMIT_CHARS),
    },
    {
      name: 'validate_model',
      title: 'Validate a synth model',
      description:
        'Parses, loads and validates model text. Result: {valid, rootName, nodeCount, failures: [{nodeName, nodeType, message}], loadError?}; loadError (with rootName and nodeCount null) when it does not parse or load.',
      inputSchema: input({ modelText }, ['modelText']),
      outputSchema: VALIDATION,
      annotations: READ,
      run: (a) => guarded(() => service.validate(a.modelText)),
    },
    {
      name: 'analyze_model',
      title: 'Analyse a synth model',
      description:
        'Complexity (node count, depths, predicted average depth, score, summary), a timed throughput run and, with isolate, a per-node cost estimate. Result: {rootName, timestamp, complexity, throughput|null, isolatedBenchmark|null}.',
      inputSchema: input(
        {
          modelText,
          throughput: { type: 'boolean', description: 'Run the timed sample (default true)' },
          samples: {
            type: 'integer',
            minimum: 1,
            maximum: 1_000_000,
            description: 'Timed rows (default 5000)',
          },
          isolate: { type: 'boolean', description: 'Also time every node on its own (default false)' },
        },
        ['modelText'],
      ),
      outputSchema: ANALYSIS,
      annotations: READ,
      run: (a) =>
        guarded(() =>
          service.analyze(a.modelText, {
            ...(typeof a.throughput === 'boolean' ? { throughput: a.throughput } : {}),
            ...(typeof a.samples === 'number' ? { samples: a.samples } : {}),
            ...(typeof a.isolate === 'boolean' ? { isolate: a.isolate } : {}),
          }),
        ),
    },
    {
      name: 'get_allowlists',
      title: 'Get the outside-access allowlists',
      description:
        'Which absolute flat-file paths, database URLs and service URLs models may reach, whether database queries are allowed, and which folders custom component modules may load from. Result: {flatFilePathAllowlist, databaseUrlAllowlist, databaseAllowQuery, serviceUrlAllowlist, customComponentDirAllowlist}.',
      inputSchema: input({}),
      outputSchema: ALLOWLISTS,
      annotations: READ,
      run: () => guarded(() => service.allowlistReport()),
    },
  ];
}

/** Generating rows (embedded or through the synth Service) and paging through them. */
function generationTools({ service, remote, mode }: SynthToolsOptions, guarded: Guarded): ToolDefinition[] {
  return [
    {
      name: 'generate',
      title: 'Generate synthetic data',
      description: `Generates \`count\` rows from model text and returns only a bounded preview (the first \`previewLimit\` rows, default ${DEFAULT_PREVIEW_LIMIT}); page through the rest with read_generation. The same model, seed and count always give the same bytes. Result: {modelId, generationId, count, rowCount, totalCount, hasMore, format, seed, seedSource, preview}. Pass \`seed\` back to reproduce a run. Mode on this server: ${mode}.`,
      inputSchema: input(
        {
          modelText,
          count: { type: 'integer', minimum: 0, maximum: 2_000_000, description: 'Rows to generate' },
          format: {
            ...format,
            description:
              'csv (default; no header row, columns are dim0..dimN-1), raw (values verbatim, tab-separated) or ndjson',
          },
          seed: {
            type: ['integer', 'string'],
            description:
              "Run seed (a decimal string for 64-bit values); default: the model's seed when > 0, else a fresh one",
          },
          previewLimit: {
            type: 'integer',
            minimum: 0,
            maximum: MAX_PREVIEW_LIMIT,
            description: `Rows returned inline (default ${DEFAULT_PREVIEW_LIMIT}; fewer when they would make the result too large)`,
          },
        },
        ['modelText', 'count'],
      ),
      outputSchema: GENERATION,
      annotations: WRITE,
      run: (a, ctx) =>
        guarded(() => {
          const args = { count: a.count, format: a.format, seed: a.seed, previewLimit: a.previewLimit };
          if (mode === 'embedded') return service.generateEmbedded(a.modelText, args, ctx.signal);
          // checked here too, so a bad or oversized text never travels to the Service
          return remote.generate(modelTextArg(a.modelText), args, ctx.signal);
        }),
    },
    {
      name: 'read_generation',
      title: 'Read generated rows',
      description: `Pages through a generation: rows from \`offset\`, at most \`limit\` (default ${DEFAULT_PAGE_LIMIT}; fewer if the result would be too large; go on at nextOffset while hasMore). Preview plus pages = the bytes of \`modelworks synth grind\`. e-… ids: this server's last 20 embedded generations; g-… ids: the synth Service. Result: {generationId, modelId, offset, rowCount, totalCount, hasMore, nextOffset, format, data}.`,
      inputSchema: input(
        {
          generationId: { type: 'string', description: 'The id generate returned (e-… or g-…)' },
          offset: { type: 'integer', minimum: 0, description: 'First row (0-based; default 0)' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, description: 'Most rows to return' },
        },
        ['generationId'],
      ),
      outputSchema: PAGE,
      annotations: READ,
      run: (a, ctx) =>
        guarded(() => {
          const id = typeof a.generationId === 'string' ? a.generationId : '';
          const args = { offset: a.offset, limit: a.limit, maxChars: PAGE_MAX_CHARS };
          if (id.startsWith('g-')) return remote.read(id, args, ctx.signal);
          if (id.startsWith('e-')) return service.readGeneration(id, args);
          throw new SynthServiceError(
            'GENERATION_NOT_FOUND',
            `'${id}' is not a generation id: generate returns e-… (embedded) or g-… (Service) ids`,
            { generationId: id },
          );
        }),
    },
  ];
}
