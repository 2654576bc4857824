/**
 * The synth operations behind the MCP tools and the HTTP Service: component listing, validation,
 * analysis, allowlists, a registry of models (`m-…`, evicted after an idle timeout), Service
 * generations (`g-…`) and embedded generations (`e-…`), both run one at a time by a bounded
 * worker queue and paged out of in-memory caches bounded in count and in bytes. Model text never
 * reads the server's files implicitly: relative paths in it resolve only under the allowlists.
 * A failure is always a SynthServiceError; anything unexpected becomes INTERNAL with a generic
 * message, its detail going to the log only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Allowlists } from '../synth/access/allowlists.js';
import {
  type Analysis,
  type ComponentDescriptor,
  type ComponentImpl,
  type Edition,
  type LoadOptions,
  type PreparedModel,
  type SynthLimits,
  type ValidationResult,
  DEFAULT_LIMITS,
  SynthError,
  SynthRun,
  analyzeModel,
  componentsJson,
  loadSynthModel,
  parseModel,
  resolveSeed,
  validateModel,
  validateModelAsync,
} from '../synth/index.js';
import { realPorts } from '../synth-io/index.js';
import { defaultWorkers } from '../synth-io/parallel/index.js';
import type { AuditSink } from './synth-audit.js';
import { customComponentDirs, loadAllowlists } from './synth-allowlists.js';
import { SynthServiceError } from './synth-errors.js';
import {
  type Generation,
  type GenerationSeedSource,
  type PagedFormat,
  GenerationCache,
  pageOf,
  parseFormat,
  parseSeedArgument,
  produceGeneration,
} from './synth-generation.js';
import { DEFAULT_BUDGETS, SYNTH_BUDGET_ENV, bytesSetting } from './synth-settings.js';
import { WorkQueue } from './synth-work-queue.js';
import { inSpan } from '../observability/tracing.js';

export { bytesSetting } from './synth-settings.js';

export { SynthServiceError } from './synth-errors.js';
export type { SynthServiceErrorCode } from './synth-errors.js';

export const EMBEDDED_MAX_BYTES_ENV = SYNTH_BUDGET_ENV.embeddedMaxBytes;
export const DEFAULT_EMBEDDED_MAX_BYTES = DEFAULT_BUDGETS.embeddedMaxBytes;
export const EMBEDDED_CACHE_SIZE = 20;
export const DEFAULT_PREVIEW_LIMIT = 100;
export const MAX_PREVIEW_LIMIT = 10_000;
/** The preview's JSON-escaped size budget: keeps a generate result well inside an MCP result. */
export const PREVIEW_MAX_CHARS = 40_000;
export const DEFAULT_PAGE_LIMIT = 1000;
export const MAX_PAGE_LIMIT = 100_000;
export const MAX_MODEL_TEXT_BYTES = 1024 * 1024;

export interface ComponentList {
  edition: string;
  totalCount: number;
  /** The build's catalogue, then the custom components models on this server have loaded (`custom: true`). */
  components: (ComponentDescriptor & { custom?: true })[];
}

/** How many loaded custom components list_components remembers (the most recently loaded). */
const MAX_LISTED_CUSTOMS = 64;

export interface ModelInfo {
  modelId: string;
  rootName: string;
  nodeCount: number;
  sha256: string;
  registeredAt: string;
  lastUsedAt: string;
  idleTimeoutMs: number;
}

/** What `generate` returns, in both modes (the seed's shape). */
export interface GenerateResult {
  modelId: string;
  generationId: string;
  count: number;
  rowCount: number;
  totalCount: number;
  hasMore: boolean;
  format: PagedFormat;
  seed: string;
  seedSource: GenerationSeedSource;
  preview: string;
}

/** One page of a generation. */
export interface GenerationPage {
  generationId: string;
  modelId: string;
  offset: number;
  rowCount: number;
  totalCount: number;
  hasMore: boolean;
  nextOffset: number | null;
  format: PagedFormat;
  data: string;
}

export interface GenerationInfo {
  generationId: string;
  modelId: string;
  count: number;
  format: PagedFormat;
  seed: string;
  seedSource: GenerationSeedSource;
  bytes: number;
  createdAt: string;
}

/** generate's arguments apart from the model. */
export interface GenerateArgs {
  count: unknown;
  format?: unknown;
  seed?: unknown;
  previewLimit?: unknown;
}

/** A generate call's arguments, checked. */
interface GenerateRequest {
  count: number;
  format: ReturnType<typeof parseFormat>;
  seedArg: ReturnType<typeof parseSeedArgument>;
  previewLimit: number;
}

function parseGenerateArgs(args: GenerateArgs): GenerateRequest {
  return {
    count: countArg(args.count),
    format: parseFormat(args.format),
    seedArg: parseSeedArgument(args.seed),
    previewLimit: intArg(args.previewLimit, 'previewLimit', DEFAULT_PREVIEW_LIMIT, 0, MAX_PREVIEW_LIMIT),
  };
}

export interface AnalyzeArgs {
  throughput?: boolean;
  samples?: number;
  isolate?: boolean;
}

export interface SynthServiceOptions {
  /**
   * `full` (default) or `free`: the Free edition lists only Free components and refuses the rest
   * when a model loads, with the same gates as `grind --edition free`.
   */
  edition?: Edition;
  /** Folders custom component modules may load from; default: MODELWORKS_SYNTH_CUSTOM_COMPONENT_DIR_ALLOWLIST. */
  customComponentDirs?: () => string[];
  /** The outside-access policy; read per call so a malformed setting is reported where it is used. */
  allowlists?: () => Allowlists;
  /** Receives the mcp.embedded_generate.start/stop events. */
  audit?: AuditSink;
  /** Size cap of an embedded generation (MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES). */
  embeddedMaxBytes?: number;
  /**
   * Bytes every embedded generation kept for paging may hold together
   * (MODELWORKS_SYNTH_EMBEDDED_CACHE_MAX_BYTES); at least `embeddedMaxBytes`.
   */
  embeddedCacheMaxBytes?: number;
  /** Size cap of a Service generation. */
  serviceMaxBytes?: number;
  /** Service generations kept for paging. */
  serviceCacheSize?: number;
  /**
   * Bytes every Service generation kept for paging may hold together
   * (MODELWORKS_SYNTH_CACHE_MAX_BYTES); at least `serviceMaxBytes`.
   */
  serviceCacheMaxBytes?: number;
  /** The engine's budgets (row width, counts, ServiceCall caps); default DEFAULT_LIMITS. */
  limits?: SynthLimits;
  /** Where the detail of an unexpected failure goes (the result says only INTERNAL). */
  log?: (message: string) => void;
  /** Idle time after which a registered model is forgotten. */
  modelIdleTimeoutMs?: number;
  maxModels?: number;
  /** Generations that may wait behind the running one. */
  maxQueue?: number;
  /** Milliseconds clock for idle eviction (tests pass their own). */
  now?: () => number;
  /**
   * Threads one generation renders on (MODELWORKS_SYNTH_WORKERS, read where the surface is
   * configured); default: the cores available. Never changes the bytes.
   */
  workers?: number;
}

/** Totals since start and current sizes, read by the metrics at each scrape. */
export interface SynthStats {
  /** Generations finished, by kind (`service` g-…, `embedded` e-…) and outcome. */
  generations: Record<'service' | 'embedded', { ok: number; failed: number }>;
  rows: number;
  bytes: number;
  queueDepth: number;
  cacheBytes: Record<'service' | 'embedded', number>;
  evictions: Record<'service' | 'embedded', number>;
}

interface ModelEntry {
  info: ModelInfo;
  /** Loaded once at registration: composed, gated, with its outside data in memory. */
  prepared: PreparedModel;
  lastUsed: number;
  /** Generations of it queued or running: its idle clock stands still while any is. */
  inUse: number;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A fresh positive 63-bit seed, so it reproduces the run when passed back. */
function freshSeed(): bigint {
  return randomBytes(8).readBigUInt64BE() >> 1n || 1n;
}

const newId = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`;

function intArg(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new SynthServiceError(
      'BAD_REQUEST',
      `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`,
    );
  return value;
}

function countArg(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new SynthServiceError(
      'BAD_REQUEST',
      `count must be a non-negative integer (got ${JSON.stringify(value)})`,
    );
  return value;
}

export function modelTextArg(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new SynthServiceError('BAD_REQUEST', 'modelText must be a non-empty string holding the model');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_MODEL_TEXT_BYTES)
    throw new SynthServiceError(
      'TOO_LARGE',
      `modelText is ${bytes} bytes; the limit is ${MAX_MODEL_TEXT_BYTES}`,
      { bytes, maxBytes: MAX_MODEL_TEXT_BYTES },
    );
  return value;
}

/** The embedded size cap, MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES (default 64 MiB). */
export function embeddedMaxBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return bytesSetting(env, EMBEDDED_MAX_BYTES_ENV, DEFAULT_EMBEDDED_MAX_BYTES);
}

/**
 * Parses model text and runs the engine's load phase (imports, declares, edition gates, outside
 * data through the real ports under the allowlists), then validates the result. A bad model is a
 * MODEL_INVALID error carrying the validation report.
 */
async function loadModel(text: string, options: LoadOptions): Promise<PreparedModel> {
  let prepared: PreparedModel;
  try {
    prepared = await loadSynthModel(parseModel(text), options);
  } catch (err) {
    if (err instanceof SynthError) {
      const validation: ValidationResult = {
        valid: false,
        rootName: null,
        nodeCount: null,
        failures: [],
        loadError: err.message,
      };
      throw new SynthServiceError('MODEL_INVALID', `the model does not load: ${err.message}`, { validation });
    }
    throw err;
  }
  const validation = validateModel(prepared);
  if (!validation.valid) {
    const why =
      validation.loadError ??
      validation.failures
        .map((f) => {
          // a node's own refusal already names it
          const node = `${f.nodeType} "${f.nodeName}": `;
          return f.message.startsWith(node) ? f.message : `${node}${f.message}`;
        })
        .join('; ');
    throw new SynthServiceError('MODEL_INVALID', `the model is not valid: ${why}`, { validation });
  }
  return prepared;
}

/** A cache budget: as given (it must hold one generation), else the default or one generation. */
function cacheBytes(
  given: number | undefined,
  fallback: number,
  perGeneration: number,
  what: string,
): number {
  if (given === undefined) return Math.max(fallback, perGeneration);
  if (!(given >= perGeneration))
    throw new Error(`${what}: ${given} bytes cannot hold one generation of up to ${perGeneration} bytes`);
  return given;
}

export class SynthService {
  private readonly models = new Map<string, ModelEntry>();
  private readonly embedded: GenerationCache;
  private readonly served: GenerationCache;
  private readonly queue: WorkQueue;
  private readonly now: () => number;
  private readonly idleTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private componentCache: ComponentList | undefined;
  /** Custom components loaded by models on this server, by lower-cased name, oldest first. */
  private readonly loadedCustoms = new Map<string, ComponentDescriptor & { custom: true }>();
  private readonly totals = {
    generations: { service: { ok: 0, failed: 0 }, embedded: { ok: 0, failed: 0 } },
    rows: 0,
    bytes: 0,
  };
  readonly embeddedMaxBytes: number;
  readonly serviceMaxBytes: number;
  readonly limits: SynthLimits;

  /** @throws Error when a cache budget could not hold one generation of its cap */
  constructor(private readonly options: SynthServiceOptions = {}) {
    this.now = options.now ?? Date.now;
    this.idleTimeoutMs = options.modelIdleTimeoutMs ?? 30 * 60_000;
    this.embeddedMaxBytes = options.embeddedMaxBytes ?? DEFAULT_EMBEDDED_MAX_BYTES;
    this.serviceMaxBytes = options.serviceMaxBytes ?? DEFAULT_BUDGETS.serviceMaxBytes;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.embedded = new GenerationCache(
      EMBEDDED_CACHE_SIZE,
      cacheBytes(
        options.embeddedCacheMaxBytes,
        DEFAULT_BUDGETS.embeddedCacheMaxBytes,
        this.embeddedMaxBytes,
        SYNTH_BUDGET_ENV.embeddedCacheMaxBytes,
      ),
    );
    this.served = new GenerationCache(
      options.serviceCacheSize ?? 50,
      cacheBytes(
        options.serviceCacheMaxBytes,
        DEFAULT_BUDGETS.serviceCacheMaxBytes,
        this.serviceMaxBytes,
        SYNTH_BUDGET_ENV.serviceCacheMaxBytes,
      ),
    );
    this.queue = new WorkQueue(options.maxQueue ?? 16);
    this.sweeper = setInterval(
      () => this.evictIdleModels(),
      Math.max(50, Math.min(this.idleTimeoutMs / 4, 30_000)),
    );
    this.sweeper.unref();
  }

  // --- discovery -----------------------------------------------------------------------------

  /** The component list, whole or filtered by `name` or `category` (not both). */
  components(filter: { name?: unknown; category?: unknown } = {}): ComponentList {
    this.componentCache ??= JSON.parse(componentsJson(this.edition)) as ComponentList;
    const catalogue = this.componentCache.components;
    const components = [...catalogue, ...this.loadedCustoms.values()];
    const all = { edition: this.componentCache.edition, totalCount: components.length, components };
    const { name, category } = filter;
    if (name !== undefined && category !== undefined)
      throw new SynthServiceError('BAD_REQUEST', 'give name or category, not both');
    if (name !== undefined) {
      if (typeof name !== 'string' || name === '')
        throw new SynthServiceError('BAD_REQUEST', 'name must be a non-empty string');
      const found = all.components.filter((c) => c.name.toLowerCase() === name.toLowerCase());
      if (found.length === 0)
        throw new SynthServiceError('COMPONENT_NOT_FOUND', `unknown component '${name}'`, { name });
      return { edition: all.edition, totalCount: found.length, components: found };
    }
    if (category !== undefined) {
      if (category !== 'generator' && category !== 'filter')
        throw new SynthServiceError(
          'BAD_REQUEST',
          `category must be generator or filter (got ${JSON.stringify(category)})`,
        );
      const found = all.components.filter((c) => c.category === category);
      return { edition: all.edition, totalCount: found.length, components: found };
    }
    return all;
  }

  /** What get_allowlists and GET /v1/allowlists report: the allowlists and the custom component folders. */
  allowlistReport(): Allowlists & { customComponentDirAllowlist: string[] } {
    return { ...this.allowlists(), customComponentDirAllowlist: this.customComponentDirs() };
  }

  private customComponentDirs(): string[] {
    try {
      return (this.options.customComponentDirs ?? (() => customComponentDirs(process.env)))();
    } catch (err) {
      throw new SynthServiceError(
        'CONFIG',
        `the allowlist settings are malformed: ${(err as Error).message}`,
      );
    }
  }

  allowlists(): Allowlists {
    try {
      return (this.options.allowlists ?? (() => loadAllowlists(process.env)))();
    } catch (err) {
      throw new SynthServiceError(
        'CONFIG',
        `the allowlist settings are malformed: ${(err as Error).message}`,
      );
    }
  }

  /**
   * How models given as text are loaded: this service's edition, the current allowlists, the real ports,
   * this service's budgets, and no working directory. Text has no folder, so a relative Import,
   * FlatFile or SQLite path resolves only under the folders the allowlists list (none unless the
   * operator configures some), never against the directory the server was started in.
   */
  loadOptions(): LoadOptions {
    return {
      edition: this.edition,
      allowlists: this.allowlists(),
      customComponentDirs: this.customComponentDirs(),
      ports: realPorts(),
      limits: this.limits,
      onCustomsLoaded: (customs) => this.rememberCustoms(customs),
    };
  }

  /** A custom component appears in list_components once a model has loaded it (newest kept). */
  private rememberCustoms(customs: ReadonlyMap<string, ComponentImpl>): void {
    for (const [key, impl] of customs) {
      this.loadedCustoms.delete(key);
      this.loadedCustoms.set(key, { ...impl.descriptor, custom: true });
    }
    for (const key of this.loadedCustoms.keys()) {
      if (this.loadedCustoms.size <= MAX_LISTED_CUSTOMS) break;
      this.loadedCustoms.delete(key);
    }
  }

  /** The edition models load under (`full` unless the operator chose `free`). */
  get edition(): Edition {
    return this.options.edition ?? 'full';
  }

  /**
   * Runs `work`, passing on SynthServiceErrors; anything else is a fault of ours: its detail goes
   * to the log, the caller gets INTERNAL and a message in our words.
   */
  private async guard<T>(what: string, work: () => Promise<T> | T): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw this.internal(what, err);
    }
  }

  private internal(what: string, err: unknown): SynthServiceError {
    if (err instanceof SynthServiceError) return err;
    const detail = err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
    this.options.log?.(`internal error while ${what}: ${detail}`);
    return new SynthServiceError(
      'INTERNAL',
      `internal error while ${what}; nothing was changed, and the server log has the details`,
    );
  }

  /** validate_model: the §6.2 report after the full load phase (tables, databases, services). */
  async validate(modelText: unknown): Promise<ValidationResult> {
    const text = modelTextArg(modelText);
    const options = this.loadOptions();
    return this.guard('validating a model', async () => {
      try {
        return await validateModelAsync(parseModel(text), options);
      } catch (err) {
        if (err instanceof SynthError)
          return { valid: false, rootName: null, nodeCount: null, failures: [], loadError: err.message };
        throw err;
      }
    });
  }

  /** analyze_model's result: the analyzer's report without the file-oriented fields. */
  async analyze(modelText: unknown, args: AnalyzeArgs = {}): Promise<Analysis> {
    const text = modelTextArg(modelText);
    const samples = intArg(args.samples, 'samples', 5000, 1, 1_000_000);
    const load = this.loadOptions();
    return this.guard('analysing a model', () => this.analyzeText(text, samples, args, load));
  }

  private async analyzeText(
    text: string,
    samples: number,
    args: AnalyzeArgs,
    load: LoadOptions,
  ): Promise<Analysis> {
    try {
      const model = parseModel(text);
      // Outside data is read once here; a model the load refuses (a class this build lacks) is
      // handed to the analyzer as parsed, which scores it untimed or reports why it cannot.
      const source = await loadSynthModel(model, load).catch((err: unknown) => {
        if (err instanceof SynthError) return model;
        throw err;
      });
      return analyzeModel(source, {
        load,
        throughput: args.throughput ?? true,
        samples,
        warmupMs: 0,
        isolate: args.isolate ?? false,
        isolateRounds: 10,
        isolateIterations: 50,
        isolateWarmupRounds: 3,
        isolateThreshold: 3,
        now: () => performance.now(),
        timestamp: new Date().toISOString(),
      });
    } catch (err) {
      if (err instanceof SynthError)
        throw new SynthServiceError('MODEL_INVALID', `the model cannot be analysed: ${err.message}`);
      throw err;
    }
  }

  // --- the model registry --------------------------------------------------------------------

  /** Registers inline model text (validated first); a new `m-…` id on every call. */
  async registerModel(modelText: unknown): Promise<ModelInfo> {
    const text = modelTextArg(modelText);
    const options = this.loadOptions();
    const prepared = await this.guard('loading a model', () => loadModel(text, options));
    const { model } = prepared;
    this.evictIdleModels();
    const limit = this.options.maxModels ?? 1000;
    if (this.models.size >= limit)
      throw new SynthServiceError(
        'BUSY',
        `too many registered models (${limit}); delete some or wait for idle ones to expire`,
      );
    const at = this.now();
    const info: ModelInfo = {
      modelId: newId('m'),
      rootName: model.root,
      nodeCount: model.nodes.length,
      sha256: sha256(text),
      registeredAt: new Date(at).toISOString(),
      lastUsedAt: new Date(at).toISOString(),
      idleTimeoutMs: this.idleTimeoutMs,
    };
    this.models.set(info.modelId, { info, prepared, lastUsed: at, inUse: 0 });
    return { ...info };
  }

  listModels(): ModelInfo[] {
    this.evictIdleModels();
    return [...this.models.values()].map((e) => ({ ...e.info }));
  }

  getModel(modelId: string): ModelInfo {
    return { ...this.touchModel(modelId).info };
  }

  deleteModel(modelId: string): void {
    this.evictIdleModels();
    if (!this.models.delete(modelId)) throw this.modelNotFound(modelId);
  }

  private modelNotFound(modelId: string): SynthServiceError {
    return new SynthServiceError(
      'MODEL_NOT_FOUND',
      `unknown model '${modelId}' (never registered, deleted, or evicted after ${this.idleTimeoutMs} ms idle); register it again`,
      { modelId },
    );
  }

  private touchModel(modelId: string): ModelEntry {
    this.evictIdleModels();
    const entry = this.models.get(modelId);
    if (!entry) throw this.modelNotFound(modelId);
    this.markUsed(entry);
    return entry;
  }

  private markUsed(entry: ModelEntry): void {
    entry.lastUsed = this.now();
    entry.info.lastUsedAt = new Date(entry.lastUsed).toISOString();
  }

  private evictIdleModels(): void {
    const cutoff = this.now() - this.idleTimeoutMs;
    for (const [id, entry] of this.models)
      if (entry.inUse === 0 && entry.lastUsed < cutoff) this.models.delete(id);
  }

  // --- generation ----------------------------------------------------------------------------

  /** A Service generation (`g-…`) of a registered model, run by the worker queue. */
  async generate(modelId: string, args: GenerateArgs, signal?: AbortSignal): Promise<GenerateResult> {
    const request = parseGenerateArgs(args);
    const entry = this.touchModel(modelId);
    // a generation is use: the idle clock pauses while it waits and runs, and restarts at its end
    entry.inUse++;
    let gen: Generation;
    try {
      gen = await this.guard('generating', () =>
        this.produce(entry.prepared, request, {
          id: newId('g'),
          modelId,
          maxBytes: this.serviceMaxBytes,
          maxBytesSetting: 'synth serve --max-bytes / MODELWORKS_SYNTH_SERVICE_MAX_BYTES',
          ...(signal ? { signal } : {}),
        }),
      );
    } finally {
      entry.inUse--;
      this.markUsed(entry);
    }
    this.served.add(gen);
    return this.resultOf(gen, request.previewLimit);
  }

  /** One generation on the worker queue, its seed settled when it starts. */
  private produce(
    prepared: PreparedModel,
    request: GenerateRequest,
    target: { id: string; modelId: string; maxBytes: number; maxBytesSetting: string; signal?: AbortSignal },
  ): Promise<Generation> {
    const kind = target.id.startsWith('e-') ? 'embedded' : 'service';
    const counted = this.totals.generations[kind];
    return this.queue.run(async () => {
      try {
        const { seed, seedSource } = resolveSeed(request.seedArg, prepared.model, freshSeed);
        const attributes = {
          'modelworks.generation_id': target.id,
          'modelworks.rows_requested': request.count,
        };
        const gen = await inSpan('synth.generate', attributes, () =>
          produceGeneration({
            ...target,
            run: this.newRun(prepared, seed),
            seed,
            seedSource: seedSource === 'cli' ? 'request' : seedSource,
            count: request.count,
            format: request.format,
            workers: this.options.workers ?? defaultWorkers(),
          }),
        );
        counted.ok++;
        this.totals.rows += gen.count;
        this.totals.bytes += gen.bytes;
        return gen;
      } catch (err) {
        counted.failed++;
        throw err;
      }
    });
  }

  /**
   * An embedded generation (`e-…`): the model is loaded fresh from its text and discarded after;
   * only the output stays, in a cache of at most 20. Bracketed by audit events.
   */
  async generateEmbedded(
    modelText: unknown,
    args: GenerateArgs,
    signal?: AbortSignal,
  ): Promise<GenerateResult> {
    const text = modelTextArg(modelText);
    const generationId = newId('e');
    const modelId = `local-${sha256(text).slice(0, 16)}`;
    const started = performance.now();
    const audit = this.options.audit;
    audit?.({
      event: 'mcp.embedded_generate.start',
      generationId,
      modelId,
      count: args.count ?? null,
      format: args.format ?? 'csv',
    });
    try {
      const request = parseGenerateArgs(args);
      const options = this.loadOptions();
      const prepared = await this.guard('loading a model', () => loadModel(text, options));
      const gen = await this.guard('generating', () =>
        this.produce(prepared, request, {
          id: generationId,
          modelId,
          maxBytes: this.embeddedMaxBytes,
          maxBytesSetting: EMBEDDED_MAX_BYTES_ENV,
          ...(signal ? { signal } : {}),
        }),
      );
      this.embedded.add(gen);
      audit?.({
        event: 'mcp.embedded_generate.stop',
        generationId,
        modelId,
        outcome: 'ok',
        count: gen.count,
        format: gen.format,
        seed: String(gen.seed),
        seedSource: gen.seedSource,
        bytes: gen.bytes,
        durationMs: Math.round(performance.now() - started),
      });
      return this.resultOf(gen, request.previewLimit);
    } catch (err) {
      audit?.({
        event: 'mcp.embedded_generate.stop',
        generationId,
        modelId,
        outcome: 'error',
        error: err instanceof SynthServiceError ? err.code : 'INTERNAL',
        message: (err as Error).message,
        durationMs: Math.round(performance.now() - started),
      });
      throw err;
    }
  }

  private newRun(prepared: PreparedModel, seed: bigint): SynthRun {
    try {
      return new SynthRun(prepared, seed);
    } catch (err) {
      if (err instanceof SynthError)
        throw new SynthServiceError('MODEL_INVALID', `the model does not load: ${err.message}`);
      throw err;
    }
  }

  private resultOf(gen: Generation, previewLimit: number): GenerateResult {
    const preview = pageOf(gen, 0, previewLimit, PREVIEW_MAX_CHARS);
    return {
      modelId: gen.modelId,
      generationId: gen.id,
      count: gen.count,
      rowCount: preview.rowCount,
      totalCount: gen.count,
      hasMore: preview.rowCount < gen.count,
      format: gen.format,
      seed: String(gen.seed),
      seedSource: gen.seedSource,
      preview: preview.data,
    };
  }

  private findGeneration(generationId: string): Generation {
    const gen = generationId.startsWith('e-')
      ? this.embedded.get(generationId)
      : generationId.startsWith('g-')
        ? this.served.get(generationId)
        : undefined;
    if (!gen)
      throw new SynthServiceError(
        'GENERATION_NOT_FOUND',
        `unknown generation '${generationId}' (never created here, or evicted from the cache); call generate again`,
        { generationId },
      );
    return gen;
  }

  /** A page of a generation held by this process (`e-…` or `g-…`). */
  readGeneration(
    generationId: string,
    args: { offset?: unknown; limit?: unknown; maxChars: number },
  ): GenerationPage {
    const gen = this.findGeneration(generationId);
    const offset = intArg(args.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intArg(args.limit, 'limit', DEFAULT_PAGE_LIMIT, 1, MAX_PAGE_LIMIT);
    const page = pageOf(gen, offset, limit, args.maxChars);
    const end = page.offset + page.rowCount;
    return {
      generationId: gen.id,
      modelId: gen.modelId,
      offset: page.offset,
      rowCount: page.rowCount,
      totalCount: gen.count,
      hasMore: end < gen.count,
      nextOffset: end < gen.count ? end : null,
      format: gen.format,
      data: page.data,
    };
  }

  generationInfo(generationId: string): GenerationInfo {
    const gen = this.findGeneration(generationId);
    return {
      generationId: gen.id,
      modelId: gen.modelId,
      count: gen.count,
      format: gen.format,
      seed: String(gen.seed),
      seedSource: gen.seedSource,
      bytes: gen.bytes,
      createdAt: gen.createdAt,
    };
  }

  deleteGeneration(generationId: string): void {
    this.findGeneration(generationId);
    if (generationId.startsWith('e-')) this.embedded.delete(generationId);
    else this.served.delete(generationId);
  }

  /** Jobs waiting or running in the worker queue. */
  get queueDepth(): number {
    return this.queue.depth;
  }

  /** Totals since start and current sizes (the metrics read them at each scrape). */
  get stats(): SynthStats {
    const { generations, rows, bytes } = this.totals;
    return {
      generations: { service: { ...generations.service }, embedded: { ...generations.embedded } },
      rows,
      bytes,
      queueDepth: this.queue.depth,
      cacheBytes: { service: this.served.bytes, embedded: this.embedded.bytes },
      evictions: { service: this.served.evictions, embedded: this.embedded.evictions },
    };
  }

  /** Waits for running generations, then drops every cache and stops the idle sweeper. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.queue.idle();
    this.models.clear();
    this.embedded.clear();
    this.served.clear();
  }
}
