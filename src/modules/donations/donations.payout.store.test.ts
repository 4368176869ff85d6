// Every function of donations.payout.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { insertDonation } from './donations.store.ts';
import * as store from './donations.payout.store.ts';

describeEachEngine('donations payout store', (env) => {
  test('donationsToPayOut reads its book only; markPaidOut moves approved donations once, stamping completed_at or mailed_at', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '030179440', name: 'Payout Charity' });
    const np = Number((await db.selectFrom('non_profits').select('id').where('ein', '=', '030179440').executeTakeFirstOrThrow()).id);
    const user = await makeUser(env().deps, { name: 'Paid Out' });
    const at = '2027-01-04T00:00:00Z';
    const insert = (status: string, amount_cents: number) =>
      db.transaction().execute((trx) =>
        insertDonation(trx, {
          book: 'live',
          user_id: user.user_id,
          fund_id: user.fund_id,
          non_profit_id: np,
          amount_cents,
          status,
          note: null,
          private_memo: null,
          visibility: 'public',
          scheduled_donation_id: null,
          app_connection_id: null,
          created_at: '2027-01-01T00:00:00Z',
        }),
      );
    const [a, b, c] = [await insert('approved', 1_000), await insert('approved', 2_000), await insert('scheduled', 3_000)] as [number, number, number];
    assert.deepEqual(
      (await db.transaction().execute((trx) => store.donationsToPayOut(trx, 'live', [a, b, c, 999_999_999])))
        .map((d) => [d.id, d.user_id, d.fund_id, Number(d.amount_cents), d.status])
        .sort(),
      [
        [a, user.user_id, user.fund_id, 1_000, 'approved'],
        [b, user.user_id, user.fund_id, 2_000, 'approved'],
        [c, user.user_id, user.fund_id, 3_000, 'scheduled'],
      ].sort(),
    );
    assert.deepEqual(await db.transaction().execute((trx) => store.donationsToPayOut(trx, 'test', [a, b, c])), [], 'the other book sees none');
    // Only approved donations move: the scheduled one stays, and a second move of the same finds none.
    assert.equal(await db.transaction().execute((trx) => store.markPaidOut(trx, [a, c], 'completed', at)), 1);
    assert.equal(await db.transaction().execute((trx) => store.markPaidOut(trx, [b], 'check_mailed', at)), 1);
    assert.equal(await db.transaction().execute((trx) => store.markPaidOut(trx, [a, b], 'completed', '2027-01-05T00:00:00Z')), 0);
    assert.equal(await db.transaction().execute((trx) => store.markPaidOut(trx, [], 'completed', at)), 0);
    const rows = await db.selectFrom('donations').select(['id', 'status', 'completed_at', 'mailed_at', 'updated_at']).where('id', 'in', [a, b, c]).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => [r.id, r.status, r.completed_at, r.mailed_at]),
      [
        [a, 'completed', at, null],
        [b, 'check_mailed', null, at],
        [c, 'scheduled', null, null],
      ],
    );
  });
});
