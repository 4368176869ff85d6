// Group commit for the node:sqlite dialect (ADR 4): transactions that arrive
// together share one real transaction and one durable commit.
import { closeSync, fdatasync, openSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import type { DatabaseSync } from 'node:sqlite';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, SqliteDatabase } from 'kysely';

/** The connection a group commit runs on (NodeSqliteDatabase, sqlite-adapter.ts). */
export interface GroupCommitDatabase extends SqliteDatabase {
  readonly raw: DatabaseSync;
  /** The write-ahead log's file, synced after each group's commit; none in memory. */
  readonly walPath: string | undefined;
  /** A read-only connection: a transaction on it is a read snapshot (BEGIN ... COMMIT), never in a group. */
  readonly readOnly: boolean;
  /** `undone`: groups rolled back after their transactions had let go of the connection (GroupCommitSqliteDriver). */
  readonly stats: { transactions: number; commits: number; syncs: number; undone: number };
}

class Deferred {
  readonly promise: Promise<void>;
  resolve!: () => void;
  reject!: (error: unknown) => void;
  constructor() {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  /** Resolves, in call order, with the function that unlocks. */
  lock(): Promise<() => void> {
    let unlock!: () => void;
    const next = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const ready = this.#tail.then(() => unlock);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

const datasync = promisify(fdatasync);

/**
 * fdatasync of the WAL file off the event loop, shared: a commit waits for the
 * next sync to begin after it, and commits made while one sync runs share the
 * one after it. Linux syncs a file's pages through any descriptor of it; the
 * file is reopened if it is no longer the one at its path.
 */
class WalSync {
  readonly #path: string;
  /**
   * A plain descriptor, not a FileHandle: one left open when a process ends without closing its
   * database is then simply closed by the OS. With a FileHandle, such a process hung at exit, busy
   * in Node's environment cleanup, in 6 of 22 runs of one test file.
   */
  #file: { fd: number; ino: number } | undefined;
  /** The sync not yet begun, which every commit since the last one began shares. */
  #next: Promise<void> | undefined;
  #last: Promise<void> = Promise.resolve();
  #failed: unknown;
  readonly #stats: GroupCommitDatabase['stats'];
  constructor(path: string, stats: GroupCommitDatabase['stats']) {
    this.#path = path;
    this.#stats = stats;
  }
  /** Resolves when a sync that began after this call has finished. */
  durable(): Promise<void> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    if (this.#next !== undefined) return this.#next;
    const next = this.#last.then(() => {
      this.#next = undefined;
      return this.#sync();
    });
    this.#next = next;
    this.#last = next.catch(() => {});
    return next;
  }
  /** The error every later commit fails with, once a sync failed. */
  get failed(): unknown {
    return this.#failed;
  }
  async #sync(): Promise<void> {
    try {
      const ino = statSync(this.#path).ino;
      if (this.#file?.ino !== ino) {
        if (this.#file !== undefined) closeSync(this.#file.fd);
        this.#file = { fd: openSync(this.#path, 'r+'), ino };
      }
      await datasync(this.#file.fd);
      this.#stats.syncs += 1;
    } catch (error) {
      this.#failed ??= new Error('a commit could not be made durable (sync of the WAL failed); restart the server', { cause: error });
      throw this.#failed;
    }
  }
  async close(): Promise<void> {
    await this.#last;
    if (this.#file !== undefined) closeSync(this.#file.fd);
    this.#file = undefined;
  }
}

class GroupConnection implements DatabaseConnection {
  readonly #db: GroupCommitDatabase;
  readonly #joinGroup: () => Promise<void>;
  unlock: (() => void) | undefined;
  /** Set when a Kysely transaction begins on this connection. */
  inTransaction = false;
  /** Set once this transaction's work is in the group, awaiting the outer commit. */
  inGroup = false;
  /** Set when this transaction began the group's outer transaction, and so runs without a savepoint of its own. */
  opensGroup = false;
  constructor(db: GroupCommitDatabase, unlock: () => void, joinGroup: () => Promise<void>) {
    this.#db = db;
    this.unlock = unlock;
    this.#joinGroup = joinGroup;
  }
  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    const stmt = this.#db.prepare(sql);
    let result: QueryResult<R>;
    if (stmt.reader) result = { rows: stmt.all(parameters) as R[] };
    else {
      const { changes, lastInsertRowid } = stmt.run(parameters);
      result = { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    }
    // A statement outside a transaction, run while a group's transaction is open, is part of
    // that group: if it may have written, it is answered when the group is durable, not before.
    if (!this.inTransaction && this.#db.raw.isTransaction && !/^\s*select\b/i.test(sql)) {
      this.releaseEarly();
      await this.#joinGroup();
    }
    return result;
  }
  // eslint-disable-next-line require-yield -- Kysely's driver interface asks for a generator; this one never streams
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on SQLite here');
  }
  releaseEarly(): void {
    const unlock = this.unlock;
    this.unlock = undefined;
    unlock?.();
  }
}

/**
 * Group commit for SQLite. Every commit is durable, and an fsync costs far
 * more than the statements of a use case; so transactions that arrive while
 * one is running share one real transaction and one fsync.
 *
 * Each Kysely transaction runs alone (one connection, a mutex) inside an
 * outer BEGIN IMMEDIATE: the first of a group opens it and runs in it
 * directly, each later one in a SAVEPOINT of its own. A commit RELEASEs the
 * savepoint, lets the next transaction in, and resolves only when the outer
 * COMMIT is on disk. The outer commits as soon as no transaction is waiting.
 * A failed transaction rolls back alone: to its savepoint, or, the first,
 * with the outer transaction, which holds nothing else yet. A failed outer
 * COMMIT fails every transaction of the group, none of which has been
 * acknowledged.
 *
 * The outer COMMIT runs with synchronous=NORMAL, which writes the WAL without
 * syncing it, and the group is then made durable by an fdatasync of the WAL
 * file on libuv's thread pool (WalSync): the event loop parses the next
 * requests and runs the next group while the disk syncs, instead of waiting
 * in SQLite's own fsync. Every other commit (a plain statement, another
 * process) stays synchronous=FULL. A group resolves only after a sync that
 * began after its COMMIT returned; a failed sync fails its groups and every
 * later transaction (the kernel may have dropped the pages: restart, and
 * SQLite recovers from what is on disk). A read may see a group's rows a
 * moment before they are durable (the same connection serves it, and the
 * reader and other processes read the WAL): a client is answered only after.
 * A read on this connection between two transactions of a group sees the
 * group's writes before its COMMIT; if that COMMIT fails, the group is undone
 * and `stats.undone` moves, so that what a node keeps from its reads drops
 * anything read before (DatabaseHandle.undone).
 */
export class GroupCommitSqliteDriver implements Driver {
  readonly #db: GroupCommitDatabase;
  readonly #wal: WalSync | undefined;
  readonly #mutex = new Mutex();
  #outerOpen = false;
  #waiting: Deferred[] = [];
  #flushScheduled = false;
  #lastFlush: Promise<void> = Promise.resolve();

  constructor(db: GroupCommitDatabase) {
    this.#db = db;
    this.#wal = db.walPath === undefined ? undefined : new WalSync(db.walPath, db.stats);
  }
  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new GroupConnection(this.#db, await this.#mutex.lock(), this.#joinGroup);
  }
  /** Resolves when the open group, which now includes the caller's work, is durable. */
  readonly #joinGroup = (): Promise<void> => {
    const durable = new Deferred();
    this.#waiting.push(durable);
    this.#scheduleFlush();
    return durable.promise;
  };
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as GroupConnection).inTransaction = true;
    // On a reader a transaction is a snapshot: every statement in it sees the same commits (WAL),
    // while the writer goes on. It holds this connection until it ends; nothing to make durable.
    if (this.#db.readOnly) {
      this.#db.raw.exec('BEGIN');
      return;
    }
    if (this.#outerOpen) {
      this.#db.raw.exec('SAVEPOINT almoner_tx');
      return;
    }
    if (this.#wal?.failed !== undefined) throw this.#wal.failed;
    // The group's COMMIT leaves the sync to WalSync (SQLite refuses to change this inside a transaction).
    if (this.#wal !== undefined) this.#db.raw.exec('PRAGMA synchronous = NORMAL');
    try {
      this.#db.raw.exec('BEGIN IMMEDIATE');
    } catch (error) {
      this.#db.raw.exec('PRAGMA synchronous = FULL');
      throw error;
    }
    this.#outerOpen = true;
    // The group's first transaction needs no savepoint: nothing else is in the group yet, so
    // undoing it is undoing the outer transaction. A savepoint would copy every page the
    // transaction changes into SQLite's sub-journal, in case of a rollback that then never comes.
    (connection as GroupConnection).opensGroup = true;
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as GroupConnection;
    if (this.#db.readOnly) {
      this.#db.raw.exec('COMMIT');
      return;
    }
    if (!conn.opensGroup) this.#db.raw.exec('RELEASE almoner_tx');
    const durable = this.#joinGroup();
    conn.inGroup = true;
    conn.releaseEarly();
    await durable;
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as GroupConnection;
    if (this.#db.readOnly) {
      if (this.#db.raw.isTransaction) this.#db.raw.exec('ROLLBACK');
      return;
    }
    // A group whose outer commit failed has rolled back already.
    if (conn.inGroup) return;
    if (!this.#db.raw.isTransaction) {
      // SQLite rolled the whole outer transaction back itself (an I/O error,
      // a full disk): the group's earlier members are lost and must hear so.
      this.#failGroup(new Error('the database rolled back the transaction group'));
      return;
    }
    if (conn.opensGroup) {
      // The group holds this transaction alone: the outer transaction goes with it.
      this.#db.raw.exec('ROLLBACK');
      this.#endGroup();
      return;
    }
    this.#db.raw.exec('ROLLBACK TO almoner_tx');
    this.#db.raw.exec('RELEASE almoner_tx');
    this.#scheduleFlush();
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as GroupConnection).releaseEarly();
  }
  async savepoint(): Promise<void> {
    throw new Error('nested savepoints are not used');
  }
  async rollbackToSavepoint(): Promise<void> {
    throw new Error('nested savepoints are not used');
  }
  async releaseSavepoint(): Promise<void> {
    throw new Error('nested savepoints are not used');
  }
  async destroy(): Promise<void> {
    await this.#lastFlush;
    await this.#flush();
    await this.#wal?.close();
    this.#db.close();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // The flush queues behind every transaction already waiting for the
    // connection, so they join this group before it commits.
    this.#lastFlush = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#flushScheduled = false;
      return this.#flush();
    });
  }

  /** The outer transaction is over (committed or rolled back): its group, which now waits for nothing more of it. */
  #endGroup(): Deferred[] {
    const group = this.#waiting;
    this.#waiting = [];
    this.#outerOpen = false;
    if (this.#wal !== undefined) this.#db.raw.exec('PRAGMA synchronous = FULL');
    return group;
  }

  #failGroup(error: unknown): void {
    this.#db.stats.undone += 1;
    for (const d of this.#endGroup()) d.reject(error);
  }

  async #flush(): Promise<void> {
    const unlock = await this.#mutex.lock();
    let group: Deferred[];
    try {
      if (!this.#outerOpen) return;
      try {
        this.#db.raw.exec('COMMIT');
      } catch (error) {
        if (this.#db.raw.isTransaction) this.#db.raw.exec('ROLLBACK');
        this.#failGroup(error);
        return;
      }
      group = this.#endGroup();
      this.#db.stats.commits += 1;
      this.#db.stats.transactions += group.length;
    } finally {
      // The next group runs while this one's WAL syncs.
      unlock();
    }
    try {
      await this.#wal?.durable();
    } catch (error) {
      for (const d of group) d.reject(error);
      return;
    }
    for (const d of group) d.resolve();
  }
}
