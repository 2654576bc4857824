/** Helpers for the Pro component tests: single-model replay against ../shared when present. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { grindText, parseRecipe } from '../../src/synth/conformance/replay.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const SHARED = join(ROOT, '..', 'shared', 'conformance', 'synth-examples');
export const sharedPresent = existsSync(SHARED);
if (!sharedPresent) console.warn(`[synth pro] SKIPPED shared corpus replays: ${SHARED} not found`);

/** Recorded output (without its comment line) and our output for the same recipe. */
export function replayShared(
  model: string,
  output = model.replace(/\.xml$/, '.csv'),
): {
  expected: string;
  actual: string;
} {
  const text = readFileSync(join(SHARED, output), 'utf8');
  const newline = text.indexOf('\n');
  const recipe = parseRecipe(text.slice(0, newline))!;
  return {
    expected: text.slice(newline + 1),
    actual: grindText(readFileSync(join(SHARED, model), 'utf8'), recipe),
  };
}
