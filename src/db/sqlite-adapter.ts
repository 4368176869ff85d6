// A Kysely dialect over node:sqlite (built into Node 24), so the embedded
// default needs no native build. Kysely's own SqliteDialect expects the
// better-sqlite3 statement shape; this file adapts DatabaseSync to it.
import { DatabaseSync, type StatementSync, type SQLInputValue } from 'node:sqlite';
import { GroupCommitSqliteDriver } from './sqlite-group-commit.ts';
import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect, type Driver, type Kysely, type SqliteDatabase, type SqliteStatement } from 'kysely';

// Prepared statements are cached: preparing is a measurable share of a
// request's time and the set of distinct SQL texts in the app is small.
const STATEMENT_CACHE_MAX = 500;

function toSqlValue(value: unknown): SQLInputValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value as SQLInputValue;
}

type RowFactory = (values: unknown[]) => Record<string, unknown>;

/**
 * node:sqlite returns each row as a null-prototype object built key by key,
 * which V8 keeps in slow dictionary mode: every later read, spread and
 * serialization of it pays. Rows are fetched as arrays instead and turned
 * into objects by a function made once per statement, so that every row of
 * a statement shares one fast shape.
 */
function rowFactory(names: readonly string[]): RowFactory {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as RowFactory;
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #stmt: StatementSync;
  readonly #toRow: RowFactory | undefined;
  constructor(stmt: StatementSync) {
    this.#stmt = stmt;
    const columns = stmt.columns();
    this.reader = columns.length > 0;
    if (this.reader) {
      stmt.setReturnArrays(true);
      this.#toRow = rowFactory(columns.map((c) => c.name));
    }
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.#stmt.all(...parameters.map(toSqlValue)) as unknown as unknown[][];
    const toRow = this.#toRow;
    return toRow === undefined ? rows : rows.map(toRow);
  }
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#stmt.run(...parameters.map(toSqlValue));
  }
  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    const toRow = this.#toRow;
    for (const row of this.#stmt.iterate(...parameters.map(toSqlValue))) {
      yield toRow === undefined ? row : toRow(row as unknown as unknown[]);
    }
  }
}

/** The most of a file a reader maps: SQLite's own cap (SQLITE_MAX_MMAP_SIZE) in Node's build. */
const READER_MMAP_BYTES = 0x7fff0000;

/** Pages of WAL between automatic checkpoints. */
const WAL_PAGES = 20_000;

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync;
  /** The write-ahead log's file, which a group commit syncs (none in memory). */
  readonly walPath: string | undefined;
  /** A reader (NodeSqliteDatabase.reader): its transactions are read snapshots. */
  readonly readOnly: boolean;
  /**
   * Transactions committed, the real commits that carried them, the syncs that made those durable,
   * and the groups undone after their writes could be read (sqlite-group-commit.ts).
   */
  readonly stats = { transactions: 0, commits: 0, syncs: 0, undone: 0 };
  readonly #cache = new Map<string, NodeSqliteStatement>();
  constructor(path: string, options: { cacheMb?: number; walPages?: number; readOnly?: boolean } = {}) {
    // A reader writes nothing, and a database in memory has no file.
    this.walPath = options.readOnly === true || path === ':memory:' || path === '' ? undefined : `${path}-wal`;
    this.readOnly = options.readOnly === true;
    if (options.readOnly === true) {
      this.raw = new DatabaseSync(path, { readOnly: true });
      this.raw.exec('PRAGMA busy_timeout = 5000');
      this.raw.exec(`PRAGMA mmap_size = ${READER_MMAP_BYTES}`);
      return;
    }
    this.raw = new DatabaseSync(path);
    // WAL lets readers in other processes (the CLI, a backup) run beside the
    // server; FULL makes every commit durable (fsync of the WAL).
    this.raw.exec('PRAGMA journal_mode = WAL');
    this.raw.exec('PRAGMA synchronous = FULL');
    this.raw.exec('PRAGMA foreign_keys = ON');
    this.raw.exec('PRAGMA busy_timeout = 5000');
    // The default page cache is 2 MiB: a list page's rows and joins then come
    // from the OS cache through syscalls. A 64 MiB cache made the list query
    // 4x faster on a 1M-donation file. Its pages count in the process's RSS.
    this.raw.exec(`PRAGMA cache_size = -${Math.trunc((options.cacheMb ?? 64) * 1024)}`);
    // No memory-mapped reads here: the mapped pages a process reads count in
    // its resident memory, which would then grow with the whole database.
    this.raw.exec('PRAGMA mmap_size = 0');
    this.raw.exec('PRAGMA temp_store = MEMORY');
    // SQLite copies the WAL back into the database (a checkpoint, in the
    // committing call) every 1,000 pages by default. A round of donations over
    // many funds dirties a page of several indexes per fund, and the next rounds
    // dirty the same pages again: between checkpoints of 20,000 pages (80 MiB of
    // WAL at most) a page is copied back once for many rounds. POST over 100
    // funds measured +17-28% against the default in the same hour (ADR 9).
    this.raw.exec(`PRAGMA wal_autocheckpoint = ${options.walPages ?? WAL_PAGES}`);
  }
  /**
   * A second, read-only connection to the same file, for reads that need no
   * transaction and may be a commit behind (directory search, ADR 7). It
   * reads through a memory map of the file (up to SQLite's 2 GiB cap) rather
   * than a copy per page: a search reads up to 2,000 organisations at random
   * places in a national directory, and so read it answered with a typo at
   * p95 15 ms instead of 20 (1.9M organisations, in process, same hour).
   * The mapped pages it reads count in the process's resident memory: the
   * directory's, not the books', which the main connection reads unmapped.
   */
  static reader(path: string): NodeSqliteDatabase {
    return new NodeSqliteDatabase(path, { readOnly: true });
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

export class NodeSqliteDialect implements Dialect {
  readonly #database: NodeSqliteDatabase;
  constructor(database: NodeSqliteDatabase) {
    this.#database = database;
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.#database);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
