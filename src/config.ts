// Every setting, its default and its limit: parsed once from the environment, then frozen.
export interface Config {
  databaseUrl: string;
  host: string;
  port: number;
  /** The public site that `public_url`, gift `url`s and logos point at. */
  publicUrl: string;
  logLevel: string;
  rateLimitPerMinute: number;
  rateLimitAnonymousPerMinute: number;
  bodyLimitBytes: number;
  idempotencyTtlHours: number;
  /** How long an Idempotency-Key stays claimed by an attempt before a retry may take it over (the attempt seems dead). */
  idempotencyLockMs: number;
  dbPoolMax: number;
  dbStatementTimeoutMs: number;
  dbConnectTimeoutMs: number;
  /**
   * PostgreSQL: how long a pooled connection lives before it is replaced (0: for ever). A
   * connection keeps the plans it made (its prepared statements', its foreign-key checks')
   * until the tables' statistics change; a new one plans against the tables as they are.
   */
  dbConnectionLifetimeS: number;
  /** SQLite's page cache in MiB: faster reads, and resident memory that grows with the database up to this. */
  sqliteCacheMb: number;
  requestTimeoutMs: number;
  /** How often the server runs the scheduler of recurring donations; 0 turns it off. */
  schedulerIntervalMs: number;
  /** The sandbox clock: how often it runs (0: off), and after how long sandbox objects move on by themselves. */
  sandboxTickMs: number;
  sandboxClearDelayMs: number;
  sandboxApproveDelayMs: number;
  sandboxCompleteDelayMs: number;
  /** On SIGTERM, how long a node keeps serving while reporting not ready, before it stops accepting. */
  shutdownGraceMs: number;
  /** Rate limits shared by every node through Redis when set; counted per node otherwise. */
  redisUrl: string | undefined;
  redisPrefix: string;
  /** scrypt cost for web passwords (r is 8): N a power of two, p the parallelism. */
  passwordScryptN: number;
  passwordScryptP: number;
  /** Web sign-ups allowed per address and minute (shared through Redis like the API's limits). */
  signUpsPerMinute: number;
  /** How long a web session lasts after sign-in. */
  sessionTtlHours: number;
  /** Session cookies carry `Secure` (browsers still send them to http://localhost); turn off only for plain-HTTP hosts other than localhost. */
  cookieSecure: boolean;
}

export const DEFAULT_SQLITE_URL = 'sqlite:./data/almoner.sqlite';

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function powerOfTwo(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = integer(env, name, fallback, min, max);
  if ((value & (value - 1)) !== 0) throw new Error(`${name} must be a power of two, got ${value}`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Readonly<Config> {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const config: Config = {
    databaseUrl: env.DATABASE_URL || DEFAULT_SQLITE_URL,
    host: env.HOST || '127.0.0.1',
    port,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    rateLimitAnonymousPerMinute: integer(env, 'RATE_LIMIT_ANONYMOUS_PER_MINUTE', 60, 1, 1_000_000),
    bodyLimitBytes: 64 * 1024,
    idempotencyTtlHours: 24,
    idempotencyLockMs: integer(env, 'IDEMPOTENCY_LOCK_MS', 60_000, 100, 3_600_000),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    dbConnectionLifetimeS: integer(env, 'DB_CONNECTION_LIFETIME_S', 600, 0, 86_400),
    sqliteCacheMb: integer(env, 'SQLITE_CACHE_MB', 64, 1, 65_536),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 60_000, 0, 86_400_000),
    sandboxTickMs: integer(env, 'SANDBOX_TICK_MS', 1_000, 0, 3_600_000),
    sandboxClearDelayMs: integer(env, 'SANDBOX_CLEAR_DELAY_MS', 10_000, 0, 86_400_000),
    sandboxApproveDelayMs: integer(env, 'SANDBOX_APPROVE_DELAY_MS', 10_000, 0, 86_400_000),
    sandboxCompleteDelayMs: integer(env, 'SANDBOX_COMPLETE_DELAY_MS', 10_000, 0, 86_400_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 5_000, 0, 600_000),
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.REDIS_PREFIX || 'almoner:ratelimit:',
    passwordScryptN: powerOfTwo(env, 'PASSWORD_SCRYPT_N', 32_768, 1_024, 1_048_576),
    passwordScryptP: integer(env, 'PASSWORD_SCRYPT_P', 3, 1, 16),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 336, 1, 8_760),
    signUpsPerMinute: integer(env, 'SIGN_UPS_PER_MINUTE', 10, 1, 1_000_000),
    cookieSecure: env.COOKIE_SECURE !== 'false',
    ...overrides,
  };
  return Object.freeze(config);
}
