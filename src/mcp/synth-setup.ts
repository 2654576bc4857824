/**
 * The synth tool group as the MCP server runs it, configured from the environment:
 * MODELWORKS_SYNTH_GENERATE_MODE (embedded, the default, or proxy; proxy when unset and a Service
 * URL is set), MODELWORKS_SYNTH_SERVICE_URL,
 * MODELWORKS_SYNTH_SERVICE_TOKEN, MODELWORKS_SYNTH_EMBEDDED_MAX_BYTES,
 * MODELWORKS_SYNTH_EMBEDDED_CACHE_MAX_BYTES, MODELWORKS_SYNTH_AUDIT_LOG, MODELWORKS_SYNTH_WORKERS, and the engine budgets
 * (MODELWORKS_SYNTH_MAX_COLUMNS, …_MAX_ENTRIES, …_SERVICE_CALL_MAX_*).
 */
import { DEFAULT_SERVICE_URL, SynthServiceClient } from '../remote/synth-service-client.js';
import { ndjsonAuditFile } from '../service/synth-audit.js';
import { embeddedMaxBytesFromEnv, SynthService } from '../service/synth-service.js';
import { workersFromEnv } from '../service/synth-generation.js';
import { DEFAULT_BUDGETS, SYNTH_BUDGET_ENV, cacheBudget, limitsFromEnv } from '../service/synth-settings.js';
import type { Edition } from '../synth/index.js';
import type { ResourceProvider } from './resource-provider.js';
import { compareSampleTool } from './compare-tool.js';
import { fitModelTool } from './fit-tool.js';
import { synthResources } from './synth-resources.js';
import { type SynthGenerateMode, synthTools } from './synth-tools.js';
import type { ToolDefinition } from './tool.js';

export const SYNTH_ENV = {
  mode: 'MODELWORKS_SYNTH_GENERATE_MODE',
  serviceUrl: 'MODELWORKS_SYNTH_SERVICE_URL',
  serviceToken: 'MODELWORKS_SYNTH_SERVICE_TOKEN',
  auditLog: 'MODELWORKS_SYNTH_AUDIT_LOG',
} as const;

// the server's instructions for the group: their own small module, as `initialize` needs them before
// this module (and the engine behind it) is loaded
export { SYNTH_INSTRUCTIONS } from './synth-instructions.js';

export interface SynthMcpGroup {
  tools: ToolDefinition[];
  resources: ResourceProvider;
  mode: SynthGenerateMode;
  /** For the readiness line, e.g. "synth embedded". */
  describe: string;
  /** The embedded service (its totals feed the metrics of `mcp --http`). */
  service: SynthService;
  close(): Promise<void>;
}

/**
 * The server-wide generate mode. Unset, it is embedded (our default) unless a Service URL is set:
 * then proxy, since a host that names a Service means to reach it (SpiceGrinder's own default is
 * proxy, and its host configurations set only the URL). That choice is logged.
 */
function generateMode(env: NodeJS.ProcessEnv, log: (message: string) => void): SynthGenerateMode {
  const modeText = (env[SYNTH_ENV.mode] ?? '').trim().toLowerCase();
  if (modeText === '') {
    if ((env[SYNTH_ENV.serviceUrl] ?? '').trim() === '') return 'embedded';
    log(
      `${SYNTH_ENV.serviceUrl} is set and no generate mode is: proxy mode (set ${SYNTH_ENV.mode}=embedded to generate in this process)`,
    );
    return 'proxy';
  }
  if (modeText !== 'embedded' && modeText !== 'proxy')
    throw new Error(`${SYNTH_ENV.mode} must be embedded or proxy (got '${env[SYNTH_ENV.mode]}')`);
  return modeText;
}

/**
 * @param edition `free` runs the Free edition's gates (`--edition free`): list_components lists
 *   only Free components and models load as under `grind --edition free`
 * @throws Error naming the variable when a setting is malformed
 */
export function synthMcpGroup(
  env: NodeJS.ProcessEnv,
  log: (message: string) => void,
  edition: Edition = 'full',
): SynthMcpGroup {
  const mode = generateMode(env, log);
  const baseUrl = (env[SYNTH_ENV.serviceUrl] ?? '').trim() || DEFAULT_SERVICE_URL;
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`${SYNTH_ENV.serviceUrl} must be an http(s) URL (got '${baseUrl}')`);
  }
  const token = env[SYNTH_ENV.serviceToken]?.trim();
  const auditPath = env[SYNTH_ENV.auditLog]?.trim();
  const embeddedMaxBytes = embeddedMaxBytesFromEnv(env);
  const service = new SynthService({
    edition,
    embeddedMaxBytes,
    embeddedCacheMaxBytes: cacheBudget(
      env,
      SYNTH_BUDGET_ENV.embeddedCacheMaxBytes,
      DEFAULT_BUDGETS.embeddedCacheMaxBytes,
      embeddedMaxBytes,
      SYNTH_BUDGET_ENV.embeddedMaxBytes,
    ),
    limits: limitsFromEnv(env),
    workers: workersFromEnv(env),
    log,
    ...(auditPath ? { audit: ndjsonAuditFile(auditPath, log) } : {}),
  });
  const remote = new SynthServiceClient({ baseUrl, ...(token ? { token } : {}) });
  return {
    tools: [
      ...synthTools({ service, mode, remote, log }),
      compareSampleTool(service, log),
      fitModelTool(service),
    ],
    resources: synthResources(),
    mode,
    describe: `${mode === 'proxy' ? `synth proxy to ${remote.baseUrl}` : 'synth embedded'}${edition === 'free' ? ', Free edition' : ''}`,
    service,
    close: () => service.close(),
  };
}
