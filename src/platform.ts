// Opens the database, brings its schema up to date and assembles Deps:
// what the server, the CLI and the tests all start from.
import type { Logger } from 'pino';
import { makeLogger } from './log.ts';
import type { Config } from './config.ts';
import type { Deps, Runtime } from './deps.ts';
import { existsSync } from 'node:fs';
import { openDatabase, redactUrl, sqlitePathOf, type DatabaseHandle } from './db/database.ts';
import { holdsPlatform, migrate } from './db/migrate.ts';
import { createLedgerFloors, logKey } from './modules/ledger/index.ts';
import { cryptoIds, systemClock, type Clock, type Ids } from './shared/clock.ts';
import { openBooks } from './modules/ledger/index.ts';
import { createMetrics } from './metrics.ts';
import { prepareDirectory } from './modules/nonprofits/index.ts';
import { lastCheckRun } from './modules/check/index.ts';
import { moneyOutHealth } from './modules/payments/index.ts';
import { createDonationWriter, createKeptDonationRows } from './modules/donations/index.ts';
import { createKeyWrites } from './modules/idempotency/index.ts';
import { createCardCache, DirectoryInMemory } from './modules/nonprofits/index.ts';
import { createKeyCache } from './modules/keys/index.ts';
import { createMailTransport } from './modules/mail/index.ts';
import { Sending } from './modules/webhooks/index.ts';

export interface Platform {
  deps: Deps;
  handle: DatabaseHandle;
  close(): Promise<void>;
}

export async function openPlatform(config: Readonly<Config>, options: { log?: Logger; clock?: Clock; ids?: Ids } = {}): Promise<Platform> {
  const log = options.log ?? makeLogger({ level: config.logLevel });
  const notJoining = () =>
    new Error(
      `JOIN_PLATFORM is true but ${redactUrl(config.databaseUrl)} holds no platform (no users): check DATABASE_URL (or DATABASE_URL_FILE); a node joining a platform never starts an empty one`,
    );
  // A SQLite file that is not there would be created empty by opening it: refuse before that.
  const sqlitePath = sqlitePathOf(config.databaseUrl);
  if (config.joinPlatform && sqlitePath !== undefined && sqlitePath !== ':memory:' && !existsSync(sqlitePath)) throw notJoining();
  const handle = openDatabase({
    url: config.databaseUrl,
    poolMax: config.dbPoolMax,
    lookupConnections: config.dbLookupConnections,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    pooler: config.dbPooler ?? 'none',
    connectTimeoutMs: config.dbConnectTimeoutMs,
    connectionLifetimeS: config.dbConnectionLifetimeS,
    sqliteCacheMb: config.sqliteCacheMb,
  });
  try {
    if (config.joinPlatform && !(await holdsPlatform(handle))) throw notJoining();
    const applied = await migrate(handle, {
      warn: (message) => log.warn(message),
      retrying: (migration, attempt, reason) => log.warn({ migration, attempt, reason }, 'migration waited too long for a lock; trying again'),
    }).catch((error: unknown) => {
      log.error({ err: error, migration: /^migration (\S+) failed/.exec((error as Error).message)?.[1] }, 'migration failed');
      throw error;
    });
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    await prepareDirectory(handle.db);
    await openBooks(handle.db);
  } catch (error) {
    await handle.close();
    // A pooler in transaction pooling refuses the parameters a direct connection starts with.
    if (error instanceof Error && /unsupported startup parameter/i.test(error.message) && config.dbPooler !== 'transaction') {
      throw new Error(`${error.message}: behind PgBouncer (or another pooler) in transaction pooling, set DATABASE_POOLER=transaction (docs/operating.md)`, { cause: error });
    }
    throw error;
  }
  const deps = {
    db: handle.db,
    reads: handle.reads,
    lookups: handle.lookups,
    undone: handle.undone,
    config,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? cryptoIds,
    log,
    metrics: createMetrics(
      handle,
      () => lastCheckRun(deps),
      () => moneyOutHealth(deps),
      // Scraped once the node is open, when its runtime (built just below) is there.
      () => deps.runtime.donations.stats,
    ),
  } as Deps;
  // Its parts hold `deps` (to reach the database and the clock when they run), so it is built just after.
  deps.runtime = buildRuntime(deps);
  // The ledger's log key (rules §26): the configured one, or one made now and kept, so that no read makes it.
  await logKey(deps);
  return {
    deps,
    handle,
    close: async () => {
      deps.runtime.mail.close();
      await deps.runtime.directory.close();
      await handle.close();
    },
  };
}

/**
 * What a node keeps in memory between requests (deps.ts, Runtime), the one place it is built: the
 * donation writer DONATION_WRITER names, the gathered Idempotency-Key writes, the cards of
 * organisations and the keys' callers with the epoch reads that keep them true, the directory
 * search ranks, the mail transport, the webhook slots in use.
 */
export function buildRuntime(deps: Deps): Runtime {
  return {
    donations: createDonationWriter(deps),
    donationRows: createKeptDonationRows(deps),
    idempotency: createKeyWrites(deps),
    cards: createCardCache(deps),
    directory: new DirectoryInMemory(deps),
    keys: createKeyCache(deps),
    mail: createMailTransport(deps.config),
    webhooks: new Sending(),
    ledger: createLedgerFloors(),
  };
}
