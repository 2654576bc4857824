/**
 * The real IO adapters behind the synth engine's ports (src/synth/access/ports.ts): node:fs for
 * files, better-sqlite3 and pg for databases, fetch for services. Surfaces (CLI, service) build
 * their load options here; the engine itself never imports this folder.
 */
import type { AccessPorts, Allowlists, LoadOptions } from '../synth/index.js';
import { nodeDatabasePort } from './database.js';
import { nodeFilePort } from './files.js';
import { fetchServicePort } from './service.js';
import { nodeModulePort } from './modules.js';

export { nodeModulePort } from './modules.js';
export { nodeDatabasePort } from './database.js';
export { nodeFilePort } from './files.js';
export { fetchServicePort } from './service.js';

/** Every real adapter. */
export function realPorts(): AccessPorts {
  return {
    files: nodeFilePort,
    database: nodeDatabasePort,
    service: fetchServicePort,
    modules: nodeModulePort,
  };
}

/**
 * Load options for a model read from a file (or stdin when `modelPath` is undefined): the file's
 * canonical location, the process's working directory, the allowlists and the real ports.
 */
export function fileLoadOptions(
  modelPath: string | undefined,
  allowlists: Allowlists,
  edition: 'full' | 'free' = 'full',
  customComponentDirs: readonly string[] = [],
): LoadOptions {
  return {
    edition,
    customComponentDirs,
    location: modelPath === undefined ? undefined : nodeFilePort.realpath(modelPath),
    cwd: process.cwd(),
    allowlists,
    ports: realPorts(),
  };
}
