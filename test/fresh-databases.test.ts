// The suites' databases (test/fresh-databases.ts): a migrated one is a copy of a schema built once,
// so it must be the schema the migrations build in place, and each copy a database of its own;
// on PostgreSQL what a process killed before its cleanup left is dropped, and only that.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, rmSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { openDatabase, sqlitePathOf } from '../src/db/database.ts';
import { migrate, MIGRATION_NAMES } from '../src/db/migrate.ts';
import { engines, until } from './harness.ts';
import { dropLeftoverDatabases, emptyDatabase, freshDatabase } from './fresh-databases.ts';

/** Each table's columns with their types, each index and trigger by name, read from the engine's catalogue. */
async function catalogue(db: Kysely<any>, engine: 'sqlite' | 'postgres'): Promise<string[]> {
  const rows =
    engine === 'sqlite'
      ? await sql<{ line: string }>`select m.type || ' ' || m.name || coalesce(' ' || p.name || ' ' || p.type || ' ' || p."notnull", '') as line
          from sqlite_master m left join pragma_table_info(m.name) p on m.type = 'table'
          where m.name not like 'sqlite_%' order by 1`.execute(db)
      : await sql<{
          line: string;
        }>`select 'column ' || c.table_name || ' ' || c.column_name || ' ' || c.data_type || ' ' || c.is_nullable || ' ' || coalesce(c.column_default, '') as line
            from information_schema.columns c where c.table_schema = current_schema()
          union all select 'index ' || tablename || ' ' || indexname from pg_indexes where schemaname = current_schema()
          union all select 'trigger ' || event_object_table || ' ' || trigger_name || ' ' || event_manipulation from information_schema.triggers where trigger_schema = current_schema()
          union all select 'function ' || p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema()
          order by 1`.execute(db);
  return rows.rows.map((r) => r.line);
}

async function gone(engine: 'sqlite' | 'postgres', databaseUrl: string): Promise<boolean> {
  if (engine === 'sqlite') return !existsSync(sqlitePathOf(databaseUrl) as string);
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rows.length === 0;
  } finally {
    await admin.end();
  }
}

for (const { name: engine } of engines()) {
  describe(`the suites' databases on ${engine}`, () => {
    test('a migrated one holds every migration and the schema they build in place; an empty one holds nothing', async () => {
      const copy = await freshDatabase(engine, { migrated: true });
      const empty = await freshDatabase(engine);
      const a = openDatabase({ url: copy.databaseUrl, poolMax: 1 });
      const b = openDatabase({ url: empty.databaseUrl, poolMax: 1 });
      try {
        assert.deepEqual(await catalogue(b.db, engine), [], 'the empty one is empty');
        const names = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(a.db);
        assert.deepEqual(
          names.rows.map((r) => r.name),
          [...MIGRATION_NAMES],
        );
        assert.deepEqual(await migrate(a), [], 'nothing is left to apply');
        assert.deepEqual(await migrate(b), [...MIGRATION_NAMES]);
        const built = await catalogue(b.db, engine);
        assert.ok(built.length > 300, `the catalogue was read (${built.length} lines)`);
        assert.deepEqual(await catalogue(a.db, engine), built);
      } finally {
        await a.close();
        await b.close();
        await copy.cleanup();
        await empty.cleanup();
      }
      assert.ok(await gone(engine, copy.databaseUrl), 'the copy is removed at cleanup');
    });

    test('a kept one asked migrated holds every migration too', async () => {
      const kept = await freshDatabase(engine, { keepAs: 'fresh_kept', migrated: true });
      const handle = openDatabase({ url: kept.databaseUrl, poolMax: 1 });
      try {
        const names = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(handle.db);
        assert.deepEqual(
          names.rows.map((r) => r.name),
          [...MIGRATION_NAMES],
        );
      } finally {
        await handle.close();
        if (engine === 'postgres') {
          const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
          await admin.connect();
          await admin.query('drop schema fresh_kept cascade');
          await admin.end();
        } else {
          for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqlitePathOf(kept.databaseUrl)}${suffix}`, { force: true });
        }
      }
    });

    test('each migrated copy is a database of its own', async () => {
      const [one, two] = [await freshDatabase(engine, { migrated: true }), await freshDatabase(engine, { migrated: true })];
      const a = openDatabase({ url: one.databaseUrl, poolMax: 1 });
      const b = openDatabase({ url: two.databaseUrl, poolMax: 1 });
      try {
        await sql`insert into schema_breaks (name) values ('only_in_one')`.execute(a.db);
        const seen = await sql<{ n: number }>`select count(*) as n from schema_breaks where name = 'only_in_one'`.execute(b.db);
        assert.equal(Number(seen.rows[0]?.n), 0);
      } finally {
        await a.close();
        await b.close();
        await one.cleanup();
        await two.cleanup();
      }
    });

    if (engine === 'postgres')
      test("an empty database of its own carries this process's mark and holds no table; its cleanup drops it", async () => {
        const empty = await emptyDatabase(process.env.TEST_DATABASE_URL as string);
        const copy = await freshDatabase(engine, { migrated: true });
        try {
          // The mark the leftovers' drop reads: a process killed before its cleanup leaves nothing behind.
          assert.match(empty.name, /^t_[0-9a-f]{8}_[0-9a-f]{8}$/);
          assert.equal(empty.name.slice(0, 11), new URL(copy.databaseUrl).pathname.slice(1, 12));
          const handle = openDatabase({ url: empty.databaseUrl, poolMax: 1 });
          try {
            assert.deepEqual(await catalogue(handle.db, engine), [], 'it is empty');
          } finally {
            await handle.close();
          }
        } finally {
          await empty.cleanup();
          await copy.cleanup();
        }
        assert.equal(await gone(engine, empty.databaseUrl), true);
      });

    // (A SQLite copy is a file in a temporary folder of its own.)
    if (engine === 'postgres')
      test("a killed process's databases are dropped by another process; a live one's stay", async () => {
        // Two processes each make a suite database and wait; one is killed (no cleanup runs).
        const suite = () => {
          const child = spawn(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              "const f = await import('./test/fresh-databases.ts'); const d = await f.freshDatabase('postgres', { migrated: true }); console.log(d.databaseUrl); setInterval(() => {}, 1000);",
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          const url = (async () => {
            const [line] = (await once(child.stdout, 'data')) as [Buffer];
            return line.toString().trim();
          })();
          return { child, url };
        };
        const killed = suite();
        const living = suite();
        const [killedUrl, livingUrl] = [await killed.url, await living.url];
        const mine = await freshDatabase(engine, { migrated: true });
        try {
          killed.child.kill('SIGKILL');
          await once(killed.child, 'exit');
          const name = (url: string) => new URL(url).pathname.slice(1);
          // The server sees the killed process's connection close a moment after the exit.
          const dropped: string[] = [];
          await until(
            "the killed process's database dropped",
            async () => {
              dropped.push(...(await dropLeftoverDatabases(process.env.TEST_DATABASE_URL as string)));
              return dropped.includes(name(killedUrl));
            },
            5_000,
          );
          assert.ok(
            dropped.includes(name(killedUrl)) && !dropped.includes(name(livingUrl)) && !dropped.includes(name(mine.databaseUrl)),
            `the killed process's: ${dropped.join(', ')}`,
          );
          assert.deepEqual([await gone(engine, killedUrl), await gone(engine, livingUrl), await gone(engine, mine.databaseUrl)], [true, false, false]);
          living.child.kill('SIGKILL');
          await once(living.child, 'exit');
          await until(
            "the other process's database dropped once it dies",
            async () => {
              await dropLeftoverDatabases(process.env.TEST_DATABASE_URL as string);
              return await gone(engine, livingUrl);
            },
            5_000,
          );
          assert.ok(await gone(engine, livingUrl), 'once it dies, the other too');
          assert.equal(await gone(engine, mine.databaseUrl), false, "this process's own stays");
        } finally {
          killed.child.kill('SIGKILL');
          living.child.kill('SIGKILL');
          await mine.cleanup();
        }
      });
  });
}
