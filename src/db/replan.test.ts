// A connection's plans made again as it ages (NamingClient, db/database.ts), against a real PostgreSQL.
import { DIALECTS } from './dialect.ts';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { openDatabase, type DatabaseHandle, type Db } from './database.ts';
import { prepareText, statementName } from './prepared.ts';
import { jsonRowsFrom } from './bulk.ts';
import { freshDatabase } from '../../test/harness.ts';

const pgOnly = { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set: PostgreSQL only' };

/** How long the tested connection keeps its first plans. */
const FIRST_PLANS_MS = 5000;

/** The shape of the Idempotency-Key answers' UPDATE (idempotency.store.ts): rows from one JSON value, joined on a key. */
function markRows(table: string, ids: readonly number[]): CompiledQuery {
  const params: unknown[] = [];
  const text = `update ${table} set label = 'seen' from ${jsonRowsFrom(
    DIALECTS.postgres,
    params,
    'gid bigint',
    ids.map((id) => [id]),
    'v',
  )} where ${table}.id = v.gid`;
  prepareText(text);
  return CompiledQuery.raw(text, params);
}

/**
 * On `tested` (one connection, keeping its first plans FIRST_PLANS_MS): a statement run while
 * `table` holds ten rows, the table grown to 100,000 by another connection (no ANALYZE, as on a
 * server without autovacuum), its plan read before and after the connection is due to plan again.
 */
async function grownTable(tested: Db, other: Db, table: string): Promise<{ keptBeforeDue: boolean }> {
  // Autovacuum off for it: an ANALYZE of the grown table would change its statistics and make every
  // connection plan again at once (seen when other tests kept the server busy), which is not what is tested.
  await sql`create table ${sql.id(table)} (id bigint primary key, label text not null) with (autovacuum_enabled = false)`.execute(other);
  await sql`insert into ${sql.id(table)} select g, 'new' from generate_series(1, 10) g`.execute(other);
  // The tested connection is made by this first statement: between these two instants.
  const bornAfter = performance.now();
  const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tested)).rows[0]?.pid;
  const bornBefore = performance.now();
  // Run enough times for the connection to keep one plan for every run (PostgreSQL's generic plan).
  for (let i = 0; i < 8; i += 1) await tested.executeQuery(markRows(table, [1, 2, 3]));
  const name = statementName(markRows(table, [1]).sql);
  assert(name !== undefined, 'the statement is named');
  const planNow = async (): Promise<string> => {
    const rows = (await sql<{ 'QUERY PLAN': string }>`explain execute ${sql.raw(name)} (${sql.lit('[{"gid":1},{"gid":2}]')}, 2)`.execute(tested)).rows;
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  };
  const scan = new RegExp(`Seq Scan on ${table}`);
  assert.match(await planNow(), scan, 'on ten rows the kept plan scans the table');

  await sql`insert into ${sql.id(table)} select g, 'new' from generate_series(11, 100000) g`.execute(other);
  const stale = await planNow();
  assert(performance.now() - bornAfter < FIRST_PLANS_MS, 'the steps before this one finished before the connection was due to plan again');
  // Before it is due the connection keeps the plan made for ten rows, unless PostgreSQL itself
  // dropped every plan of the session (other sessions' DDL overflowing its invalidation queue,
  // as when other test files migrate databases meanwhile): the caller tries again for a quiet run.
  const keptBeforeDue = scan.test(stale);

  await new Promise((resolve) => setTimeout(resolve, bornBefore + FIRST_PLANS_MS + 100 - performance.now()));
  const fresh = await planNow();
  assert.doesNotMatch(fresh, scan, `once due, the plan is made for 100,000 rows:\n${fresh}`);
  assert.match(fresh, new RegExp(`Index Scan using ${table}_pkey`));
  // The same connection, its statement still prepared: only its plan was dropped.
  assert.equal((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tested)).rows[0]?.pid, pid);
  const marked = await tested.executeQuery(markRows(table, [5, 90000]));
  assert.equal(Number(marked.numAffectedRows), 2);
  return { keptBeforeDue };
}

/**
 * grownTable on a new handle each time, until one run keeps its plan before it is due (at most 5:
 * on a busy CI machine three in a row once saw other files' migrations drop every plan).
 */
async function inAQuietRun(open: () => DatabaseHandle, on: (handle: DatabaseHandle) => Db, other: Db, table: string): Promise<void> {
  let kept = false;
  for (let attempt = 1; attempt <= 5 && !kept; attempt++) {
    const handle = open();
    try {
      kept = (await grownTable(on(handle), other, `${table}_${attempt}`)).keptBeforeDue;
    } finally {
      await handle.close();
    }
  }
  assert.ok(kept, 'before the connection is due, it keeps the plan made for ten rows');
}

describe('plans made again as a connection ages (postgres)', pgOnly, () => {
  let databaseUrl: string;
  let other: DatabaseHandle;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshDatabase('postgres');
    databaseUrl = fresh.databaseUrl;
    cleanup = fresh.cleanup;
    other = openDatabase({ url: databaseUrl, poolMax: 1, lookupConnections: 0 });
  });
  after(async () => {
    await other.close();
    await cleanup();
  });

  test('a pooled connection, when lent once due', async () => {
    // One pooled connection, so every statement runs on the same server process.
    await inAQuietRun(
      () => openDatabase({ url: databaseUrl, poolMax: 1, lookupConnections: 0, replanFirstMs: FIRST_PLANS_MS }),
      (h) => h.db,
      other.db,
      'grows_pooled',
    );
  });

  test('a shared pipelined connection, before its next statement once due', async () => {
    await inAQuietRun(
      () => openDatabase({ url: databaseUrl, lookupConnections: 1, replanFirstMs: FIRST_PLANS_MS }),
      (h) => h.lookups,
      other.db,
      'grows_pipelined',
    );
  });
});
