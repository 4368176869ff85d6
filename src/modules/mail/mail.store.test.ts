// Every function of mail.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './mail.store.ts';

const AT = '2026-02-01T00:00:00.000Z';

describeEachEngine('mail store', (env) => {
  test('insertMail once per event, kind and recipient; claimDueMail leases; settleMail; recentMail; mailCounts', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const event = await db
      .insertInto('events')
      .values({ user_id: user.user_id, type: 'gift.created', object_type: 'gift', object_id: 1, data: '{}', created_at: AT })
      .returning('id')
      .executeTakeFirstOrThrow();
    const message = {
      event_id: event.id,
      kind: 'gift_received',
      recipient: 'bo@example.org',
      subject: 'A gift',
      text: 't',
      html: 'h',
      status: 'pending',
      next_at: AT,
      created_at: AT,
      claimed_until: null,
      last_error: null,
      sent_at: null,
    };
    await db.transaction().execute(async (trx) => {
      await store.insertMail(trx, [message, message]);
      await store.insertMail(trx, [{ ...message, event_id: null, kind: 'password_reset' }]);
    });
    const claimed = await store.claimDueMail(db, AT, '2026-02-01T00:02:00Z', 10);
    assert.deepEqual(claimed.map((m) => m.kind).sort(), ['gift_received', 'password_reset']);
    assert.deepEqual(await store.claimDueMail(db, '2026-02-01T00:01:00Z', '2026-02-01T00:03:00Z', 10), [], 'leased');
    const [first, second] = claimed;
    await store.settleMail(db, first?.id ?? 0, { status: 'sent', attempts: 1, sent_at: AT });
    await store.settleMail(db, second?.id ?? 0, { status: 'pending', attempts: 1, next_at: '2026-02-01T01:00:00Z', last_error: 'connection refused' });
    assert.deepEqual(await store.mailCounts(db, '2026-02-01T00:30:00Z'), { pending: 1, due: 0, failed: 0, sent: 1 });
    const recent = await store.recentMail(db, 1);
    assert.deepEqual([recent.length, recent[0]?.id], [1, Math.max(first?.id ?? 0, second?.id ?? 0)]);
  });

  test('recordPublicUrl keeps the newest address a server recorded; recordedPublicUrl reads it', async () => {
    const { db } = env().deps;
    assert.equal(await store.recordedPublicUrl(db), undefined, 'none before a server started');
    await store.recordPublicUrl(db, 'http://127.0.0.1:8080', '2026-11-29T00:00:00Z');
    await store.recordPublicUrl(db, 'https://give.example.org', '2026-11-29T01:00:00Z');
    assert.equal(await store.recordedPublicUrl(db), 'https://give.example.org');
  });
});
