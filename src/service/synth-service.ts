/**
 * The synth operations behind the MCP tools and the HTTP Service: component listing, validation,
 * analysis, allowlists, a registry of models (`m-…`, evicted after an idle timeout), Service
 * generations (`g-…`) and embedded generations (`e-…`), both run one at a time by a bounded
 * worker queue and paged out of in-memory caches bounded in count and in bytes. Model text never
 * reads the server's files implicitly: relative paths in it resolve only under the allowlists.
 * A failure is always a SynthServiceError; anything unexpected becomes INTERNAL with a generic
 * message, its detail going to the log only.
 */
import { performance } from 'node:perf_hooks';
import type { Allowlists } from '../synth/access/allowlists.js';
import {
  type Analysis,
  type Edition,
  type GraphBudget,
  type LoadOptions,
  type PreparedModel,
  type SynthLimits,
  type ValidationResult,
  DEFAULT_LIMITS,
  SynthError,
  SynthRun,
  analyzeModel,
  loadSynthModel,
  parseModel,
  resolveSeed,
  validateModelAsync,
} from '../synth/index.js';
import { realPorts } from '../synth-io/index.js';
import { defaultWorkers } from '../synth-io/parallel/index.js';
import { customComponentDirs, loadAllowlists } from './synth-allowlists.js';
import { SynthServiceError } from './synth-errors.js';
import { type Generation, GenerationCache, pageOf, produceGeneration } from './synth-generation.js';
import { DEFAULT_BUDGETS, SYNTH_BUDGET_ENV } from './synth-settings.js';
import { WorkQueue } from './synth-work-queue.js';
import { inSpan } from '../observability/tracing.js';

export { bytesSetting } from './synth-settings.js';

export { SynthServiceError } from './synth-errors.js';
export type { SynthServiceErrorCode } from './synth-errors.js';

export * from './synth-service-api.js';
import {
  type AnalyzeArgs,
  type ComponentList,
  type GenerateArgs,
  type GenerateRequest,
  type GenerateResult,
  type GenerationInfo,
  type GenerationPage,
  type ModelInfo,
  type SynthServiceOptions,
  type SynthStats,
  DEFAULT_EMBEDDED_MAX_BYTES,
  DEFAULT_PAGE_LIMIT,
  EMBEDDED_CACHE_SIZE,
  EMBEDDED_MAX_BYTES_ENV,
  MAX_PAGE_LIMIT,
  PREVIEW_MAX_CHARS,
  intArg,
  modelTextArg,
  parseGenerateArgs,
} from './synth-service-api.js';
import { SynthModelRegistry } from './synth-model-registry.js';
import { ComponentListing } from './synth-component-listing.js';
import { cacheBytes, freshSeed, loadModel, newId, sha256 } from './synth-model-load.js';

/** The setting (and flag) behind a Service generation's byte cap, named in its refusals. */
const SERVICE_MAX_BYTES_SETTING = 'synth serve --max-bytes / MODELWORKS_SYNTH_SERVICE_MAX_BYTES';

export class SynthService {
  private readonly models: SynthModelRegistry;
  private readonly embedded: GenerationCache;
  private readonly served: GenerationCache;
  private readonly queue: WorkQueue;
  private readonly now: () => number;
  private readonly idleTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly listing = new ComponentListing(() => this.edition);
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
    this.models = new SynthModelRegistry(this.now, this.idleTimeoutMs, options.maxModels ?? 1000);
    this.sweeper = setInterval(
      () => this.models.evictIdle(),
      Math.max(50, Math.min(this.idleTimeoutMs / 4, 30_000)),
    );
    this.sweeper.unref();
  }

  // --- discovery -----------------------------------------------------------------------------

  /** The component list, whole or filtered by `name` or `category` (not both). */
  components(filter: { name?: unknown; category?: unknown } = {}): ComponentList {
    return this.listing.list(filter);
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

  /** The byte budget of an embedded generation's graph: its cap (see graph-budget.ts). */
  private get embeddedBudget(): GraphBudget {
    return { maxBytes: this.embeddedMaxBytes, setting: EMBEDDED_MAX_BYTES_ENV };
  }

  /** The byte budget of a Service generation's graph (a registered model's). */
  private get serviceBudget(): GraphBudget {
    return { maxBytes: this.serviceMaxBytes, setting: SERVICE_MAX_BYTES_SETTING };
  }

  /**
   * How models given as text are loaded: this service's edition, the current allowlists, the real ports,
   * this service's budgets, and no working directory. Text has no folder, so a relative Import,
   * FlatFile or SQLite path resolves only under the folders the allowlists list (none unless the
   * operator configures some), never against the directory the server was started in. Every
   * graph built of the model holds at most `graphBudget` bytes of rows; by default the larger of
   * the two generation caps (validation, analysis: what no generation here could hold is refused).
   */
  loadOptions(graphBudget?: GraphBudget): LoadOptions {
    const widest = this.embeddedMaxBytes >= this.serviceMaxBytes ? this.embeddedBudget : this.serviceBudget;
    return {
      edition: this.edition,
      allowlists: this.allowlists(),
      customComponentDirs: this.customComponentDirs(),
      ports: realPorts(),
      limits: this.limits,
      graphBudget: graphBudget ?? widest,
      onCustomsLoaded: (customs) => this.listing.remember(customs),
    };
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
      if (err instanceof SynthError && err.code === 'SYNTH_LIMIT')
        throw new SynthServiceError('TOO_LARGE', `the model's rows are too wide: ${err.message}`);
      if (err instanceof SynthError)
        throw new SynthServiceError('MODEL_INVALID', `the model cannot be analysed: ${err.message}`);
      throw err;
    }
  }

  // --- the model registry --------------------------------------------------------------------

  /** Registers inline model text (validated first); a new `m-…` id on every call. */
  async registerModel(modelText: unknown): Promise<ModelInfo> {
    const text = modelTextArg(modelText);
    const options = this.loadOptions(this.serviceBudget);
    const prepared = await this.guard('loading a model', () => loadModel(text, options));
    return this.models.add(text, prepared);
  }

  listModels(): ModelInfo[] {
    return this.models.list();
  }

  getModel(modelId: string): ModelInfo {
    return { ...this.models.touch(modelId).info };
  }

  deleteModel(modelId: string): void {
    this.models.delete(modelId);
  }

  // --- generation ----------------------------------------------------------------------------

  /** A Service generation (`g-…`) of a registered model, run by the worker queue. */
  async generate(modelId: string, args: GenerateArgs, signal?: AbortSignal): Promise<GenerateResult> {
    const request = parseGenerateArgs(args);
    const entry = this.models.touch(modelId);
    // a generation is use: the idle clock pauses while it waits and runs, and restarts at its end
    entry.inUse++;
    let gen: Generation;
    try {
      gen = await this.guard('generating', () =>
        this.produce(entry.prepared, request, {
          id: newId('g'),
          modelId,
          maxBytes: this.serviceMaxBytes,
          maxBytesSetting: SERVICE_MAX_BYTES_SETTING,
          ...(signal ? { signal } : {}),
        }),
      );
    } finally {
      entry.inUse--;
      this.models.markUsed(entry);
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
      const options = this.loadOptions(this.embeddedBudget);
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
      if (err instanceof SynthError && err.code === 'SYNTH_LIMIT')
        throw new SynthServiceError('TOO_LARGE', `the model's rows are too wide: ${err.message}`);
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
