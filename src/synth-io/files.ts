/**
 * node:fs adapter for the synth file port. Only canonical paths that passed the policy checks of
 * src/synth/access/paths.ts reach `readText`; `realpath` follows symlinks so those checks see where
 * a link really points.
 */
import { readFileSync, realpathSync } from 'node:fs';
import type { FilePort } from '../synth/index.js';

export const nodeFilePort: FilePort = {
  realpath(path: string): string | undefined {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
  readText(path: string): string {
    return readFileSync(path, 'utf8');
  },
};
