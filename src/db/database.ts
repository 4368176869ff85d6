// One query layer over two engines: node:sqlite (the embedded default) and
// PostgreSQL through pg. Everything above this file speaks Kysely only.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, sql, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-adapter.ts';
import { assertSafeInteger } from '../shared/assert.ts';
import { statementName } from './prepared.ts';
import { PipelinedPool } from './pipelined.ts';

export type Engine = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
/** A database transaction: every use case's unit of work. */
export type Trx = Transaction<Database>;

export interface DatabaseHandle {
  db: Db;
  engine: Engine;
  /**
   * For reads that need no transaction and may be a commit behind (directory
   * search): on an SQLite file, a second, read-only, memory-mapped connection
   * (NodeSqliteDatabase.reader); otherwise `db` itself.
   */
  reads: Db;
  /**
   * For lookups: single statements that read outside any transaction and see every commit made
   * before they began (the epochs, a page of a list). On PostgreSQL pipelined on a few shared
   * connections (db/pipelined.ts); on SQLite `db` itself. Never for a transaction.
   */
  lookups: Db;
  /**
   * How many times the database undid writes that this node's reads may have seen: on SQLite, a
   * group of transactions whose COMMIT failed (sqlite-group-commit.ts); always 0 on PostgreSQL,
   * where no read sees another transaction's uncommitted writes. What a node keeps from its reads
   * keeps nothing read under an earlier count.
   */
  undone(): number;
  /** The raw node:sqlite handle (SQLite only): for backups and pragmas. */
  sqlite?: NodeSqliteDatabase;
  /** The pg pool (PostgreSQL only): its connection counts, for metrics. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  /** Tells `observer` of every statement from now on: which connections ran it, its time, and whether it failed (metrics). */
  observeStatements(observer: StatementObserver): void;
  close(): Promise<void>;
}

export type StatementObserver = (connections: 'pool' | 'lookups' | 'reads', seconds: number, failed: boolean) => void;

/** One observer for a handle's Kysely instances: each statement's time reaches whoever observes (nobody until metrics are made). */
function statementTimes(): { log(connections: Parameters<StatementObserver>[0]): (event: LogEvent) => void; observe(observer: StatementObserver): void } {
  let observer: StatementObserver | undefined;
  return {
    log: (connections) => (event) => observer?.(connections, event.queryDurationMillis / 1000, event.level === 'error'),
    observe: (next) => {
      observer = next;
    },
  };
}

/** PostgreSQL's `undone`: its reads never see what a transaction undoes. */
const noneUndone = (): number => 0;

export interface DatabaseOptions {
  url: string;
  poolMax?: number;
  /** PostgreSQL: shared pipelined connections for lookups (0: lookups use the pool). */
  lookupConnections?: number;
  statementTimeoutMs?: number;
  /** PostgreSQL behind a pooler in transaction pooling: no named statements, no statement_timeout at connection start. */
  pooler?: 'none' | 'transaction';
  connectTimeoutMs?: number;
  /** PostgreSQL: seconds a pooled connection lives before it is replaced (0 or unset: for ever). */
  connectionLifetimeS?: number;
  /** SQLite's page cache, in MiB. */
  sqliteCacheMb?: number;
  /** PostgreSQL: how long a connection keeps its first plans (NamingClient), doubling after; 1 s unless set (tests). */
  replanFirstMs?: number;
}

/** PostgreSQL connections that the lookups of every request share, pipelined (db/pipelined.ts). */
const LOOKUP_CONNECTIONS = 2;

let pgTypesConfigured = false;
function configurePgTypes(): void {
  if (pgTypesConfigured) return;
  pgTypesConfigured = true;
  // bigint (int8) holds ids and cents. They are returned as numbers, and a
  // value past 2^53 is a bug we want to hear about, not a silent rounding.
  pg.types.setTypeParser(20, (text: string) => {
    const n = Number(text);
    assertSafeInteger(n, 'int8 column');
    return n;
  });
  // numeric (count(*) of sums) the same way.
  pg.types.setTypeParser(1700, (text: string) => Number(text));
}

/** The longest a connection keeps a statement's plan, once it has lived a while (NamingClient). */
const REPLAN_MAX_MS = 60_000;

/**
 * A pg client that sends the prepared queries (db/prepared.ts) as named
 * statements: parsed and planned once per connection, then only bound and
 * run. Any other SQL goes as before, unnamed.
 *
 * A named statement's plan is kept by its connection, and PostgreSQL makes it
 * again only when the tables' statistics change (ANALYZE, often by autovacuum).
 * A plan made while a table was nearly empty (a new platform, a new table) then
 * outlives the table's growth: a join that hashed a scan of 100 rows goes on
 * scanning 150,000. So each connection drops its plans (DISCARD PLANS, which
 * keeps the statements) after 1, 2, 4... seconds of its life, then every minute:
 * the next use plans each statement for the tables as they are then.
 */
/** pg's message for a statement past `query_timeout`, and how long after statement_timeout that is. */
export const QUERY_DEADLINE_MESSAGE = 'Query read timeout';
const QUERY_DEADLINE_MARGIN_MS = 2_000;

class NamingClient extends pg.Client {
  readonly #bornAt = performance.now();
  #replanAfterMs: number;
  /** On a pipelined connection every statement is its own transaction, so its plans may be dropped before any. */
  readonly #everyStatementAlone: boolean;
  /** Behind a transaction pooler a named statement would be prepared on one server connection and used on another: none is named. */
  readonly #naming: boolean;
  constructor(config: pg.ClientConfig & { pipeline?: boolean; replanFirstMs?: number; naming?: boolean } = {}) {
    super(config);
    this.#everyStatementAlone = config.pipeline === true;
    this.#naming = config.naming !== false;
    this.#replanAfterMs = config.replanFirstMs ?? 1000;
  }
  /** Drops the connection's plans if their time has come. Only between transactions (a pool client when lent). */
  replanIfDue(): void {
    if (!this.#naming) return;
    if (performance.now() - this.#bornAt < this.#replanAfterMs) return;
    this.#replanAfterMs = this.#replanAfterMs < REPLAN_MAX_MS ? this.#replanAfterMs * 2 : this.#replanAfterMs + REPLAN_MAX_MS;
    // Sent before whatever the connection runs next; a lost connection fails that too.
    (pg.Client.prototype.query as (text: string) => Promise<unknown>).call(this, 'discard plans').catch(() => {});
  }
  override query(...args: unknown[]): never {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      if (this.#everyStatementAlone) this.replanIfDue();
      const name = this.#naming ? statementName(text) : undefined;
      // The query made here, named after it is made: pg copies a query given as a config
      // object property by property (2% of a list request's CPU), not one given as text.
      if (name !== undefined) return this.#abandonOnDeadline(this.#named(name, text, values)) as never;
    }
    const result = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    return (result instanceof Promise ? this.#abandonOnDeadline(result) : result) as never;
  }
  /**
   * A statement past its client-side deadline (`query_timeout`: the server went silent, or the
   * path to it died without a word) leaves the connection waiting for an answer that may never
   * come: it is closed, so that the pool (or the pipelined slot) opens a new one instead of
   * lending it again. (pg closes a pipelined one itself.)
   */
  #abandonOnDeadline<T>(result: Promise<T>): Promise<T> {
    return result.catch((error: unknown) => {
      if (error instanceof Error && error.message === QUERY_DEADLINE_MESSAGE) (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      throw error;
    });
  }
  #named(name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
    // (@types/pg declares neither field of the Query that pg reads.)
    const query = new pg.Query(text, values) as unknown as { name: string; callback: (error: Error | null | undefined, result: pg.QueryResult) => void };
    query.name = name;
    return new Promise((resolve, reject) => {
      query.callback = (error, result) => (error === null || error === undefined ? resolve(result) : reject(error));
      (pg.Client.prototype.query as (q: unknown) => unknown).call(this, query);
    });
  }
}

/**
 * The engine a database URL names: `sqlite:PATH` or `postgres://` (`postgresql://`).
 * Anything else is refused (a mistyped scheme must never become a new, empty SQLite file).
 */
export function engineOf(url: string): Engine {
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (url.startsWith('sqlite:')) return 'sqlite';
  throw new Error(`a database URL starts with sqlite: or postgres:// (or postgresql://), not ${JSON.stringify(redactUrl(url))}`);
}

/** A URL as it may be shown: its password replaced. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/** The file a `sqlite:` URL names (`:memory:` for none); undefined for any other URL. */
export function sqlitePathOf(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  return url.replace(/^sqlite:(\/\/)?/, '') || ':memory:';
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  const engine = engineOf(options.url);
  const times = statementTimes();
  const observeStatements = times.observe;
  if (engine === 'postgres') {
    configurePgTypes();
    const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
    const client = {
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      // The server ends a statement at statement_timeout; the client gives up a little later
      // (query_timeout), when the server cannot say so (gone silent), and closes the connection.
      // A pooler refuses it at connection start: behind one, the role carries it (docs/operating.md).
      ...(options.pooler === 'transaction' ? {} : { statement_timeout: statementTimeoutMs }),
      // (0: no statement timeout, as a bulk load asks; then no client deadline either.)
      query_timeout: statementTimeoutMs > 0 ? statementTimeoutMs + QUERY_DEADLINE_MARGIN_MS : undefined,
      naming: options.pooler !== 'transaction',
      // TCP keep-alive finds a connection whose far side died without a word while it was idle.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      replanFirstMs: options.replanFirstMs,
    };
    const pool = new pg.Pool({
      ...client,
      Client: NamingClient,
      max: options.poolMax ?? 10,
      // Ended when next idle after this long (a checked-out one finishes its work first).
      maxLifetimeSeconds: options.connectionLifetimeS ?? 0,
    });
    // A client that loses its server must not crash the process: idle ones report to the
    // pool; one checked out (between statements of a transaction) reports to itself, and
    // its next query fails and turns into 503 unavailable.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    // Lent between transactions: a plan made for smaller tables is dropped here when due.
    pool.on('acquire', (client) => {
      if (client instanceof NamingClient) client.replanIfDue();
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: times.log('pool') });
    const shared = options.lookupConnections ?? LOOKUP_CONNECTIONS;
    if (shared === 0) return { db, reads: db, lookups: db, engine, pool, observeStatements, undone: noneUndone, close: () => db.destroy() };
    const pipelined = new PipelinedPool(() => new NamingClient({ ...client, pipeline: true }), shared, options.connectionLifetimeS ?? 0);
    const lookups = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pipelined }), log: times.log('lookups') });
    return {
      db,
      reads: db,
      lookups,
      engine,
      pool,
      observeStatements,
      undone: noneUndone,
      close: async () => {
        await lookups.destroy();
        await db.destroy();
      },
    };
  }
  return openSqlite(options, times);
}

/** openDatabase on an SQLite file (with its reader) or in memory (one connection for everything). */
function openSqlite(options: DatabaseOptions, times: ReturnType<typeof statementTimes>): DatabaseHandle {
  const engine = 'sqlite';
  const observeStatements = times.observe;
  const path = sqlitePathOf(options.url) ?? ':memory:';
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new NodeSqliteDatabase(path, options.sqliteCacheMb === undefined ? {} : { cacheMb: options.sqliteCacheMb });
  const db = new Kysely<Database>({ dialect: new NodeSqliteDialect(sqlite), log: times.log('pool') });
  const undone = () => sqlite.stats.undone;
  if (path === ':memory:') return { db, reads: db, lookups: db, engine, sqlite, observeStatements, undone, close: () => db.destroy() };
  const reads = new Kysely<Database>({ dialect: new NodeSqliteDialect(NodeSqliteDatabase.reader(path)), log: times.log('reads') });
  return {
    db,
    reads,
    lookups: db,
    engine,
    sqlite,
    observeStatements,
    undone,
    close: async () => {
      await reads.destroy();
      await db.destroy();
    },
  };
}

/** One round trip to the database (readiness): throws when it cannot be reached. */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
