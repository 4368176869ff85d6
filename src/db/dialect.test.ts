// The dialect is asked of a connection: the same answer for a Db, its transactions and its lookups,
// and each engine's way of locking rows and serializing transactions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser, whileHeld } from '../../test/harness.ts';
import { DIALECTS, dialectOf } from './dialect.ts';

describeEachEngine('the dialect of a connection', (env) => {
  test('a Db, its transactions, its reads and its lookups all know their engine', async () => {
    const { deps, engine } = env();
    assert.equal(dialectOf(deps.db), DIALECTS[engine]);
    assert.equal(dialectOf(deps.reads), DIALECTS[engine]);
    assert.equal(dialectOf(deps.lookups), DIALECTS[engine]);
    await deps.db.transaction().execute(async (trx) => assert.equal(dialectOf(trx).engine, engine));
  });

  test('lockRows and claimRows: FOR UPDATE (SKIP LOCKED) on PostgreSQL, the plain read on SQLite', () => {
    const { deps, engine } = env();
    const dialect = dialectOf(deps.db);
    const read = () => deps.db.selectFrom('users').select('id');
    const locked = dialect.lockRows(read()).compile().sql;
    const claimed = dialect.claimRows(read()).compile().sql;
    if (engine === 'postgres') {
      assert.match(locked, /for update$/);
      assert.match(claimed, /for update skip locked$/);
    } else {
      assert.equal(locked, read().compile().sql);
      assert.equal(claimed, read().compile().sql);
    }
  });

  test('lockKeys makes transactions naming the same key wait for each other on PostgreSQL', async () => {
    const { deps, engine } = env();
    if (engine !== 'postgres') return; // SQLite's transactions run one at a time already
    const { waited, outcome } = await whileHeld(
      deps.db,
      (trx) => dialectOf(trx).lockKeys(trx, ['signin:email:a@example.org']),
      () => deps.db.transaction().execute((trx) => dialectOf(trx).lockKeys(trx, ['signin:email:a@example.org'])),
    );
    assert.equal(waited, true, 'the second waited for the first');
    await outcome;
    const other = await whileHeld(
      deps.db,
      (trx) => dialectOf(trx).lockKeys(trx, ['one key']),
      () => deps.db.transaction().execute((trx) => dialectOf(trx).lockKeys(trx, ['another key'])),
    );
    assert.equal(other.waited, false, 'another key does not wait');
    await other.outcome;
  });
});

test('each engine has its dialect', () => {
  assert.equal(DIALECTS.postgres.guardedStatements, true);
  assert.equal(DIALECTS.sqlite.guardedStatements, false);
});

describeEachEngine('a read snapshot', (env) => {
  test('every read in it sees the same commits, while a writer commits meanwhile, and two at once each get theirs', async () => {
    const { deps } = env();
    const count = async (db: typeof deps.db) =>
      Number(
        (
          await db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count(deps.db);
    const seen = await dialectOf(deps.db).readSnapshot(deps.db, deps.reads, async (snapshot) => {
      const first = await count(snapshot);
      await makeUser(deps); // committed by the writer while the snapshot reads
      const second = await count(snapshot);
      return [first, second];
    });
    assert.deepEqual(seen, [before, before], 'the snapshot did not see the commit made during it');
    assert.equal(await count(deps.db), before + 1, 'the writer was not held up, and its commit is there');
    const both = await Promise.all([1, 2].map(() => dialectOf(deps.db).readSnapshot(deps.db, deps.reads, (snapshot) => count(snapshot))));
    assert.deepEqual(both, [before + 1, before + 1]);
  });
});
