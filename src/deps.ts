// The one object every service function receives: no module-level singletons.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { Clock, Ids } from './shared/clock.ts';
import type { Metrics } from './metrics.ts';

/**
 * What a node keeps in memory between requests: writers that batch, caches and the reads that
 * keep them true, the mail transport. Built once, in platform.ts, and carried by Deps (never
 * module-level state, so two platforms in one process never share it). Each module declares its
 * part beside its code, `declare module '../../deps.ts' { interface Runtime { ... } }`, as
 * Fastify's decorators do; platform.ts names every part, and the compiler checks none is missing.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' declarations
export interface Runtime {}

export interface Deps {
  db: Db;
  /** Reads that need no transaction and may be a commit behind: directory search (DatabaseHandle.reads). */
  reads: Db;
  /**
   * Lookups: single statements that read outside any transaction and see every commit made before
   * they began (DatabaseHandle.lookups: on PostgreSQL pipelined on shared connections). Never a transaction.
   */
  lookups: Db;
  /**
   * How many times the database undid writes this node's reads may have seen (DatabaseHandle.undone:
   * SQLite's failed group commits; always 0 on PostgreSQL). What Runtime keeps from reads is
   * dropped when it moves, and nothing read before it moved is kept after.
   */
  undone: () => number;
  config: Readonly<Config>;
  clock: Clock;
  ids: Ids;
  log: Logger;
  /** The platform's metrics; services report money counts to `metrics.counters`. */
  metrics: Metrics;
  runtime: Runtime;
}
