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

/**
 * SpiceGrinder's own spelling of the edition override (`--free`, `--pro`), accepted beside
 * `--edition` so its command lines run unchanged; `--pro` is our `full`.
 */
export function editionFlag(flag: 'free' | 'pro'): Option {
  const edition: Edition = flag === 'free' ? 'free' : 'full';
  return new Option(`--${flag}`, `same as --edition ${edition}`)
    .implies({ edition })
    .conflicts(flag === 'free' ? 'pro' : 'free');
}
