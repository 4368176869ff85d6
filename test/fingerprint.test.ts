// The fingerprint (test/harness.ts) that every refusal test compares before and after: it reaches
// every table the engine holds but an explicit list of caches and counters, so a table made
// tomorrow is covered the day it is made, and a row in any of them changes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describeEachEngine, fingerprint, FINGERPRINT_SKIPS, makeUser, tablesOf } from './harness.ts';

describeEachEngine('the fingerprint', (env) => {
  test('reaches every table but the explicit skips, each of which exists and says why', async () => {
    const { deps } = env();
    const tables = await tablesOf(deps);
    const print = await fingerprint(deps);
    for (const table of tables) if (FINGERPRINT_SKIPS[table] === undefined) assert.ok(table in print, `${table} is in the fingerprint`);
    for (const [table, why] of Object.entries(FINGERPRINT_SKIPS)) {
      assert.ok(tables.includes(table), `the skipped ${table} is a table`);
      assert.ok(why.length > 10, `${table} is skipped for a reason`);
    }
    assert.ok(tables.length > 50, `the engine's tables were read (${tables.length})`);
  });

  test('a new table is covered the day it is made, and a row in it changes the fingerprint', async () => {
    const { deps } = env();
    // The catalogue read (and kept) before the table is made: the fingerprint reads it again.
    assert.equal((await fingerprint(deps)).fingerprint_probe, undefined);
    await sql`create table fingerprint_probe (id integer primary key, note text)`.execute(deps.db);
    try {
      const before = await fingerprint(deps);
      assert.equal(before.fingerprint_probe, 0);
      await sql`insert into fingerprint_probe (id, note) values (1, 'a row')`.execute(deps.db);
      assert.notDeepEqual(await fingerprint(deps), before);
    } finally {
      await sql`drop table fingerprint_probe`.execute(deps.db);
    }
    assert.equal((await fingerprint(deps)).fingerprint_probe, undefined, 'a dropped table leaves it');
  });

  test("a compared row's change is seen though no count moves, and an authentication's last use is not", async () => {
    const { deps } = env();
    const user = await makeUser(deps);
    const before = await fingerprint(deps);
    await sql`update api_keys set last_used_at = ${new Date().toISOString()} where id = ${user.caller.key_id}`.execute(deps.db);
    assert.deepEqual(await fingerprint(deps), before, 'last_used_at is left out');
    await sql`update users set name = ${'Printed'} where id = ${user.user_id}`.execute(deps.db);
    const renamed = await fingerprint(deps);
    assert.notDeepEqual(renamed, before, 'a compared column changed');
    assert.equal(renamed.users, before.users, 'the count alone did not move');
  });
});
