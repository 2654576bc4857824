/**
 * Progress of a long run on a terminal: rows done of the total, rows per second and the time left,
 * drawn by cli-progress. Nothing is drawn when stderr is not a terminal or the run ends within
 * `delayMs` (2 s): short runs and pipes stay quiet. cli-progress is loaded only when a bar may be
 * drawn, never at start-up.
 */
import type { SingleBar } from 'cli-progress';

export interface RowProgress {
  /** Rows done so far; draws the bar once the run has taken `delayMs`. */
  update(rows: number): void;
  /** Removes the bar (the line is cleared, so what follows starts on a clean line). */
  stop(): void;
  /** `after 1,024 of 10,000 rows`: for an interrupt line. */
  describe(): string;
}

export interface ProgressOptions {
  /** Where to draw; only a TTY gets a bar. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  delayMs?: number;
  now?: () => number;
  /** False: never draw (`--quiet`). */
  enabled?: boolean;
  /** What a row is called (default `rows`). */
  unit?: string;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

export async function rowProgress(total: number, opts: ProgressOptions = {}): Promise<RowProgress> {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? (() => performance.now());
  const delayMs = opts.delayMs ?? 2000;
  const unit = opts.unit ?? 'rows';
  const started = now();
  let rows = 0;
  const describe = (): string => `after ${count(rows)} of ${count(total)} ${unit}`;
  if (opts.enabled === false || stream.isTTY !== true)
    return { update: (n) => void (rows = n), stop: () => undefined, describe };
  // a CommonJS module: its `Format` is reachable through the default export only
  const { SingleBar, Format } = (await import('cli-progress')).default;
  let bar: SingleBar | undefined;
  let stopped = false;
  // rate and time left from the whole run so far: steadier than the last few updates
  const payload = (): { rate: string; left: string } => {
    const seconds = (now() - started) / 1000;
    const perSecond = seconds > 0 ? rows / seconds : 0;
    const left =
      perSecond > 0
        ? Format.TimeFormat(Math.ceil((total - rows) / perSecond), { autopaddingChar: '0' }, 5)
        : '…';
    return { rate: count(perSecond), left };
  };
  return {
    update(n: number): void {
      rows = n;
      if (stopped) return;
      if (bar === undefined) {
        if (now() - started < delayMs) return;
        bar = new SingleBar({
          stream,
          format: `{bar} {value}/{total} ${unit} | {rate} ${unit}/s | ETA {left}`,
          formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? count(v) : String(v)),
          barsize: 24,
          fps: 4,
          hideCursor: true,
          clearOnComplete: true,
        });
        bar.start(total, n, payload());
        return;
      }
      bar.update(n, payload());
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
    describe,
  };
}
