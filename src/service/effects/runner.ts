/**
 * The effect runner (issue 23): takes the effects each committed cycle dispatched and runs the
 * non-caller ones whose executor is enabled, outside the model lock. Around each run it writes the
 * status shells of §7 as ordinary audited cycles (source `foldback`): `in_flight` at the start,
 * then the fold-back decided on the state current at that moment (lifecycle.ts).
 *
 * Each run holds a row in the store (effect-leases.ts) from before its `in_flight` write until it
 * settles: its job, when it is due, and a lease this runner renews every third of the lease time.
 * On the same tick the runner takes over rows whose lease expired — runs left by a process that
 * stopped or crashed, including its own from before a restart — and re-drives them; the atomic
 * claim lets exactly one process of those sharing the store do so.
 */
import { randomUUID } from 'node:crypto';
import {
  CalcError,
  publicMessage,
  type DispatchedEffect,
  type JsonValue,
  type ModelRuntime,
} from '../../calc/index.js';
import {
  hasEffectLeases,
  MemoryEffectLeases,
  type EffectLeases,
  type EffectRunRow,
} from '../../store/effect-leases.js';
import type { Store } from '../../store/store.js';
import type { CalcService } from '../calc-service.js';
import type { EffectErrorCode, EffectExecutor, ExecutorOutcome } from './executor.js';
import { DEFAULT_LEASE_MS } from './settings.js';
import { isWatch, LinkWatches } from './watches.js';
import {
  foldBackWrites,
  jobFromText,
  jobOf,
  jobText,
  notCurrent,
  resumeWrites,
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
  /** How long a run's lease lasts unless renewed (default DEFAULT_LEASE_MS). */
  leaseMs?: number;
}

/** Expired runs taken over per tick. */
const REDRIVE_BATCH = 50;

/** Each store's runs: one set per store object, so `pendingEffects` sees the memory store's too. */
const leasesByStore = new WeakMap<Store, EffectLeases>();

/** The store's own effect runs, or rows in this process for a store that keeps none (memory). */
export function effectLeasesOf(store: Store): EffectLeases {
  let leases = leasesByStore.get(store);
  if (!leases) {
    leases = hasEffectLeases(store) ? store.effectLeases() : new MemoryEffectLeases();
    leasesByStore.set(store, leases);
  }
  return leases;
}

/** A run's slot: one per effect and status path (the guard's unit); a fresh one without a status. */
const slotOf = (job: EffectJob): string =>
  job.statusPath !== null ? `${job.effect.id}@${job.statusPath}` : `${job.effect.id}#${randomUUID()}`;

const executorOf = (job: EffectJob): string => job.effect.executor ?? 'server';

type Outcome = Exclude<ExecutorOutcome, { kind: 'aborted' }>;

/** A model's queue of writes is full: the runner's write waits its turn a few times, then gives up. */
const BUSY_ATTEMPTS = 5;
const BUSY_WAIT_MS = 100;

const describe = (err: unknown): string => (err instanceof Error ? publicMessage(err) : String(err));

export class EffectRunner {
  /** This runner's name on the leases it holds. */
  readonly owner = randomUUID();
  private readonly executors = new Map<string, EffectExecutor>();
  private readonly listeners = new Set<(settled: EffectSettled) => void>();
  private readonly warn: (message: string) => void;
  private readonly delay: (ms: number) => Promise<void>;
  private readonly running = new Set<Promise<void>>();
  private readonly leases: EffectLeases;
  private readonly leaseMs: number;
  private unhook: (() => void) | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private ticking = false;
  private stopping = new AbortController();
  /** Watched read-links, following their targets after the first fold (watches.ts). */
  readonly watches: LinkWatches;

  constructor(
    private readonly calc: CalcService,
    options: EffectRunnerOptions,
  ) {
    for (const e of options.executors) this.executors.set(e.name, e);
    this.warn = options.warn ?? (() => {});
    this.delay = options.delay ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.leases = effectLeasesOf(calc.store);
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.watches = new LinkWatches(calc, (id, decide) => this.write(id, decide), this.warn);
  }

  /** Starts taking dispatched effects from the service, and re-drives runs left in the store. */
  start(): this {
    if (this.unhook) return this;
    this.stopping = new AbortController();
    this.unhook = this.calc.onDispatch((modelId, effects) => this.dispatched(modelId, effects));
    this.track(this.tick());
    this.ticker = setInterval(() => this.track(this.tick()), Math.max(20, Math.floor(this.leaseMs / 3)));
    this.ticker.unref();
    return this;
  }

  /**
   * Takes no new effects, stops waiting timers (their runs stay in the store for the next process
   * or a restart) and waits for the other runs to settle; then lets go of its leases.
   */
  async stop(): Promise<void> {
    this.unhook?.();
    this.unhook = undefined;
    this.watches.closeAll();
    clearInterval(this.ticker);
    this.stopping.abort();
    await this.idle();
    await this.leases
      .unlock(this.owner)
      .catch((err: unknown) => this.warn(`effect leases: ${describe(err)}`));
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

  private track(work: Promise<void>): void {
    const run = work.catch((err: unknown) => this.warn(`effects: ${describe(err)}`));
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Renews this runner's leases, then takes over and re-drives runs whose lease expired. */
  private async tick(): Promise<void> {
    if (this.ticking || this.stopping.signal.aborted) return;
    this.ticking = true;
    try {
      await this.leases.renew(this.owner, this.leaseMs);
      const rows = await this.leases.claimExpired(this.owner, this.leaseMs, REDRIVE_BATCH);
      for (const row of rows) this.track(this.redrive(row));
    } finally {
      this.ticking = false;
    }
  }

  /** Called under the model lock by the service: schedules the runs, waits on nothing. */
  private dispatched(modelId: string, effects: DispatchedEffect[]): void {
    for (const d of effects) {
      const executor = this.executors.get(d.executor);
      if (!executor) continue; // caller effects are the client's; a disabled executor's are data
      this.track(
        this.run(modelId, d, executor).catch((err: unknown) => {
          this.warn(`effect ${d.effectId} of model '${modelId}': ${describe(err)}`);
        }),
      );
    }
  }

  /** The row that holds a run: claimed before its `in_flight` write, so a crash leaves it behind. */
  private claim(job: EffectJob, slot: string): Promise<boolean> {
    const row = { modelId: job.modelId, slot, job: jobText(job), dueAt: job.dueAt ?? 0, owner: this.owner };
    return this.leases.claim(row, this.leaseMs);
  }

  private release(modelId: string, slot: string): Promise<void> {
    return this.leases.release(modelId, slot, this.owner).catch((err: unknown) => {
      this.warn(`effect run ${slot} of model '${modelId}': ${describe(err)}`);
    });
  }

  /** With its due time: when the executor says (a timer), else now. */
  private due(job: EffectJob, executor: EffectExecutor): EffectJob {
    const now = Date.now();
    return job.dueAt !== undefined ? job : { ...job, dueAt: executor.dueAt?.(job.request, now) ?? now };
  }

  private async run(modelId: string, dispatched: DispatchedEffect, executor: EffectExecutor): Promise<void> {
    let job: EffectJob | undefined;
    let started = false;
    let slot: string | undefined;
    try {
      await this.write(modelId, async (runtime) => {
        [job, started] = [jobOf(modelId, runtime.model.spec, dispatched), false];
        if (!job) return {};
        const s = await startWrites(runtime, job);
        if (!s.start) return {};
        job = this.due(s.job, executor);
        slot ??= slotOf(job);
        // another process already runs this slot (it took it after a restart): not twice
        if (!(await this.claim(job, slot))) return {};
        started = true;
        return s.writes;
      });
    } catch (err) {
      if (slot !== undefined) await this.release(modelId, slot);
      throw err;
    }
    if (!job) return;
    if (!started) {
      if (slot !== undefined) await this.release(modelId, slot);
      this.settle(job, { phase: 'skipped' });
      return;
    }
    await this.drive(job, slot!, executor);
  }

  /** Takes up a run left in the store (its lease expired): judged on the state as it is now. */
  private async redrive(row: EffectRunRow): Promise<void> {
    let job: EffectJob | undefined;
    let started = false;
    try {
      await this.write(row.modelId, async (runtime) => {
        [job, started] = [jobFromText(row.job, row.modelId, runtime.model.spec), false];
        if (!job || !this.executors.has(executorOf(job))) return {};
        const s = await resumeWrites(runtime, job);
        [job, started] = [s.job, s.start];
        return s.writes;
      });
    } catch (err) {
      if (err instanceof CalcError && err.code === 'MODEL_NOT_FOUND')
        return this.release(row.modelId, row.slot);
      throw err; // the lease lapses and a later tick tries again
    }
    const executor = job ? this.executors.get(executorOf(job)) : undefined;
    if (!job || !started || !executor) {
      if (!executor && job)
        this.warn(`effect ${job.effect.id} of model '${row.modelId}': its executor is not enabled here`);
      await this.release(row.modelId, row.slot);
      if (job) this.settle(job, { phase: 'skipped' });
      return;
    }
    job = this.due(job, executor);
    await this.claim(job, row.slot);
    await this.drive(job, row.slot, executor, true);
  }

  /**
   * Executes and folds back until the run settles (a superseded run goes round again).
   * `redriven`: the run was left by another runner, which may have done its I/O already.
   */
  private async drive(
    job: EffectJob,
    slot: string,
    executor: EffectExecutor,
    redriven = false,
  ): Promise<void> {
    let aborted = false;
    try {
      for (let current: EffectJob | undefined = job; current; redriven = false) {
        const outcome = await this.execute(current, executor, redriven);
        if (outcome.kind === 'aborted') {
          aborted = true; // stopping: the row stays for whoever runs next
          return;
        }
        current =
          'decided' in outcome
            ? this.settleEarly(current, outcome.decided)
            : await this.foldBack(current, outcome);
        if (current) {
          current = this.due(current, executor);
          await this.claim(current, slot);
        }
      }
    } finally {
      if (!aborted) await this.release(job.modelId, slot);
    }
  }

  /**
   * The executor's outcome. For an executor judged while it waits (a timer), every change to the
   * model is judged too: CANCELLED or SUPERSEDED there ends the wait at once with that decision.
   */
  private async execute(
    job: EffectJob,
    executor: EffectExecutor,
    redriven: boolean,
  ): Promise<Outcome | { kind: 'aborted' } | { kind: 'early'; decided: FoldBack }> {
    const waiting = new AbortController();
    const onStop = (): void => waiting.abort();
    this.stopping.signal.addEventListener('abort', onStop, { once: true });
    if (this.stopping.signal.aborted) waiting.abort(); // stopped before this run got here
    let decided: FoldBack | undefined;
    let checks = Promise.resolve();
    const check = (): void => {
      checks = checks
        .then(async () => {
          if (decided || waiting.signal.aborted) return;
          await this.write(job.modelId, async (runtime) => {
            decided = await notCurrent(runtime, job);
            return decided?.writes ?? {};
          });
          if (decided) waiting.abort();
        })
        .catch((err: unknown) =>
          this.warn(`effect ${job.effect.id} of model '${job.modelId}': ${describe(err)}`),
        );
    };
    // an inherited effect from another owner does no I/O until the model's owner approves it
    if (this.calc.effectApprovals.blocked(job.modelId, job.effect)) {
      this.stopping.signal.removeEventListener('abort', onStop);
      return {
        kind: 'blocked',
        code: 'EFFECT_APPROVAL_REQUIRED',
        message: `effect_approval_required: effect '${job.effect.id}' was inherited from another owner; approve it with POST /models/{id}/effects/${job.effect.id}/approve`,
      };
    }
    const unsubscribe = executor.judgedWhileWaiting ? this.calc.subscribe(job.modelId, check) : undefined;
    try {
      const context = {
        dueAt: job.dueAt ?? Date.now(),
        signal: waiting.signal,
        effect: job.effect,
        modelId: job.modelId,
        redriven,
      };
      const outcome = await executor.execute(job.request, job.effect.policy, context);
      unsubscribe?.();
      await checks;
      if (decided) return { kind: 'early', decided };
      return outcome;
    } finally {
      unsubscribe?.();
      this.stopping.signal.removeEventListener('abort', onStop);
    }
  }

  /** A decision made while the run waited: settled as such; returns the re-fired job when superseded. */
  private settleEarly(job: EffectJob, decided: FoldBack): EffectJob | undefined {
    this.settle(job, { phase: decided.phase });
    return decided.refire;
  }

  /** Folds an outcome back under the model lock; returns the re-fired job when superseded. */
  private async foldBack(job: EffectJob, outcome: Outcome): Promise<EffectJob | undefined> {
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
    // a watched read-link keeps following its target from its first fold on
    if (decided.phase === 'applied' && isWatch(job.effect)) this.watches.ensure(job.modelId, job.effect);
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
