/**
 * The synth service's interface: its limits, the shapes its operations return and take, and the
 * checks of request arguments (every value from a request is data, checked here before use).
 */
import type { ComponentDescriptor, Edition, SynthLimits } from '../synth/index.js';
import type { Allowlists } from '../synth/access/allowlists.js';
import type { AuditSink } from './synth-audit.js';
import { SynthServiceError } from './synth-errors.js';
import {
  type GenerationSeedSource,
  type PagedFormat,
  parseFormat,
  parseSeedArgument,
} from './synth-generation.js';
import { DEFAULT_BUDGETS, SYNTH_BUDGET_ENV, bytesSetting } from './synth-settings.js';

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
export interface GenerateRequest {
  count: number;
  format: ReturnType<typeof parseFormat>;
  seedArg: ReturnType<typeof parseSeedArgument>;
  previewLimit: number;
}

export function parseGenerateArgs(args: GenerateArgs): GenerateRequest {
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

export function intArg(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new SynthServiceError(
      'BAD_REQUEST',
      `${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`,
    );
  return value;
}

export function countArg(value: unknown): number {
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
