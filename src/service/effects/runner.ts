/**
 * The effect runner (issue 23): takes the effects each committed cycle dispatched and runs the
 * non-caller ones whose executor is enabled, outside the model lock. Around each run it writes the
 * status shells of §7 as ordinary audited cycles (source `foldback`): `in_flight` at the start,
 * then the fold-back decided on the state current at that moment (lifecycle.ts).
 */
import {
  CalcError,
  publicMessage,
  type DispatchedEffect,
  type JsonValue,
  type ModelRuntime,
} from '../../calc/index.js';
import type { CalcService } from '../calc-service.js';
import type { EffectErrorCode, EffectExecutor, ExecutorOutcome } from './executor.js';
import {
  foldBackWrites,
  jobOf,
  startWrites,
  statusObject,
  type EffectJob,
  type FoldBack,
  type SettledPhase,
} from './lifecycle.js';

/** How one run ended; `skipped`: it did not start (no longer current, or already in flight). */
export interface EffectSettled {
  modelId: string;
  effectId: string;
  /** The executor that ran it (`server`). */
  executor: string;
  statusPath: string | null;
  key: JsonValue;
  phase: SettledPhase | 'skipped';
  error?: { code: EffectErrorCode; message: string };
}

export interface EffectRunnerOptions {
  executors: EffectExecutor[];
  /** Where a write the runner could not make is reported (never thrown: nobody awaits a run). */
  warn?: (message: string) => void;
  /** Waits before a write refused as BUSY is tried again (tests pass one that does not wait). */
  delay?: (ms: number) => Promise<void>;
}

/** A model's queue of writes is full: the runner's write waits its turn a few times, then gives up. */
const BUSY_ATTEMPTS = 5;
const BUSY_WAIT_MS = 100;

const describe = (err: unknown): string => (err instanceof Error ? publicMessage(err) : String(err));

export class EffectRunner {
  private readonly executors = new Map<string, EffectExecutor>();
  private readonly listeners = new Set<(settled: EffectSettled) => void>();
  private readonly warn: (message: string) => void;
  private readonly delay: (ms: number) => Promise<void>;
  private readonly running = new Set<Promise<void>>();
  private unhook: (() => void) | undefined;

  constructor(
    private readonly calc: CalcService,
    options: EffectRunnerOptions,
  ) {
    for (const e of options.executors) this.executors.set(e.name, e);
    this.warn = options.warn ?? (() => {});
    this.delay = options.delay ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Starts taking dispatched effects from the service. */
  start(): this {
    this.unhook ??= this.calc.onDispatch((modelId, effects) => this.dispatched(modelId, effects));
    return this;
  }

  /** Takes no new effects and waits for those running to settle. */
  async stop(): Promise<void> {
    this.unhook?.();
    this.unhook = undefined;
    await this.idle();
  }

  /** Resolves once no run is in progress (runs started meanwhile, re-fires included, are awaited too). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Tells `listener` how each run ends; returns its removal. */
  onSettled(listener: (settled: EffectSettled) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next settlement `match` accepts. */
  next(match: (settled: EffectSettled) => boolean = () => true): Promise<EffectSettled> {
    return new Promise((resolve) => {
      const off = this.onSettled((s) => {
        if (!match(s)) return;
        off();
        resolve(s);
      });
    });
  }

  /** Called under the model lock by the service: schedules the runs, waits on nothing. */
  private dispatched(modelId: string, effects: DispatchedEffect[]): void {
    for (const d of effects) {
      const executor = this.executors.get(d.executor);
      if (!executor) continue; // caller effects are the client's; other executors are not built yet
      const run = this.run(modelId, d, executor).catch((err: unknown) => {
        this.warn(`effect ${d.effectId} of model '${modelId}': ${describe(err)}`);
      });
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }
  }

  private async run(modelId: string, dispatched: DispatchedEffect, executor: EffectExecutor): Promise<void> {
    let job: EffectJob | undefined;
    let started = false;
    await this.write(modelId, async (runtime) => {
      job = jobOf(modelId, runtime.model.spec, dispatched);
      if (!job) return {};
      const s = await startWrites(runtime, job);
      [job, started] = [s.job, s.start];
      return s.writes;
    });
    if (!job) return;
    if (!started) {
      this.settle(job, { phase: 'skipped' });
      return;
    }
    for (let current: EffectJob | undefined = job; current;) {
      const outcome = await executor.execute(current.request, current.effect.policy);
      current = await this.foldBack(current, outcome);
    }
  }

  /** Folds an outcome back under the model lock; returns the re-fired job when superseded. */
  private async foldBack(job: EffectJob, outcome: ExecutorOutcome): Promise<EffectJob | undefined> {
    let decided: FoldBack | undefined;
    try {
      await this.write(job.modelId, async (runtime) => {
        decided = await foldBackWrites(runtime, job, outcome);
        return decided.writes;
      });
    } catch (err) {
      // the model refused the values (a schema, a constraint), or the write could not be made
      const message = `the fold-back was not written: ${describe(err)}`;
      const error = { code: 'EFFECT_FOLDBACK_FAILED' as const, message };
      const at = job.statusPath;
      if (decided?.phase === 'applied' && at !== null) {
        await this.write(job.modelId, () =>
          Promise.resolve({ [at]: statusObject('failed', job.key ?? null, error) }),
        );
      } else {
        this.warn(`effect ${job.effect.id} of model '${job.modelId}': ${message}`);
      }
      this.settle(job, { phase: 'failed', error });
      return undefined;
    }
    if (!decided) return undefined;
    this.settle(job, { phase: decided.phase, ...(decided.error ? { error: decided.error } : {}) });
    return decided.refire;
  }

  /** `CalcService.effectWrite`, tried again while the model's queue of writes is full. */
  private async write(
    modelId: string,
    decide: (runtime: ModelRuntime) => Promise<Record<string, unknown>>,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.calc.effectWrite(modelId, decide);
        return;
      } catch (err) {
        const busy = err instanceof CalcError && err.code === 'BUSY';
        if (!busy || attempt >= BUSY_ATTEMPTS) throw err;
        await this.delay(BUSY_WAIT_MS * attempt);
      }
    }
  }

  private settle(job: EffectJob, how: Pick<EffectSettled, 'phase' | 'error'>): void {
    const settled: EffectSettled = {
      modelId: job.modelId,
      effectId: job.effect.id,
      executor: job.effect.executor ?? 'server',
      statusPath: job.statusPath,
      key: job.key ?? null,
      ...how,
    };
    for (const l of this.listeners) {
      try {
        l(settled);
      } catch {
        // a listener's failure never affects a run
      }
    }
  }
}
