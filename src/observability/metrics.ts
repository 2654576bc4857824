/**
 * Prometheus metrics of one server (`serve`, `mcp --http`, `synth serve`), through prom-client.
 * Each server builds its own ServerMetrics, with its own registry (tests run several apps in one
 * process). What it counts comes in through small hooks: the HTTP adapters report each request,
 * CalcService takes `calcObserver` (a CalcObserver), and the gauges read live sizes at scrape time
 * (subscriptions, MCP sessions, synth queue and caches). The engines never import this module.
 *
 * Labels stay bounded: routes are patterns (`/models/:id`), never raw URLs; a model id becomes a
 * label only when the operator opts in (MODELWORKS_METRICS_MODEL_LABELS=1).
 */
import type { ServerResponse } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CalcObserver, CycleOutcome } from '../service/calc-service.js';
import type { SynthStats } from '../service/synth-service.js';

export const METRICS_ENV = 'MODELWORKS_METRICS';
export const MODEL_LABELS_ENV = 'MODELWORKS_METRICS_MODEL_LABELS';
export const PROCESS_METRICS_ENV = 'MODELWORKS_METRICS_PROCESS';

export interface MetricsSettings {
  /** /metrics served and requests counted; on unless MODELWORKS_METRICS=0. */
  enabled: boolean;
  /** Calc metrics labelled by model id (unbounded: an operator's choice). */
  modelLabels: boolean;
  /**
   * Node's process metrics too (CPU, memory, event-loop lag, GC). Off by default: watching GC
   * cost about 3-5% of a REST write's CPU in bench/metrics-overhead.mjs.
   */
  processMetrics: boolean;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name]?.trim().toLowerCase();
  if (!text) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(text)) return true;
  if (['0', 'false', 'off', 'no'].includes(text)) return false;
  throw new Error(`${name} must be 1 or 0 (got '${env[name] ?? ''}')`);
}

/** The metrics settings; throws on a malformed value, so a server refuses to start with it. */
export function metricsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): MetricsSettings {
  return {
    enabled: flag(env, METRICS_ENV, true),
    modelLabels: flag(env, MODEL_LABELS_ENV, false),
    processMetrics: flag(env, PROCESS_METRICS_ENV, false),
  };
}

/** A server's metrics from the environment; false when MODELWORKS_METRICS=0. Throws on a malformed setting. */
export function serverMetricsFromEnv(env: NodeJS.ProcessEnv = process.env): ServerMetrics | false {
  const settings = metricsSettingsFromEnv(env);
  return (
    settings.enabled &&
    new ServerMetrics({ modelLabels: settings.modelLabels, processMetrics: settings.processMetrics })
  );
}

export interface ServerMetricsOptions {
  /** Label calc metrics by model id. */
  modelLabels?: boolean;
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC). */
  processMetrics?: boolean;
}

/** Seconds: 1 ms to 10 s, the span of a REST call or a calc cycle. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Store commits are faster: 0.1 ms up. */
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The label of a request that matched no route (404s, scans): one series, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

type HttpLabels = 'method' | 'route' | 'status';

interface HttpSeries {
  count: { inc(): void };
  duration: { observe(value: number): void };
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly modelLabels: boolean;
  private readonly httpRequests: Counter<HttpLabels>;
  private readonly httpDuration: Histogram<HttpLabels>;
  /** Per (method, route, status): prom-client's label lookup hashes the labels on every call. */
  private readonly httpSeries = new Map<string, HttpSeries>();
  /** Told of every calc write; give it to the CalcService of this server. */
  readonly calcObserver: CalcObserver;
  /** Made on the first effect run (a server without effects lists no such series). */
  private effectRuns: Counter<'executor' | 'outcome'> | undefined;

  constructor(options: ServerMetricsOptions = {}) {
    const registers = [this.registry];
    this.modelLabels = options.modelLabels === true;
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });

    this.httpRequests = new Counter({
      name: 'modelworks_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'modelworks_http_request_duration_seconds',
      help: 'HTTP request latency, from arrival to the last byte of the answer',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });

    const calcLabels = this.modelLabels ? ['outcome', 'model'] : ['outcome'];
    const cycles = new Counter({
      name: 'modelworks_calc_cycles_total',
      help: 'Calc writes ended: committed, rolled_back (a rollback constraint refused it) or failed (any other refusal)',
      labelNames: calcLabels,
      registers,
    });
    const cycleDuration = new Histogram({
      name: 'modelworks_calc_cycle_duration_seconds',
      help: 'Calc write latency (the model lock held), retries included, by outcome',
      labelNames: calcLabels,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    const commitDuration = new Histogram({
      name: 'modelworks_store_commit_duration_seconds',
      help: 'Compare-and-set commits of a cycle and its audit record to the store',
      buckets: COMMIT_BUCKETS,
      registers,
    });
    const retries = new Counter({
      name: 'modelworks_calc_retries_total',
      help: 'Calc cycles run again because another writer committed first (a compare-and-set conflict)',
      labelNames: this.modelLabels ? ['model'] : [],
      registers,
    });
    const byModel = this.modelLabels;
    // without model labels the series are known up front: no label hashing per write
    const outcomes: CycleOutcome[] = ['committed', 'rolled_back', 'failed'];
    const byOutcome = new Map(
      outcomes.map((outcome) => [
        outcome,
        { count: cycles.labels({ outcome }), duration: cycleDuration.labels({ outcome }) },
      ]),
    );
    this.calcObserver = {
      cycle(modelId: string, outcome: CycleOutcome, seconds: number) {
        const series = byModel ? undefined : byOutcome.get(outcome);
        if (series) {
          series.count.inc();
          series.duration.observe(seconds);
          return;
        }
        const labels = { outcome, model: modelId };
        cycles.inc(labels);
        cycleDuration.observe(labels, seconds);
      },
      storeCommit(seconds: number) {
        commitDuration.observe(seconds);
      },
      retry(modelId: string) {
        if (byModel) retries.inc({ model: modelId });
        else retries.inc();
      },
    };
  }

  /** Counts one answered HTTP request; `route` is the matched pattern, or UNMATCHED_ROUTE. */
  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const m = KNOWN_METHODS.has(method) ? method : 'OTHER';
    const key = `${m} ${status} ${route}`;
    let series = this.httpSeries.get(key);
    if (!series) {
      const labels = { method: m, route, status: String(status) };
      series = { count: this.httpRequests.labels(labels), duration: this.httpDuration.labels(labels) };
      this.httpSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  /**
   * Counts a node:http request when its connection is done with it; `route` is a fixed path, or
   * undefined for one that matched none.
   */
  countNodeRequest(method: string | undefined, route: string | undefined, res: ServerResponse): void {
    const started = performance.now();
    res.once('close', () =>
      this.observeHttp(
        method ?? 'OTHER',
        route ?? UNMATCHED_ROUTE,
        res.statusCode,
        (performance.now() - started) / 1000,
      ),
    );
  }

  /** Live calc subscriptions (WebSocket and MCP resource subscribers), read at scrape time. */
  watchSubscriptions(count: () => number): void {
    this.gauge('modelworks_calc_subscriptions', 'Calc model subscriptions open now', count);
  }

  /** Open MCP sessions, read at scrape time. */
  watchMcpSessions(count: () => number): void {
    this.gauge('modelworks_mcp_sessions', 'MCP Streamable HTTP sessions open now', count);
  }

  /** The synth service's totals and sizes, read at scrape time. */
  /**
   * Counts how each effect run ends (give it to the effect runner's `onSettled`): by executor and
   * outcome (`applied`, `failed`, `blocked`, `cancelled`, `superseded`, `skipped`), both from short
   * fixed lists, so no model id becomes a label.
   */
  effectSettled(executor: string, outcome: string): void {
    this.effectRuns ??= new Counter({
      name: 'modelworks_effect_runs_total',
      help: 'Effect runs by executor and how they ended',
      labelNames: ['executor', 'outcome'],
      registers: [this.registry],
    });
    this.effectRuns.inc({ executor, outcome });
  }

  watchSynth(stats: () => SynthStats): void {
    const registers = [this.registry];
    // counters fed from the service's own totals: set to the total at each scrape
    const totalFrom = (counter: Counter<string>, values: [Record<string, string>, number][]): void => {
      counter.reset();
      for (const [labels, value] of values) counter.inc(labels, value);
    };
    new Counter({
      name: 'modelworks_synth_generations_total',
      help: 'Synth generations finished, by kind (service g-…, embedded e-…) and outcome (ok, failed)',
      labelNames: ['kind', 'outcome'],
      registers,
      collect() {
        const { generations } = stats();
        totalFrom(
          this,
          (['service', 'embedded'] as const).flatMap((kind) =>
            (['ok', 'failed'] as const).map((outcome): [Record<string, string>, number] => [
              { kind, outcome },
              generations[kind][outcome],
            ]),
          ),
        );
      },
    });
    new Counter({
      name: 'modelworks_synth_rows_total',
      help: 'Rows produced by synth generations',
      registers,
      collect() {
        totalFrom(this, [[{}, stats().rows]]);
      },
    });
    new Counter({
      name: 'modelworks_synth_bytes_total',
      help: 'Bytes of output produced by synth generations',
      registers,
      collect() {
        totalFrom(this, [[{}, stats().bytes]]);
      },
    });
    new Counter({
      name: 'modelworks_synth_cache_evictions_total',
      help: 'Generations pushed out of a cache to make room, by cache',
      labelNames: ['cache'],
      registers,
      collect() {
        const { evictions } = stats();
        totalFrom(this, [
          [{ cache: 'service' }, evictions.service],
          [{ cache: 'embedded' }, evictions.embedded],
        ]);
      },
    });
    new Gauge({
      name: 'modelworks_synth_cache_bytes',
      help: 'Bytes held by cached generations, by cache',
      labelNames: ['cache'],
      registers,
      collect() {
        const { cacheBytes } = stats();
        this.set({ cache: 'service' }, cacheBytes.service);
        this.set({ cache: 'embedded' }, cacheBytes.embedded);
      },
    });
    this.gauge(
      'modelworks_synth_queue_depth',
      'Synth generations running or waiting',
      () => stats().queueDepth,
    );
  }

  /** The text exposition format and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }
}
