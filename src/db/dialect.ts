// What differs between the two engines, asked of a connection (a Db or a transaction) rather than
// passed down as an `engine` parameter: stores call `dialectOf(db)`, and no module code names an
// engine. Engine errors are classified in db/errors.ts.
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Db, Engine, Trx } from './database.ts';
import { prepareText } from './prepared.ts';

/** A query builder that can lock the rows it reads. */
interface Lockable<Q> {
  forUpdate(): Q;
  skipLocked(): Q;
}

export interface Dialect {
  readonly engine: Engine;
  /**
   * Locks the rows a read returns until the transaction ends (PostgreSQL's FOR UPDATE). SQLite's
   * single writer already holds the whole database for a writing transaction.
   */
  lockRows<Q extends Lockable<Q>>(query: Q): Q;
  /** Rows claimed by one worker and passed over by the others (FOR UPDATE SKIP LOCKED); SQLite: as lockRows. */
  claimRows<Q extends Lockable<Q>>(query: Q): Q;
  /** Asks for `text` to be a named statement, planned once per connection (PostgreSQL); nothing on SQLite. */
  prepare(text: string): void;
  /** Whether a round of donations may go as one guarded statement (ADR 9): PostgreSQL's data-modifying WITH. */
  readonly guardedStatements: boolean;
  /**
   * Makes the transactions that name the same key run one after another (PostgreSQL's advisory
   * locks, until the transaction ends); SQLite's single writer does so already.
   */
  lockKeys(trx: Trx, keys: readonly string[]): Promise<void>;
  /**
   * Runs `read` on one snapshot of the database, never blocking a writer: every statement sees the
   * same commits, however many land meanwhile. PostgreSQL: a read-only REPEATABLE READ transaction
   * on `db`. SQLite: a transaction on `reads`, the read-only connection of a file, which is a read
   * snapshot (WAL keeps it while the writer goes on); on a database in memory there is only the writer.
   */
  readSnapshot<T>(db: Db, reads: Db, read: (snapshot: Db) => Promise<T>): Promise<T>;
}

const POSTGRES: Dialect = {
  engine: 'postgres',
  lockRows: (query) => query.forUpdate(),
  claimRows: (query) => query.forUpdate().skipLocked(),
  prepare: (text) => prepareText(text),
  guardedStatements: true,
  lockKeys: async (trx, keys) => {
    for (const key of keys) await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
  },
  readSnapshot: (db, _reads, read) =>
    db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        await sql`set transaction read only`.execute(trx);
        return read(trx);
      }),
};

const SQLITE: Dialect = {
  engine: 'sqlite',
  lockRows: (query) => query,
  claimRows: (query) => query,
  prepare: () => {},
  guardedStatements: false,
  lockKeys: async () => {},
  // A transaction on the reader is a read snapshot (sqlite-group-commit.ts); in memory there is only the writer.
  readSnapshot: (db, reads, read) => (reads === db ? read(db) : reads.transaction().execute(read)),
};

/** Each engine's dialect, for SQL built before any connection is at hand (a statement of a guarded round). */
export const DIALECTS: Readonly<Record<Engine, Dialect>> = { postgres: POSTGRES, sqlite: SQLITE };

/**
 * The dialect of a connection, known from the adapter Kysely compiles its queries with (the same
 * for a Db and its transactions). `getExecutor` is marked internal in Kysely's types; this is the
 * one place that asks it.
 */
export function dialectOf(db: Db | Trx | Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? POSTGRES : SQLITE;
}
