// A fresh database for each suite, and a migrated one fast: the schema is built once per set of
// migrations (a SQLite file, a PostgreSQL template database) and copied for each suite that asks.
// Migrating took a suite 0.2-0.3 s on SQLite and 0.8-2.7 s on PostgreSQL, over a hundred times a
// run; a copy takes a few milliseconds (a file) or about a tenth of a second (CREATE DATABASE
// ... TEMPLATE). The copies' key is the content of src/db, so a changed migration builds anew.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, globSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { withClient } from '../bench/processes.ts';

export interface FreshDatabase {
  databaseUrl: string;
  cleanup: () => Promise<void>;
}

export interface FreshOptions {
  /** Keep the database afterwards under this name (a file in test-results/, or a PostgreSQL schema), for `almoner check` in CI. */
  keepAs?: string;
  /** Already migrated to the newest schema (a copy of one migrated once), rather than empty. */
  migrated?: boolean;
}

/**
 * `use` given a handle on a fresh, empty database on `engine` (freshDatabase), and its URL for other
 * connections; the handle closed and the database removed after, whatever `use` did.
 */
export async function onFreshDatabase(engine: 'sqlite' | 'postgres', use: (handle: DatabaseHandle, databaseUrl: string) => Promise<void>): Promise<void> {
  const { databaseUrl, cleanup } = await freshDatabase(engine);
  const handle = openDatabase({ url: databaseUrl });
  try {
    await use(handle, databaseUrl);
  } finally {
    await handle.close();
    await cleanup();
  }
}

/**
 * An empty database on `engine` (a temp SQLite file, or a schema of its own on TEST_DATABASE_URL),
 * or with `migrated` one that holds the newest schema and nothing else: a copy of a SQLite file, or
 * a database of its own made from a template (a kept one, or where the role may not create
 * databases, a schema migrated in place).
 */
export async function freshDatabase(engine: 'sqlite' | 'postgres', options: FreshOptions = {}): Promise<FreshDatabase> {
  if (engine === 'sqlite' && options.keepAs !== undefined) {
    mkdirSync('test-results', { recursive: true });
    const path = join('test-results', `${options.keepAs}.sqlite`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    if (options.migrated === true) copyFileSync(await migratedSqlite(), path);
    return { databaseUrl: `sqlite:${path}`, cleanup: async () => {} };
  }
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'almoner-test-'));
    const path = join(dir, 'test.sqlite');
    if (options.migrated === true) copyFileSync(await migratedSqlite(), path);
    return { databaseUrl: `sqlite:${path}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.TEST_DATABASE_URL as string;
  if (options.migrated === true && options.keepAs === undefined) {
    const copy = await copyOfTemplate(base);
    if (copy !== undefined) return copy;
  }
  const schema = await freshSchema(base, options.keepAs);
  if (options.migrated === true) await migrateAt(schema.databaseUrl);
  return schema;
}

/** Brings the database at `url` to the newest schema. */
async function migrateAt(url: string): Promise<void> {
  const handle = openDatabase({ url, poolMax: 1 });
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
}

/** A schema of its own on `base`'s database, empty (kept under `keepAs`, or dropped at cleanup). */
async function freshSchema(base: string, keepAs: string | undefined): Promise<FreshDatabase> {
  const schema = keepAs ?? `t_${randomBytes(6).toString('hex')}`;
  await withClient(base, async (admin) => {
    if (keepAs !== undefined) await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.query(`create schema ${schema}`);
  });
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    cleanup:
      keepAs !== undefined
        ? async () => {}
        : async () => {
            await withClient(base, (c) => c.query(`drop schema ${schema} cascade`));
          },
  };
}

/** The migrations' key: what src/db and this file hold, so that a changed migration (or the code it calls, or the way a template is built) builds a new one. */
const schemaKey: string = (() => {
  const hash = createHash('sha256');
  const root = new URL('../src/db/', import.meta.url).pathname;
  for (const file of globSync('**/*.ts', { cwd: root }).sort()) hash.update(file).update(readFileSync(join(root, file)));
  hash.update(readFileSync(new URL(import.meta.url).pathname));
  return hash.digest('hex').slice(0, 16);
})();

let sqliteTemplate: Promise<string> | undefined;

/** The path of a SQLite file migrated to the newest schema, built once for all test processes. */
function migratedSqlite(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const path = join(tmpdir(), `almoner-migrated-${schemaKey}.sqlite`);
    if (existsSync(path)) return path;
    // Built under a name of this process's own and renamed into place whole: another process
    // building it at the same time only does the same work.
    const building = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const handle = openDatabase({ url: `sqlite:${building}`, poolMax: 1 });
    try {
      await migrate(handle);
      // Everything in the file itself: the copies take the file alone.
      await sql`pragma wal_checkpoint(truncate)`.execute(handle.db);
    } finally {
      await handle.close();
    }
    renameSync(building, path);
    for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    // Templates of older migrations are no longer wanted (a process copying one keeps its file open).
    for (const name of readdirSync(tmpdir())) {
      if (name.startsWith('almoner-migrated-') && !name.startsWith(`almoner-migrated-${schemaKey}`)) rmSync(join(tmpdir(), name), { force: true });
    }
    return path;
  })();
  return sqliteTemplate;
}

let pgTemplate: Promise<string | undefined> | undefined;

/**
 * A database of its own made from the migrated template on `base`'s server; undefined where the
 * role may not create databases. A template another run dropped (for newer migrations) is built again.
 */
async function copyOfTemplate(base: string): Promise<FreshDatabase | undefined> {
  for (let attempt = 1; ; attempt++) {
    pgTemplate ??= migratedTemplate(base);
    const template = await pgTemplate;
    if (template === undefined) return undefined;
    const name = await markedName(base);
    try {
      await withClient(base, (admin) => admin.query(`create database ${name} template ${template}`));
    } catch (error) {
      if ((error as { code?: string }).code !== '3D000' || attempt > 1) throw error;
      pgTemplate = undefined;
      continue;
    }
    return ownDatabase(base, name);
  }
}

/** A new database name carrying this process's mark (`t_<mark>_<random>`, see processMark). */
async function markedName(base: string): Promise<string> {
  return `t_${await processMark(base)}_${randomBytes(4).toString('hex')}`;
}

/** The database `name` on `base`'s server, dropped by its cleanup. */
function ownDatabase(base: string, name: string): FreshDatabase {
  const url = new URL(base);
  url.pathname = `/${name}`;
  url.searchParams.delete('options');
  return {
    databaseUrl: url.toString(),
    cleanup: async () => {
      await withClient(base, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * An empty database of its own on `base`'s server (nothing migrated: for a test that runs the
 * migrations itself through something else, a pooler), named with this process's mark, so that a
 * process killed before its cleanup leaves nothing the next run does not drop.
 */
export async function emptyDatabase(base: string): Promise<FreshDatabase & { name: string }> {
  const name = await markedName(base);
  await withClient(base, (admin) => admin.query(`create database ${name}`));
  return { name, ...ownDatabase(base, name) };
}

/** The advisory lock class of the processes' marks (the other key is the mark). */
const MARKS = 7243100;
let mark: Promise<string> | undefined;

/**
 * This process's mark, which the names of the databases it makes carry (`t_<mark>_<random>`): held
 * as an advisory lock on a connection of its own for as long as the process lives, so that a
 * database whose mark is free was left by a process that died before its cleanup (a kill, a
 * Ctrl-C). The first time, it drops what such processes left, on this server, from any machine.
 */
async function processMark(base: string): Promise<string> {
  mark ??= (async () => {
    const own = randomBytes(4).toString('hex');
    const keeper = new pg.Client({ connectionString: base });
    await keeper.connect();
    await keeper.query('select pg_advisory_lock($1, $2)', [MARKS, markKey(own)]);
    // The lock is the connection's: it ends with the process, however it ends, and must not keep it alive.
    keeper.on('error', () => {});
    (keeper as unknown as { connection: { stream: { unref(): void } } }).connection.stream.unref();
    await dropLeftoverDatabases(base);
    return own;
  })();
  return await mark;
}

/** A mark as the advisory lock's second key (a signed 32-bit integer). */
const markKey = (m: string) => Number.parseInt(m, 16) | 0;

/**
 * Drops the suites' databases whose process is gone (its mark no longer held, see processMark);
 * returns their names. Databases of a process still running, this one's included, stay.
 */
export async function dropLeftoverDatabases(base: string): Promise<string[]> {
  return await withClient(base, async (admin) => {
    const marked = await admin.query<{ datname: string }>(`select datname from pg_database where datname ~ '^t_[0-9a-f]{8}_[0-9a-f]{8}$' order by datname`);
    const dropped: string[] = [];
    for (const { datname } of marked.rows) {
      const key = markKey(datname.slice(2, 10));
      const [free] = (await admin.query<{ free: boolean }>('select pg_try_advisory_lock($1, $2) as free', [MARKS, key])).rows;
      if (free?.free !== true) continue;
      try {
        await admin.query(`drop database if exists ${datname} with (force)`);
        dropped.push(datname);
      } finally {
        await admin.query('select pg_advisory_unlock($1, $2)', [MARKS, key]);
      }
    }
    return dropped;
  });
}

/** The name of the template database migrated to the newest schema, built once (under a lock) for all test processes. */
async function migratedTemplate(base: string): Promise<string | undefined> {
  const template = `almoner_migrated_${schemaKey}`;
  return await withClient(base, async (admin) => {
    await admin.query('select pg_advisory_lock(7243099)');
    try {
      if ((await admin.query('select 1 from pg_database where datname = $1', [template])).rows.length > 0) return template;
      const building = `${template}_${process.pid}`;
      try {
        await admin.query(`drop database if exists ${building}`);
        await admin.query(`create database ${building}`);
      } catch (error) {
        // 42501: this role may not create databases; the suites migrate schemas of their own.
        if ((error as { code?: string }).code === '42501') return undefined;
        throw error;
      }
      const url = new URL(base);
      url.pathname = `/${building}`;
      url.searchParams.delete('options');
      await migrateAt(url.toString());
      await admin.query(`alter database ${building} rename to ${template}`);
      // Templates of older migrations are no longer wanted; one another run is copying stays.
      const older = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 'almoner\\_migrated\\_%' and datname <> $1`, [template]);
      for (const { datname } of older.rows) await admin.query(`drop database if exists ${datname}`).catch(() => {});
      return template;
    } finally {
      await admin.query('select pg_advisory_unlock(7243099)');
    }
  });
}
