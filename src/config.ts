// Every setting, its default and its limit: parsed once from the environment, then frozen.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { engineOf, redactUrl } from './db/database.ts';
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
  /**
   * PostgreSQL: connections that every request's lookups share, pipelined (db/pipelined.ts),
   * beside the pool; 0 sends lookups through the pool.
   */
  dbLookupConnections: number;
  dbStatementTimeoutMs: number;
  /**
   * DATABASE_POOLER=transaction: the node reaches PostgreSQL through a pooler in transaction
   * pooling (PgBouncer): no named statements (a pooler before 1.21 cannot keep them), and no
   * statement_timeout sent at connection start (a pooler refuses the parameter; set it on the
   * database role instead: docs/operating.md). `none` (the default): a direct connection.
   */
  dbPooler?: 'none' | 'transaction';
  dbConnectTimeoutMs: number;
  /**
   * PostgreSQL: how long a pooled connection lives before it is replaced (0: for ever). A
   * connection keeps the plans it made (its prepared statements', its foreign-key checks')
   * until the tables' statistics change; a new one plans against the tables as they are.
   */
  dbConnectionLifetimeS: number;
  /** SQLite's page cache in MiB: faster reads, and resident memory that grows with the database up to this. */
  sqliteCacheMb: number;
  /**
   * DONATION_WRITER: `batched` (the default: requests that arrive together share a round, ADR 9)
   * or `simple` (one locked transaction per request: the reference the batched one is tested against).
   */
  donationWriter: 'batched' | 'simple';
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
  /**
   * Which proxies' X-Forwarded-For to believe for a client's address (TRUST_PROXY):
   * false (the default: the connection's address), a hop count, or addresses and CIDR ranges.
   */
  trustProxy: false | number | string[];
  /**
   * ADMIN_PORT: when set, the operator API (/admin/v1) and /metrics are served only on this port
   * (on ADMIN_HOST, 127.0.0.1 by default), never on the public one.
   */
  adminPort: number | undefined;
  adminHost: string;
  /** OPERATOR_API, METRICS, API_DOCS (true or false): serve /admin/v1, /metrics, /docs at all. */
  operatorApi: boolean;
  metricsEnabled: boolean;
  /**
   * DIRECTORY_IN_MEMORY (true or false, default true): each node holds what search ranks in memory
   * (ADR 32: about 0.35 GB at 1.9M organisations), reloaded when the directory changes; off, every
   * search reads its candidates from the database.
   */
  directoryInMemory: boolean;
  /**
   * METRICS_ON_PUBLIC_PORT (true or false, default false): without ADMIN_PORT, serve /metrics on the
   * public listener too (behind an operator token). Off, metrics are served only on ADMIN_PORT.
   */
  metricsOnPublicPort: boolean;
  apiDocs: boolean;
  /** How long records are kept that serve only for a while (retention job, almoner retention run). */
  retention: {
    /** RETAIN_IDEMPOTENCY_HOURS: Idempotency-Key records (at least their 24-hour TTL). */
    idempotencyHours: number;
    /** RETAIN_EXPIRED_SESSIONS_DAYS: web sessions, after they expired. */
    expiredSessionDays: number;
    /** RETAIN_SIGN_IN_FAILURES_HOURS: failed sign-ins (the throttle looks back 15 minutes). */
    signInFailureHours: number;
    /** RETAIN_EVENTS_DAYS: events (GET /v1/events); 0 keeps them for ever. */
    eventDays: number;
  };
  /** RETENTION_INTERVAL_MS: how often a server runs retention (0: never; `almoner retention run` still does). */
  retentionIntervalMs: number;
  /** SANDBOX (true or false): whether the platform has a sandbox (test keys, /v1/sandbox, its clock). */
  sandbox: boolean;
  /**
   * The sponsoring organisation (rules §13): shown in the instructions for sending money and
   * on receipts. SPONSOR_NAME, SPONSOR_EIN, SPONSOR_ADDRESS, SPONSOR_BANK (wire and bank transfer
   * instructions), SPONSOR_BROKERAGE (stock: DTC instructions), SPONSOR_CRYPTO (wallet addresses).
   */
  sponsor: SponsorDetails;
  /** The SPONSOR_* settings left at their placeholders: a server warns at start, and refuses to start in production. */
  sponsorUnset: string[];
  /** ALMONER_ENV=production. */
  production: boolean;
  /**
   * Paying charities (rules §17). `ach`: the sponsor's originator details for the NACHA file
   * (ACH_DESTINATION_ROUTING and ACH_DESTINATION_NAME: the bank the file goes to; ACH_ORIGIN_ID and
   * ACH_ORIGIN_NAME: the file's origin; ACH_COMPANY_ID and ACH_COMPANY_NAME: the company in each
   * batch; ACH_ODFI_ROUTING: the originating bank's routing number); '' when unset (the ACH file is
   * then refused, naming what is missing). CHECK_ACCOUNT: the account checks are drawn on (the
   * positive-pay file); CHECK_FIRST_NUMBER; CHECK_STALE_DAYS: after how long an uncashed check is
   * voided; PAYEE_COOLING_OFF_DAYS: how long ACH waits after an organisation's bank details
   * change; PAYEE_DATA_KEY (or _FILE): 32 bytes, base64, that seal bank account numbers at rest.
   */
  payments: {
    ach: AchSettings;
    checkAccount: string;
    checkFirstNumber: number;
    checkStaleDays: number;
    payeeCoolingOffDays: number;
    payeeKey: Buffer | undefined;
    /** PAY_DATE_MAX_DAYS: how far ahead a run's pay date may be (default 30). */
    payDateMaxDays?: number;
    /**
     * PAYMENTS_TWO_OPERATORS: submitting a run, and bank details an operator types, need a second
     * operator's approval (rules §17). On by default when ALMONER_ENV=production, off otherwise.
     */
    twoOperators?: boolean;
  };
  /** The ledger's log key, witnesses and checkpoints (config.keys.ts). */
  ledger: LedgerConfig;
  /**
   * FUND_MONTHLY_FEE_CENTS: a flat fee each fund pays at the first valuation of each month (rules
   * §19), from its available money and then its units; 0 (the default) charges none.
   */
  fundMonthlyFeeCents: number;
  /** VALUATION_ROUND_FUNDS: the funds a valuation values in each of its transactions (rules §19). */
  valuationRoundFunds: number;
  /** Rate limits shared by every node through Redis when set; counted per node otherwise. */
  redisUrl: string | undefined;
  /** After Redis failed a node, how long it counts rate limits alone before it asks Redis again. */
  redisRetryMs: number;
  /** How long a node waits for Redis's answer before it counts alone (REDIS_TIMEOUT_MS). */
  redisTimeoutMs: number;
  redisPrefix: string;
  /** scrypt cost for web passwords (r is 8): N a power of two, p the parallelism. */
  passwordScryptN: number;
  passwordScryptP: number;
  /** Web sign-ups allowed per address and minute (shared through Redis like the API's limits). */
  signUpsPerMinute: number;
  /** How long a web session lasts after sign-in. */
  sessionTtlHours: number;
  /**
   * Telling people (rules §12, 15). NOTIFY_INTERVAL_MS: how often a server relays new events
   * into webhook deliveries and mail and sends what is due (0: not on this node; `almoner
   * webhooks deliver` runs it alone). WEBHOOK_TIMEOUT_MS: a delivery's answer must come within
   * this. WEBHOOK_ALLOW_PRIVATE: deliveries may reach private and loopback addresses (a lab).
   * WEBHOOK_CONCURRENCY: deliveries in flight per node; WEBHOOK_ENDPOINT_CONCURRENCY: per endpoint;
   * WEBHOOK_OWNER_CONCURRENCY: per owner of endpoints (one owner's slow endpoints never hold every
   * slot); WEBHOOK_ENDPOINTS_PER_USER: the endpoints a user may have.
   */
  notifyIntervalMs: number;
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  webhookConcurrency: number;
  webhookEndpointConcurrency: number;
  webhookOwnerConcurrency: number;
  webhookEndpointsPerUser: number;
  /** MEMBERS_PER_FUND: the members and waiting invitations a shared fund may have (rules §20). */
  membersPerFund: number;
  /** SMTP_URL (smtp:// or smtps://, with its credentials); unset, messages are written as .eml files to MAIL_DIR. */
  smtpUrl: string | undefined;
  mailDir: string;
  /** MAIL_FROM: the sender of every message. */
  mailFrom: string;
  /** OPERATOR_EMAIL: where notices for the platform's operators go (a bank details change no one else saw); unset, only the metric and the audit log tell. */
  operatorEmail: string | undefined;
  /**
   * JOIN_PLATFORM (true or false): this node joins a platform that already exists, so a database
   * with no users (a misspelt DATABASE_URL, a rollback that lost its secrets) stops it at start.
   */
  joinPlatform: boolean;
  /** Session cookies carry `Secure` (browsers still send them to http://localhost); turn off only for plain-HTTP hosts other than localhost. */
  cookieSecure: boolean;
}

import { flag, integer, oneOf, powerOfTwo } from './config.env.ts';
import { achSettings, sponsorSettings, type AchSettings, type SponsorDetails } from './config.sponsor.ts';
import { ledgerSettings, payeeKey, type LedgerConfig } from './config.keys.ts';

export const DEFAULT_SQLITE_URL = 'sqlite:./data/almoner.sqlite';

/** DATABASE_URL: `sqlite:PATH` or `postgres://...`; anything else stops the process at start, naming the variable. */
function databaseUrl(env: NodeJS.ProcessEnv, production: boolean): string {
  // In production a node never falls back to a new, empty SQLite platform: a rollback to a release
  // that does not read DATABASE_URL_FILE, or a misspelt variable, must stop the node, not serve nobody's data.
  if (production && (env.DATABASE_URL ?? '').trim() === '') {
    throw new Error('DATABASE_URL (or DATABASE_URL_FILE) must be set when ALMONER_ENV=production: a production node has no default database');
  }
  const url = env.DATABASE_URL || DEFAULT_SQLITE_URL;
  try {
    engineOf(url);
  } catch {
    throw new Error(`DATABASE_URL must start with sqlite: (sqlite:./data/almoner.sqlite) or postgres:// (postgres://user@host:5432/db), got ${JSON.stringify(redactUrl(url))}`);
  }
  return url;
}

/**
 * TRUST_PROXY: unset or `false`, off; a whole number, that many proxies in front (the address
 * that many hops back in X-Forwarded-For); or a comma-separated list of the proxies' addresses
 * and CIDR ranges (`127.0.0.1,10.0.0.0/8`; `loopback`, `linklocal`, `uniquelocal` too).
 */
function trustProxy(env: NodeJS.ProcessEnv): false | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10) throw new Error(`TRUST_PROXY as a hop count must be from 1 to 10, got ${raw}`);
    return hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const address = /^(loopback|linklocal|uniquelocal|[0-9.]+(\/\d{1,2})?|[0-9a-f:]+(\/\d{1,3})?)$/i;
  const bad = entries.find((e) => !address.test(e) || !(isIP(e.split('/')[0] ?? '') !== 0 || /^(loopback|linklocal|uniquelocal)$/i.test(e)));
  if (entries.length === 0 || bad !== undefined) {
    throw new Error(
      `TRUST_PROXY must be false, a hop count, or proxy addresses and CIDR ranges separated by commas, got ${JSON.stringify(raw)}${bad === undefined ? '' : ` (${JSON.stringify(bad)} is none)`}`,
    );
  }
  return entries;
}

/** The variables that may hold a secret (a password in a URL): each may instead name a file with `<NAME>_FILE`. */
export const SECRET_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'SMTP_URL', 'PAYEE_DATA_KEY', 'LEDGER_SIGNING_KEY'] as const;

/**
 * `<NAME>_FILE` reads a secret from a file (a container's or systemd's credentials),
 * its trailing newline removed. Setting both `<NAME>` and `<NAME>_FILE` is refused, as is
 * a file that cannot be read or is empty; the message names the variable.
 */
function withSecretFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const name of SECRET_VARIABLES) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[name] !== undefined && env[name] !== '') throw new Error(`set ${name} or ${name}_FILE, not both`);
    let value: string;
    try {
      value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new Error(`${name}_FILE names ${JSON.stringify(file)}, which cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
        cause: error,
      });
    }
    if (value.trim() === '') throw new Error(`${name}_FILE names ${JSON.stringify(file)}, which is empty`);
    out[name] = value;
  }
  return out;
}

function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.SMTP_URL;
  if (url === undefined || url === '') return undefined;
  if (!/^smtps?:\/\/[^/\s]+/.test(url)) throw new Error('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://...');
  return url;
}

/** The .eml folder: `mail` beside the SQLite database, or ./data/mail. */
function mailDirOf(env: NodeJS.ProcessEnv): string {
  const url = env.DATABASE_URL || DEFAULT_SQLITE_URL;
  if (!url.startsWith('sqlite:')) return './data/mail';
  const path = url.slice('sqlite:'.length);
  const slash = path.lastIndexOf('/');
  return `${slash === -1 ? '.' : path.slice(0, slash)}/mail`;
}

/** Where the operator's API, /metrics and /docs are served, if at all. */
function operatorListener(env: NodeJS.ProcessEnv): Pick<Config, 'adminPort' | 'adminHost' | 'operatorApi' | 'metricsEnabled' | 'metricsOnPublicPort' | 'apiDocs'> {
  return {
    adminPort: env.ADMIN_PORT === undefined || env.ADMIN_PORT === '' ? undefined : integer(env, 'ADMIN_PORT', 0, 1, 65535),
    adminHost: env.ADMIN_HOST || '127.0.0.1',
    operatorApi: flag(env, 'OPERATOR_API', true),
    metricsEnabled: flag(env, 'METRICS', true),
    metricsOnPublicPort: flag(env, 'METRICS_ON_PUBLIC_PORT', false),
    apiDocs: flag(env, 'API_DOCS', true),
  };
}

/**
 * The address a server without PUBLIC_URL is reached at, the one it prints, its links and its
 * OpenID issuer use: where it listens (the loopback address when it listens on every address).
 */
function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

// Rate limits shared through REDIS_URL (redis:// or rediss://; unset: each node counts alone; else
// refused, its password hidden), REDIS_PREFIX; how long a node waits for it, then counts alone.
function redisSettings(env: NodeJS.ProcessEnv): Pick<Config, 'redisUrl' | 'redisPrefix' | 'redisRetryMs' | 'redisTimeoutMs'> {
  const raw = env.REDIS_URL?.trim() || undefined;
  const url = raw === undefined ? undefined : URL.parse(raw);
  if (raw !== undefined && (url === null || url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === ''))
    throw new Error(`REDIS_URL must be redis://host:port (or rediss:// for TLS), got ${JSON.stringify(raw.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@'))}`);
  return {
    redisUrl: raw,
    redisPrefix: env.REDIS_PREFIX || 'almoner:ratelimit:',
    redisRetryMs: integer(env, 'REDIS_RETRY_MS', 5_000, 100, 600_000),
    redisTimeoutMs: integer(env, 'REDIS_TIMEOUT_MS', 100, 10, 10_000),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Readonly<Config> {
  env = withSecretFiles(env);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const production = oneOf(env, 'ALMONER_ENV', 'development', ['development', 'production']) === 'production';
  const config: Config = {
    databaseUrl: databaseUrl(env, production),
    host,
    port,
    publicUrl: (env.PUBLIC_URL || localUrl(host, port)).replace(/\/+$/, ''),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    rateLimitAnonymousPerMinute: integer(env, 'RATE_LIMIT_ANONYMOUS_PER_MINUTE', 60, 1, 1_000_000),
    bodyLimitBytes: 64 * 1024,
    idempotencyTtlHours: 24,
    idempotencyLockMs: integer(env, 'IDEMPOTENCY_LOCK_MS', 60_000, 100, 3_600_000),
    dbPoolMax: integer(env, 'DB_POOL_MAX', 10, 1, 1000),
    dbLookupConnections: integer(env, 'DB_LOOKUP_CONNECTIONS', 2, 0, 100),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    dbPooler: oneOf(env, 'DATABASE_POOLER', 'none', ['none', 'transaction']) === 'transaction' ? 'transaction' : 'none',
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    dbConnectionLifetimeS: integer(env, 'DB_CONNECTION_LIFETIME_S', 600, 0, 86_400),
    sqliteCacheMb: integer(env, 'SQLITE_CACHE_MB', 64, 1, 65_536),
    donationWriter: oneOf(env, 'DONATION_WRITER', 'batched', ['batched', 'simple']) as Config['donationWriter'],
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 60_000, 0, 86_400_000),
    sandboxTickMs: integer(env, 'SANDBOX_TICK_MS', 1_000, 0, 3_600_000),
    sandboxClearDelayMs: integer(env, 'SANDBOX_CLEAR_DELAY_MS', 10_000, 0, 86_400_000),
    sandboxApproveDelayMs: integer(env, 'SANDBOX_APPROVE_DELAY_MS', 10_000, 0, 86_400_000),
    sandboxCompleteDelayMs: integer(env, 'SANDBOX_COMPLETE_DELAY_MS', 10_000, 0, 86_400_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 5_000, 0, 600_000),
    trustProxy: trustProxy(env),
    ...redisSettings(env),
    passwordScryptN: powerOfTwo(env, 'PASSWORD_SCRYPT_N', 32_768, 1_024, 1_048_576),
    passwordScryptP: integer(env, 'PASSWORD_SCRYPT_P', 3, 1, 16),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 336, 1, 8_760),
    signUpsPerMinute: integer(env, 'SIGN_UPS_PER_MINUTE', 10, 1, 1_000_000),
    cookieSecure: flag(env, 'COOKIE_SECURE', true),
    joinPlatform: flag(env, 'JOIN_PLATFORM', false),
    notifyIntervalMs: integer(env, 'NOTIFY_INTERVAL_MS', 250, 0, 3_600_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 32, 1, 1000),
    webhookEndpointConcurrency: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 100),
    webhookOwnerConcurrency: integer(env, 'WEBHOOK_OWNER_CONCURRENCY', 8, 1, 1000),
    webhookEndpointsPerUser: integer(env, 'WEBHOOK_ENDPOINTS_PER_USER', 16, 1, 1000),
    membersPerFund: integer(env, 'MEMBERS_PER_FUND', 50, 2, 1000),
    smtpUrl: smtpUrl(env),
    mailDir: env.MAIL_DIR || mailDirOf(env),
    mailFrom: env.MAIL_FROM || 'Almoner <no-reply@localhost>',
    operatorEmail: (env.OPERATOR_EMAIL ?? '').trim() === '' ? undefined : (env.OPERATOR_EMAIL as string).trim(),
    retention: {
      idempotencyHours: integer(env, 'RETAIN_IDEMPOTENCY_HOURS', 48, 24, 87_600),
      expiredSessionDays: integer(env, 'RETAIN_EXPIRED_SESSIONS_DAYS', 7, 0, 3_650),
      signInFailureHours: integer(env, 'RETAIN_SIGN_IN_FAILURES_HOURS', 24, 1, 87_600),
      eventDays: integer(env, 'RETAIN_EVENTS_DAYS', 0, 0, 36_500),
    },
    retentionIntervalMs: integer(env, 'RETENTION_INTERVAL_MS', 3_600_000, 0, 86_400_000),
    ...operatorListener(env),
    directoryInMemory: flag(env, 'DIRECTORY_IN_MEMORY', true),
    sandbox: flag(env, 'SANDBOX', true),
    ...sponsorSettings(env),
    production,
    fundMonthlyFeeCents: integer(env, 'FUND_MONTHLY_FEE_CENTS', 0, 0, 100_000),
    valuationRoundFunds: integer(env, 'VALUATION_ROUND_FUNDS', 2_000, 1, 100_000),
    payments: {
      ach: achSettings(env),
      checkAccount: env.CHECK_ACCOUNT ?? '',
      checkFirstNumber: integer(env, 'CHECK_FIRST_NUMBER', 1001, 1, 99_999_999),
      checkStaleDays: integer(env, 'CHECK_STALE_DAYS', 180, 1, 3650),
      payeeCoolingOffDays: integer(env, 'PAYEE_COOLING_OFF_DAYS', 7, 0, 365),
      payeeKey: payeeKey(env),
      payDateMaxDays: integer(env, 'PAY_DATE_MAX_DAYS', 30, 1, 3650),
      twoOperators: flag(env, 'PAYMENTS_TWO_OPERATORS', production),
    },
    ledger: ledgerSettings(env),
    ...overrides,
  };
  return Object.freeze(config);
}
