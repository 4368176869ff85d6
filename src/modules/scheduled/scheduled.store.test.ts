// Every function of scheduled.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './scheduled.store.ts';

describeEachEngine('scheduled store', (env) => {
  const schedule = async (u: { user_id: number; fund_id: number }, next_date: string, created_at = '2026-01-01T00:00:00Z') => {
    const { db } = env().deps;
    const np = await db.selectFrom('non_profits').select('id').orderBy('id').executeTakeFirstOrThrow();
    return db.transaction().execute((trx) =>
      store.insertSchedule(trx, {
        book: 'live',
        user_id: u.user_id,
        fund_id: u.fund_id,
        non_profit_id: np.id,
        amount_cents: 500,
        frequency: 'Monthly',
        start_date: next_date,
        occurrences: 0,
        next_date,
        note: null,
        visibility: 'public',
        status: 'active',
        created_at,
        updated_at: created_at,
      }),
    );
  };

  test('insertSchedule returns the row; findSchedule in its book; pageOfSchedules newest first; stopSchedule', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '111111111', name: 'Scheduled Charity' });
    const user = await makeUser(env().deps);
    const a = await schedule(user, '2026-02-01', '2026-01-01T00:00:00Z');
    const b = await schedule(user, '2026-03-01', '2026-01-02T00:00:00Z');
    assert.deepEqual([a.status, a.occurrences, a.amount_cents], ['active', 0, 500]);
    assert.equal((await store.findSchedule(db, 'live', a.id))?.id, a.id);
    assert.equal(await store.findSchedule(db, 'test', a.id), undefined);
    const page = await store.pageOfSchedules(db, user.user_id, { page: 1, per_page: 10 });
    assert.deepEqual([page.count, page.rows.map((r) => r.id)], [2, [b.id, a.id]]);
    await store.stopSchedule(db, a.id, '2026-01-05T00:00:00Z');
    assert.equal((await store.findSchedule(db, 'live', a.id))?.status, 'cancelled');
  });

  test("scheduleByExternalId finds the owner's by their id; setScheduleMetadata replaces its metadata", async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '111111112', name: 'Scheduled Charity Two' });
    const user = await makeUser(env().deps);
    const other = await makeUser(env().deps);
    const s = await schedule(user, '2026-02-01');
    await db.updateTable('scheduled_donations').set({ external_id: 'plan-1' }).where('id', '=', s.id).execute();
    assert.equal(await store.scheduleByExternalId(db, user.user_id, 'plan-1'), s.id);
    assert.equal(await store.scheduleByExternalId(db, other.user_id, 'plan-1'), undefined);
    await store.setScheduleMetadata(db, s.id, '{"a":"b"}', '2026-01-09T00:00:00Z');
    assert.equal((await store.findSchedule(db, 'live', s.id))?.metadata, '{"a":"b"}');
  });

  test('dueSchedules lists active ones due by a date, earliest first; claimOccurrence is a compare-and-set', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const early = await schedule(user, '2026-04-01');
    const later = await schedule(user, '2026-04-03');
    await schedule(user, '2026-05-01');
    const due = (await store.dueSchedules(db, '2026-04-03', 100)).filter((s) => s.user_id === user.user_id);
    assert.deepEqual(
      due.map((s) => s.id),
      [early.id, later.id],
    );
    const claim = (s: { id: number; occurrences: number }) =>
      db.transaction().execute((trx) => store.claimOccurrence(trx, s, { next_date: '2026-05-01', status: 'active' }, '2026-04-01T00:00:00Z'));
    assert.equal(await claim(early), true);
    assert.equal(await claim(early), false, 'the occurrence count moved on');
    const after = await store.findSchedule(db, 'live', early.id);
    assert.deepEqual([after?.occurrences, after?.next_date], [1, '2026-05-01']);
    assert.equal(
      (await store.dueSchedules(db, '2026-04-03', 100)).some((s) => s.id === early.id),
      false,
    );
  });
});
