/**
 * Module adapter for custom synth components: imports the ES module at a canonical path that the
 * engine's folder policy (src/synth/engine/customs.ts) already accepted.
 */
import { pathToFileURL } from 'node:url';
import type { ModulePort } from '../synth/index.js';

export const nodeModulePort: ModulePort = {
  load: (path: string): Promise<unknown> => import(pathToFileURL(path).href),
};
