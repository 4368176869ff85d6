// Every function of events.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { runStatements } from '../../db/bulk.ts';
import * as store from './events.store.ts';

describeEachEngine('events store', (env) => {
  test("recordEvent and eventStatements write events; listEvents pages a user's, newest first, data parsed", async () => {
    const { db } = env().deps;
    const [user, other] = [await makeUser(env().deps), await makeUser(env().deps)];
    const at = '2026-01-01T00:00:00Z';
    await db.transaction().execute(async (trx) => {
      await store.recordEvent(trx, { user_id: user.user_id, type: 'gift.created', object_type: 'gift', object_id: 7, data: { status: 'new' }, at });
      await runStatements(
        trx,
        store.eventStatements([
          { user_id: user.user_id, type: 'donation.created', object_type: 'donation', object_id: 8, data: { status: 'scheduled' }, at },
          { user_id: user.user_id, type: 'donation.updated', object_type: 'donation', object_id: 8, data: { status: 'approved' }, at },
          { user_id: other.user_id, type: 'donation.created', object_type: 'donation', object_id: 9, data: {}, at },
        ]),
      );
    });
    const page = await store.listEvents(db, user.user_id, { page: 1, per_page: 2 });
    assert.equal(page.count, 3);
    assert.deepEqual(
      page.rows.map((r) => [r.type, r.object_id, r.data]),
      [
        ['donation.updated', 8, { status: 'approved' }],
        ['donation.created', 8, { status: 'scheduled' }],
      ],
    );
    const last = await store.listEvents(db, user.user_id, { page: 2, per_page: 2 });
    assert.deepEqual(
      last.rows.map((r) => [r.type, r.data]),
      [['gift.created', { status: 'new' }]],
    );
    assert.deepEqual(store.eventStatements([]), []);
    // Many at once: 2,500 events in statements of a thousand.
    await db.transaction().execute((trx) =>
      store.recordEvents(
        trx,
        Array.from({ length: 2500 }, (_, i) => ({ user_id: other.user_id, type: 'payment.created' as const, object_type: 'payment', object_id: i, data: { i }, at })),
      ),
    );
    assert.equal((await store.listEvents(db, other.user_id, { page: 1, per_page: 1 })).count, 2501);
    await db.transaction().execute((trx) => store.recordEvents(trx, []));
    // Relayed, so that they do not stand before the next test's events.
    for (let waiting = await store.unrelayedEvents(db, 1000); waiting.length > 0; waiting = await store.unrelayedEvents(db, 1000)) {
      const ids = waiting.map((e) => e.id);
      await db.transaction().execute((trx) => store.markRelayed(trx, ids, at));
    }
  });

  test('unrelayedEvents, claimEvents, markRelayed and unrelayedCount: each event is relayed once', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const at = '2026-01-02T00:00:00Z';
    await db.transaction().execute(async (trx) => {
      for (const id of [1, 2, 3]) await store.recordEvent(trx, { user_id: user.user_id, type: 'gift.created', object_type: 'gift', object_id: id, data: {}, at });
    });
    const waiting = (await store.unrelayedEvents(db, 1000)).filter((e) => e.user_id === user.user_id);
    assert.deepEqual(
      waiting.map((e) => [e.object_id, e.book]),
      [
        [1, 'live'],
        [2, 'live'],
        [3, 'live'],
      ],
    );
    const before = await store.unrelayedCount(db);
    const ids = waiting.map((e) => e.id);
    await db.transaction().execute(async (trx) => {
      assert.deepEqual(await store.claimEvents(trx, ids.slice(0, 2)), ids.slice(0, 2));
      await store.markRelayed(trx, ids.slice(0, 2), at);
    });
    assert.equal(await store.unrelayedCount(db), before - 2);
    await db.transaction().execute(async (trx) => {
      assert.deepEqual(await store.claimEvents(trx, ids), ids.slice(2), 'the relayed ones are not claimed again');
      assert.deepEqual(await store.claimEvents(trx, []), []);
    });
    // One event, its owner's only: what a delivery of it carries is read through it.
    const first = ids[0] as number;
    assert.deepEqual([(await store.eventOfUser(db, user.user_id, first))?.object_id, (await store.eventOfUser(db, user.user_id, first))?.book], [1, 'live']);
    assert.equal(await store.eventOfUser(db, user.user_id + 1_000, first), undefined, "another's event is not found");
    assert.equal(await store.eventOfUser(db, user.user_id, 999_999_999), undefined);
  });
});
