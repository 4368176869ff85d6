import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql, type Generated } from 'kysely';
import { NodeSqliteDatabase, NodeSqliteDialect } from './sqlite-adapter.ts';
import { openDatabase } from './database.ts';

interface T {
  items: { id: Generated<number>; label: string };
}

async function withDb(fn: (db: Kysely<T>, raw: NodeSqliteDatabase, path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-sqlite-'));
  const path = join(dir, 'db.sqlite');
  const raw = new NodeSqliteDatabase(path);
  const db = new Kysely<T>({ dialect: new NodeSqliteDialect(raw) });
  try {
    await sql`create table items (id integer primary key, label text not null unique)`.execute(db);
    await fn(db, raw, path);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What another connection (another process, after a crash) would see. */
function committedLabels(path: string): string[] {
  const other = new DatabaseSync(path, { readOnly: true });
  try {
    return (other.prepare('select label from items order by id').all() as Array<{ label: string }>).map((r) => r.label);
  } finally {
    other.close();
  }
}

test('concurrent transactions share commits, and each is durable when it resolves', async () => {
  await withDb(async (db, raw, path) => {
    const labels = Array.from({ length: 100 }, (_, i) => `t${i}`);
    await Promise.all(
      labels.map(async (label) => {
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('items').values({ label }).execute();
        });
        assert.ok(committedLabels(path).includes(label), `${label} is on disk when its commit resolves`);
      }),
    );
    assert.equal(raw.stats.transactions, 100);
    assert.ok(raw.stats.commits < 100, `100 transactions took ${raw.stats.commits} commits`);
    assert.deepEqual(committedLabels(path).sort(), [...labels].sort());
  });
});

test("a group's commit is made durable by a sync of the WAL that begins after it, off the event loop; plain statements stay synchronous=FULL", async () => {
  await withDb(async (db, raw) => {
    const synchronous = () => Number(raw.raw.prepare('pragma synchronous').get()?.synchronous);
    await db.transaction().execute(async (trx) => {
      assert.equal(synchronous(), 1, "inside a group: NORMAL, SQLite's COMMIT leaves the sync to the driver");
      await trx.insertInto('items').values({ label: 'first' }).execute();
    });
    assert.equal(raw.stats.syncs, 1, 'the commit resolved after its sync');
    assert.equal(synchronous(), 2, 'outside a group: FULL');
    await db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'second' }).execute());
    assert.equal(raw.stats.syncs, 2, 'a later commit waits for a sync of its own');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction().execute((trx) =>
          trx
            .insertInto('items')
            .values({ label: `t${i}` })
            .execute(),
        ),
      ),
    );
    assert.ok(raw.stats.syncs - 2 >= 1 && raw.stats.syncs - 2 <= raw.stats.commits - 2, `${raw.stats.commits - 2} commits, ${raw.stats.syncs - 2} syncs`);
  });
});

test('a plain write run while a group is open is answered only when that group is durable', async () => {
  await withDb(async (db, raw, path) => {
    let seenWhenAnswered: boolean | undefined;
    await Promise.all([
      db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'in a transaction' }).execute()),
      // Queued behind the transaction: it runs once the transaction's savepoint is released, inside the still open group.
      db
        .insertInto('items')
        .values({ label: 'plain' })
        .execute()
        .then(() => {
          seenWhenAnswered = committedLabels(path).includes('plain');
        }),
    ]);
    assert.equal(seenWhenAnswered, true, 'committed (and synced) before it was answered');
    assert.equal(raw.stats.commits, 1, 'one group carried both');
    assert.deepEqual((await db.selectFrom('items').select('label').execute()).map((r) => r.label).sort(), ['in a transaction', 'plain']);
  });
});

test('a failed sync fails its group and every later transaction', async () => {
  await withDb(async (db, _raw, path) => {
    await db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'durable' }).execute());
    rmSync(`${path}-wal`);
    await assert.rejects(
      db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'lost' }).execute()),
      /could not be made durable/,
    );
    await assert.rejects(
      db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'later' }).execute()),
      /could not be made durable/,
    );
  });
});

test("a group whose COMMIT fails is undone whole: its transactions fail, a read between them saw their writes, and the handle's undone count moves", async () => {
  await withDb(async (db, raw, path) => {
    // A deferred foreign key is checked only at the group's COMMIT.
    await sql`create table parents (id integer primary key)`.execute(db);
    await sql`create table children (id integer primary key, parent_id integer not null references parents (id) deferrable initially deferred)`.execute(db);
    const first = db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'first' }).execute());
    const orphan = db.transaction().execute((trx) => sql`insert into children (id, parent_id) values (1, 42)`.execute(trx));
    // A plain read queued behind them runs before the group's COMMIT, on the same connection.
    const seen = db.selectFrom('items').select('label').execute();
    assert.deepEqual(
      (await seen).map((r) => r.label),
      ['first'],
      "the read saw the group's write",
    );
    await assert.rejects(first, /FOREIGN KEY/);
    await assert.rejects(orphan, /FOREIGN KEY/);
    assert.deepEqual([raw.stats.undone, committedLabels(path)], [1, []], 'undone, and nothing on disk');
    await db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'later' }).execute());
    assert.deepEqual([raw.stats.undone, committedLabels(path)], [1, ['later']], 'the next group commits');
  });
});

/** Each label's transaction, all at once: it inserts `<label>-first`, then the label; how each ended. */
async function twoInsertsEach(db: Kysely<T>, labels: readonly string[]): Promise<string[]> {
  const results = await Promise.allSettled(
    labels.map((label) =>
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto('items')
          .values({ label: `${label}-first` })
          .execute();
        await trx.insertInto('items').values({ label }).execute();
      }),
    ),
  );
  return results.map((r) => r.status);
}

test('a failing transaction rolls back alone; the others in its group commit', async () => {
  await withDb(async (db, _raw, path) => {
    await db.insertInto('items').values({ label: 'taken' }).execute();
    assert.deepEqual(await twoInsertsEach(db, ['a', 'taken', 'b', 'c']), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    assert.deepEqual(committedLabels(path).sort(), ['a', 'a-first', 'b', 'b-first', 'c', 'c-first', 'taken']);
  });
});

test("a group's first transaction, which has no savepoint, rolls back with the outer transaction; those behind it commit", async () => {
  await withDb(async (db, raw, path) => {
    await db.insertInto('items').values({ label: 'taken' }).execute();
    const commitsBefore = raw.stats.commits;
    assert.deepEqual(await twoInsertsEach(db, ['taken', 'a', 'b']), ['rejected', 'fulfilled', 'fulfilled']);
    assert.deepEqual(committedLabels(path).sort(), ['a', 'a-first', 'b', 'b-first', 'taken']);
    assert.equal(raw.raw.isTransaction, false, 'no transaction is left open');
    assert.equal(raw.stats.commits - commitsBefore, 1, 'the two that commit share one group, opened after the first was undone');
    // A lone transaction that fails leaves nothing open either, and the next one commits.
    await assert.rejects(db.transaction().execute(async (trx) => trx.insertInto('items').values({ label: 'a' }).execute()));
    assert.equal(raw.raw.isTransaction, false);
    await db.transaction().execute(async (trx) => trx.insertInto('items').values({ label: 'c' }).execute());
    assert.ok(committedLabels(path).includes('c'));
  });
});

test('a transaction alone commits at once, and plain statements stay autocommit', async () => {
  await withDb(async (db, raw, path) => {
    await db.transaction().execute(async (trx) => trx.insertInto('items').values({ label: 'solo' }).execute());
    assert.deepEqual(committedLabels(path), ['solo']);
    await db.insertInto('items').values({ label: 'plain' }).execute();
    assert.deepEqual(committedLabels(path), ['solo', 'plain']);
    assert.equal(raw.stats.commits, 1);
  });
});

test('a connection is durable and checkpoints its WAL every 20,000 pages unless told otherwise', async () => {
  await withDb(async (_db, raw) => {
    assert.deepEqual({ ...raw.raw.prepare('pragma journal_mode').get() }, { journal_mode: 'wal' });
    assert.deepEqual({ ...raw.raw.prepare('pragma synchronous').get() }, { synchronous: 2 }, 'FULL: every commit synced');
    assert.deepEqual({ ...raw.raw.prepare('pragma wal_autocheckpoint').get() }, { wal_autocheckpoint: 20_000 });
  });
  const dir = mkdtempSync(join(tmpdir(), 'almoner-sqlite-'));
  const other = new NodeSqliteDatabase(join(dir, 'db.sqlite'), { walPages: 1000 });
  try {
    assert.deepEqual({ ...other.raw.prepare('pragma wal_autocheckpoint').get() }, { wal_autocheckpoint: 1000 });
  } finally {
    other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a reader is a second, read-only, memory-mapped connection that sees every durable commit; the main one maps nothing', async () => {
  await withDb(async (db, raw, path) => {
    const reader = NodeSqliteDatabase.reader(path);
    const reads = new Kysely<T>({ dialect: new NodeSqliteDialect(reader) });
    try {
      assert.deepEqual({ ...raw.raw.prepare('pragma mmap_size').get() }, { mmap_size: 0 });
      assert.equal(raw.walPath, `${path}-wal`, 'the writer syncs the WAL after each group');
      assert.equal(reader.walPath, undefined, 'a reader has nothing to sync');
      assert.ok(Number(reader.raw.prepare('pragma mmap_size').get()?.mmap_size) >= 1024 * 1024 * 1024, 'the reader maps the file');
      await db.transaction().execute((trx) => trx.insertInto('items').values({ label: 'seen' }).execute());
      assert.deepEqual(
        (await reads.selectFrom('items').select('label').execute()).map((r) => r.label),
        ['seen'],
      );
      await assert.rejects(reads.insertInto('items').values({ label: 'written' }).execute(), /readonly/);
      assert.deepEqual(committedLabels(path), ['seen']);
    } finally {
      await reads.destroy();
    }
  });
});

test('a database handle reads the directory through its reader on an SQLite file, and through its one connection in memory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-sqlite-'));
  const onFile = openDatabase({ url: `sqlite:${join(dir, 'db.sqlite')}` });
  const inMemory = openDatabase({ url: 'sqlite::memory:' });
  try {
    assert.notEqual(onFile.reads, onFile.db);
    assert.equal(inMemory.reads, inMemory.db, 'a second connection to :memory: would be another, empty, database');
    await sql`create table items (id integer primary key, label text not null)`.execute(onFile.db);
    await sql`insert into items (label) values ('seen')`.execute(onFile.db);
    assert.deepEqual((await sql<{ label: string }>`select label from items`.execute(onFile.reads)).rows, [{ label: 'seen' }]);
  } finally {
    await onFile.close();
    await inMemory.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
