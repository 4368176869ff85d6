// A Kysely dialect over node:sqlite (built into Node 24), so the embedded
// default needs no native build. Kysely's own SqliteDialect expects the
// better-sqlite3 statement shape; this file adapts DatabaseSync to it.
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  SqliteDriver,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';

// Prepared statements are cached: preparing is a measurable share of a
// request's time and the set of distinct SQL texts in the app is small.
const STATEMENT_CACHE_MAX = 500;

function toSqlValue(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    this.reader = stmt.columns().length > 0;
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#stmt.all(...parameters.map(toSqlValue));
  }
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#stmt.run(...parameters.map(toSqlValue));
  }
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#stmt.iterate(...parameters.map(toSqlValue)) as IterableIterator<unknown>;
  }
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  readonly #cache = new Map<string, NodeSqliteStatement>();
  constructor(path: string) {
    this.raw = new DatabaseSync(path);
    // WAL lets readers in other processes (the CLI, a backup) run beside the
    // server; FULL makes every commit durable (fsync of the WAL).
    this.raw.exec('PRAGMA journal_mode = WAL');
    this.raw.exec('PRAGMA synchronous = FULL');
    this.raw.exec('PRAGMA foreign_keys = ON');
    this.raw.exec('PRAGMA busy_timeout = 5000');
  }
  prepare(sql: string): SqliteStatement {
    let stmt = this.#cache.get(sql);
    if (stmt === undefined) {
      stmt = new NodeSqliteStatement(this.raw.prepare(sql));
      if (this.#cache.size >= STATEMENT_CACHE_MAX) {
        const oldest = this.#cache.keys().next().value;
        if (oldest !== undefined) this.#cache.delete(oldest);
      }
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }
  close(): void {
    this.#cache.clear();
    this.raw.close();
  }
}

// BEGIN IMMEDIATE takes the write lock up front, so a transaction that reads
// a balance and then writes never fails half-way with SQLITE_BUSY when a
// second process (the CLI) writes to the same file.
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class NodeSqliteDialect implements Dialect {
  readonly #database: NodeSqliteDatabase;
  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
