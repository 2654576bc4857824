/**
 * SpiceGrinder's MCP settings (`SPICEGRINDER_MCP_*`, as a host configuration copied from its
 * documentation sets them) read as aliases of ours. Ours win when both are set. The caller prints
 * the one line `describeAliases` returns, so a user sees which of their settings took effect.
 */

/** Each SpiceGrinder name and the setting of ours it stands for. */
export const SEED_ALIASES: ReadonlyMap<string, string> = new Map([
  ['SPICEGRINDER_MCP_SERVICE_URL', 'MODELWORKS_SYNTH_SERVICE_URL'],
  ['SPICEGRINDER_MCP_SERVICE_TOKEN', 'MODELWORKS_SYNTH_SERVICE_TOKEN'],
  ['SPICEGRINDER_MCP_GENERATE_MODE', 'MODELWORKS_SYNTH_GENERATE_MODE'],
  ['SPICEGRINDER_MCP_TRANSPORT', 'MODELWORKS_MCP_TRANSPORT'],
  ['SPICEGRINDER_MCP_HTTP_BIND', 'MODELWORKS_MCP_HTTP_BIND'],
  ['SPICEGRINDER_MCP_HTTP_PORT', 'MODELWORKS_MCP_HTTP_PORT'],
  ['SPICEGRINDER_MCP_EMBEDDED_MAX_BYTES', 'MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES'],
]);

export interface AliasedEnv {
  /** A copy of the environment with every used alias copied onto our name. */
  env: NodeJS.ProcessEnv;
  /** SpiceGrinder names whose value was taken. */
  used: string[];
  /** SpiceGrinder names that were set but lost to ours. */
  overridden: string[];
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** Our settings filled in from their SpiceGrinder aliases where ours are unset. */
export function withSeedAliases(source: NodeJS.ProcessEnv): AliasedEnv {
  const env: NodeJS.ProcessEnv = { ...source };
  const used: string[] = [];
  const overridden: string[] = [];
  for (const [alias, ours] of SEED_ALIASES) {
    const value = source[alias];
    if (!isSet(value)) continue;
    if (isSet(source[ours])) overridden.push(alias);
    else {
      env[ours] = value;
      used.push(alias);
    }
  }
  return { env, used, overridden };
}

/** The one stderr line about aliases, or undefined when none was set. */
export function describeAliases(aliased: AliasedEnv): string | undefined {
  const parts: string[] = [];
  if (aliased.used.length > 0)
    parts.push(
      `using SpiceGrinder setting${aliased.used.length > 1 ? 's' : ''} ` +
        aliased.used.map((a) => `${a} (as ${SEED_ALIASES.get(a)})`).join(', '),
    );
  if (aliased.overridden.length > 0)
    parts.push(
      `ignoring ${aliased.overridden.map((a) => `${a} (${SEED_ALIASES.get(a)} is set)`).join(', ')}`,
    );
  return parts.length > 0 ? parts.join('; ') : undefined;
}
