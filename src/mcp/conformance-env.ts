/**
 * Whether the conformance fixtures are on (conformance-tools.ts): apart from the tools, so that a
 * server reads and checks the setting when it is created without loading any tool module.
 */
const FIXTURES_ENV = 'MODELWORKS_MCP_CONFORMANCE_FIXTURES';

/** Whether to offer the conformance fixtures; throws on a value that is not 1/true/0/false. */
export function conformanceFixturesFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const text = env[FIXTURES_ENV]?.trim().toLowerCase();
  if (!text || text === '0' || text === 'false') return false;
  if (text === '1' || text === 'true') return true;
  throw new Error(`${FIXTURES_ENV} must be 1 or 0 (got '${env[FIXTURES_ENV]}')`);
}
