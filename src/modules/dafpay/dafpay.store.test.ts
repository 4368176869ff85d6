// Every function of dafpay.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { createDonation } from '../donations/index.ts';
import * as store from './dafpay.store.ts';

describeEachEngine('dafpay store', (env) => {
  test('donorById; grantOfMember: a donation of a fund the person is a member of, in the book, with the app that made it', async () => {
    const { db } = env().deps;
    const [donor, stranger] = [await makeUser(env().deps, { name: 'Grant Giver' }), await makeUser(env().deps)];
    assert.deepEqual(await store.donorById(db, donor.user_id), { id: donor.user_id, name: 'Grant Giver', email: null });
    assert.equal(await store.donorById(db, 987_654_321), undefined);
    await makeNonProfit(env().deps, { ein: '530196605', name: 'Red Cross' });
    await fund(env().deps, donor, 10_000);
    const caller = {
      user_id: donor.user_id,
      fund_id: donor.fund_id,
      actor_id: donor.user_id,
      role: 'organizer' as const,
      key_id: 0,
      mode: 'live',
      book: 'live' as const,
      user_status: 'active',
      last_used_at: null,
    };
    const made = await createDonation(env().deps, caller, { ein: '530196605', amount_cents: 2_500, tracking_id: 'trk-1' });
    const row = await store.grantOfMember(db, 'live', donor.user_id, made.id);
    assert.deepEqual(row && [row.fund_id, row.amount_cents, row.tracking_id, row.ein, row.non_profit_name, row.client_id, row.completed_at], [
      donor.fund_id,
      2_500,
      'trk-1',
      '530196605',
      'Red Cross',
      null,
      null,
    ]);
    assert.equal(await store.grantOfMember(db, 'test', donor.user_id, made.id), undefined, 'another book');
    assert.equal(await store.grantOfMember(db, 'live', stranger.user_id, made.id), undefined, 'no member of its fund');
  });
});
