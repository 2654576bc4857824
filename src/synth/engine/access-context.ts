/**
 * The checked outside access a load phase hands to component load hooks: the allowlists, the
 * ports, and the folders relative paths may stay in. Components never see an unchecked port.
 */
import type { Allowlists } from '../access/allowlists.js';
import { CLOSED_ALLOWLISTS } from '../access/allowlists.js';
import type { FileScope } from '../access/paths.js';
import type { AccessPorts } from '../access/ports.js';
import { SynthError } from '../errors.js';

export interface AccessContext {
  readonly allowlists: Allowlists;
  readonly ports: AccessPorts;
  readonly cwd: string | undefined;
  /** File scope for reads; throws a load error naming `what` when no file port is configured. */
  fileScope(what: string): FileScope;
}

/** Builds the access context of one load. `modelFolder` is the top-level model's folder. */
export function accessContext(
  ports: AccessPorts,
  allowlists: Allowlists = CLOSED_ALLOWLISTS,
  cwd: string | undefined,
  modelFolder: string | undefined,
): AccessContext {
  const roots = [modelFolder, cwd].filter((r): r is string => r !== undefined);
  return {
    allowlists,
    ports,
    cwd,
    fileScope(what: string): FileScope {
      if (ports.files === undefined)
        throw new SynthError(
          'SYNTH_LOAD',
          `${what}: reading files needs a file port (none was given to this run)`,
        );
      return { files: ports.files, roots, cwd, allowlist: allowlists.flatFilePathAllowlist };
    },
  };
}
