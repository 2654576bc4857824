// Progress of a long run (src/cli/progress.ts): on a terminal only, only once the run has taken
// 2 s, and then rows, rows per second and the time left, drawn by cli-progress.
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { rowProgress } from '../../src/cli/progress.js';

/** A stream that says it is a terminal, collecting what is drawn on it. */
function terminal(isTTY = true): PassThrough & { isTTY: boolean; columns: number; text(): string } {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 120 });
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
  return Object.assign(stream, { text: () => text });
}

// what a person sees: the control sequences (cursor moves, line clears) left out
const visible = stripVTControlCharacters;

describe('rowProgress', () => {
  it('draws nothing during the first 2 s, then rows, rows/s and the time left', async () => {
    const stream = terminal();
    let now = 0;
    const progress = await rowProgress(1_000_000, { stream, now: () => now });
    now = 1_500;
    progress.update(100_000);
    expect(stream.text()).toBe('');
    now = 2_000;
    progress.update(200_000);
    // 200,000 rows in 2 s: 100,000 rows/s, 800,000 rows left: 8 s
    expect(visible(stream.text())).toContain('200,000/1,000,000 rows | 100,000 rows/s | ETA 08s');
    now = 4_000;
    progress.update(600_000);
    progress.stop();
    expect(visible(stream.text())).toContain('600,000/1,000,000 rows | 150,000 rows/s | ETA 03s');
    // at the end the cursor shows again and the bar's line is cleared: what follows starts clean
    expect(stream.text()).toContain('\x1b[?25h');
    expect(stream.text().endsWith('\x1b[2K')).toBe(true);
    expect(progress.describe()).toBe('after 600,000 of 1,000,000 rows');
  });

  it('draws nothing when the stream is not a terminal or progress is turned off', async () => {
    for (const [stream, enabled] of [
      [terminal(false), true],
      [terminal(true), false],
    ] as const) {
      let now = 0;
      const progress = await rowProgress(10, { stream, now: () => now, enabled });
      now = 10_000;
      progress.update(5);
      progress.stop();
      expect(stream.text()).toBe('');
      expect(progress.describe()).toBe('after 5 of 10 rows');
    }
  });
});
