/**
 * Group commit for a store whose driver writes synchronously (better-sqlite3): the changes handed
 * in during one turn of the event loop (concurrent cycles on different models reach their commit
 * together) are written at the end of that turn in one transaction, so they share one disk sync
 * instead of each paying its own. A change alone in its turn waits only for the turn to end.
 *
 * `write` writes a group in one transaction and says, change by change, what became of it; when it
 * throws, nothing of the group was written and every change fails with that error.
 */

/** What became of one change of a group. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<C, R> {
  change: C;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class CommitGroup<C, R> {
  private waiting: Waiting<C, R>[] = [];
  private timer: NodeJS.Immediate | undefined;

  constructor(private readonly write: (changes: C[]) => Outcome<R>[]) {}

  /** Queues `change` for the write at the end of this turn; settles when it is written (or not). */
  submit(change: C): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ change, resolve, reject });
      this.timer ??= setImmediate(() => this.flush());
    });
  }

  /** Writes what is queued now (also called before the store closes). */
  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    const group = this.waiting;
    if (group.length === 0) return;
    this.waiting = [];
    let outcomes: Outcome<R>[];
    try {
      outcomes = this.write(group.map((w) => w.change));
    } catch (err) {
      for (const w of group) w.reject(err);
      return;
    }
    group.forEach((w, i) => {
      const o = outcomes[i]!;
      if (o.ok) w.resolve(o.value);
      else w.reject(o.error);
    });
  }
}
