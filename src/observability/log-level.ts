/**
 * The log levels and the setting that picks one (`--log-level`, MODELWORKS_LOG_LEVEL), apart from
 * the pino logger (logger.ts re-exports them): `modelworks mcp` over stdio checks the level at
 * start and builds its logger after answering `initialize` (issue 45).
 */
export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_LEVEL_ENV = 'MODELWORKS_LOG_LEVEL';
export const DEFAULT_LOG_LEVEL: LogLevel = 'warn';

const isLevel = (text: string): text is LogLevel => (LOG_LEVELS as readonly string[]).includes(text);

/**
 * The level from the command's option, else MODELWORKS_LOG_LEVEL, else warn.
 * @throws Error naming the setting and the levels when a value is not one of them
 */
export function logLevelFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): LogLevel {
  const fromOption = option?.trim();
  const text = (fromOption || env[LOG_LEVEL_ENV]?.trim() || DEFAULT_LOG_LEVEL).toLowerCase();
  if (isLevel(text)) return text;
  const setting = fromOption ? '--log-level' : LOG_LEVEL_ENV;
  throw new Error(
    `${setting} must be one of ${LOG_LEVELS.join(', ')} (got '${fromOption || env[LOG_LEVEL_ENV]}')`,
  );
}
