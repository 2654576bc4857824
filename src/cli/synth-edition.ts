/**
 * The `--edition` option of the synth commands, `mcp` and `synth serve`: `full` (every component)
 * or `free` (the Free edition's gates, as SpiceGrinder's Free build has them).
 */
import { Option } from 'commander';
import type { Edition } from '../synth/index.js';

export const EDITIONS: readonly Edition[] = ['full', 'free'];

export function editionOption(
  description = 'full: every component; free: emulate the Free edition gates',
): Option {
  return new Option('--edition <edition>', description).choices(EDITIONS).default('full');
}
