/**
 * Progress of `calc from-xlsx` on stderr: sheets read, then formula cells compiled, then formula
 * cells verified. Nothing is shown for a conversion that ends within `delayMs` (2 s). On a terminal
 * each stage is a cli-progress bar (as the other long commands draw theirs); elsewhere (a pipe, a
 * log file) a plain line per stage and at most one more every `delayMs`, so a log stays short.
 * The converter calls back synchronously from inside its work, so the bar is drawn on each update
 * (cli-progress's synchronous redraw), not on a timer.
 */
import type { SingleBar } from 'cli-progress';
import type { ConvertProgress } from '../sheet/index.js';

export interface SheetProgress {
  update(progress: ConvertProgress): void;
  /** Removes the bar; what follows starts on a clean line. */
  stop(): void;
}

export interface SheetProgressOptions {
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  delayMs?: number;
  now?: () => number;
  /** What the lines start with (`modelworks: budget.xlsx`). */
  prefix?: string;
}

const UNITS: Record<ConvertProgress['stage'], string> = {
  read: 'sheets read',
  compile: 'formula cells compiled',
  verify: 'formula cells checked at the stored values',
  'what-if': 'formula cells checked after what-if edits',
};

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

export async function sheetProgress(opts: SheetProgressOptions = {}): Promise<SheetProgress> {
  const stream = opts.stream ?? process.stderr;
  const now = opts.now ?? (() => performance.now());
  const delayMs = opts.delayMs ?? 2000;
  const started = now();
  const late = (): boolean => now() - started >= delayMs;
  if (stream.isTTY !== true) {
    let stage: ConvertProgress['stage'] | undefined;
    let lastLine = -Infinity;
    const prefix = opts.prefix === undefined ? '' : `${opts.prefix}: `;
    return {
      update(p): void {
        if (!late() || (p.stage === stage && now() - lastLine < delayMs && p.done < p.total)) return;
        stage = p.stage;
        lastLine = now();
        stream.write(`${prefix}${count(p.done)} of ${count(p.total)} ${UNITS[p.stage]}\n`);
      },
      stop: () => undefined,
    };
  }
  // a CommonJS module: its classes are reachable through the default export only
  const { SingleBar } = (await import('cli-progress')).default;
  let bar: SingleBar | undefined;
  let stage: ConvertProgress['stage'] | undefined;
  let stopped = false;
  return {
    update(p): void {
      if (stopped || !late()) return;
      if (p.stage !== stage || bar === undefined) {
        bar?.stop();
        stage = p.stage;
        bar = new SingleBar({
          stream,
          format: `{bar} {value}/{total} ${UNITS[p.stage]}`,
          formatValue: (v, _options, type) => (type === 'value' || type === 'total' ? count(v) : String(v)),
          barsize: 24,
          hideCursor: true,
          clearOnComplete: true,
          synchronousUpdate: true,
        });
        bar.start(p.total, p.done);
        return;
      }
      bar.setTotal(p.total);
      bar.update(p.done);
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
