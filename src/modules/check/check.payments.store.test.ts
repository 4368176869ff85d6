// Every function of check.payments.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, withoutForeignKeys } from '../../../test/harness.ts';
import * as paymentStore from './check.payments.store.ts';
import { formatCheck, runCheck } from './check.service.ts';

describeEachEngine('check payments store', (env) => {
  test('payments: a payment that is not its grants, a grant out of step, and one to an organisation not cleared are seen', async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '500000009', name: 'Paid Charity' });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '500000009', amount: 25 } });
    const np = await db.selectFrom('non_profits').select('id').where('ein', '=', '500000009').executeTakeFirstOrThrow();
    const run = await db
      .insertInto('payment_runs')
      .values({ book: 'live', pay_date: '2027-02-01', status: 'open', opened_at: 'x', opened_by: 'op', submitted_at: null, submitted_by: null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const payment = await db
      .insertInto('payments')
      .values({
        run_id: Number(run.id),
        book: 'live',
        non_profit_id: np.id,
        ein: '500000009',
        payee: 'Paid Charity',
        address: '',
        method: 'check',
        amount_cents: 3_000,
        grants: 1,
        screened: 'review',
        status: 'open',
        payee_account_id: null,
        check_number: 9001,
        return_code: null,
        created_at: 'x',
        sent_at: null,
        settled_at: null,
        settled_by: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('payment_grants')
      .values({ payment_id: Number(payment.id), donation_id: made.body.id, amount_cents: 2_000 })
      .execute();
    const totals = await paymentStore.paymentTotalMismatches(db);
    assert.deepEqual(
      totals.map((t) => t.what),
      ['is 3000 cents in 1 grants, but its grants sum to 2000 in 1', `pays donation ${made.body.id} 2000 cents, not its 2500`],
    );
    const steps = await paymentStore.grantsOutOfStep(db);
    assert.deepEqual(
      steps.map((s) => [s.donation_id, s.what]),
      [
        [made.body.id, 'is scheduled, not approved'],
        [0, 'went to an organisation screened as review'],
      ],
    );
    assert.match(formatCheck(await runCheck(deps)).text, /donation \d+ of payment \d+ is scheduled, not approved/);
  });

  test('openPaymentExceptions: the exceptions no operator resolved, both books, in order', async () => {
    await withoutForeignKeys(env(), async (db) => {
      const row = (payment_id: number, book: 'live' | 'test', resolution: string | null) => ({
        book,
        payment_id,
        kind: 'voided_check_paid',
        amount_cents: 500,
        paid_date: '2027-01-02',
        found_at: '2027-01-03T00:00:00Z',
        found_by: 'op',
        resolution,
        resolved_at: null,
        resolved_by: null,
        note: null,
      });
      await db
        .insertInto('payment_exceptions')
        .values([row(900_001, 'live', null), row(900_002, 'test', null), row(900_003, 'live', 'recovered')])
        .execute();
      assert.deepEqual(
        (await paymentStore.openPaymentExceptions(db)).map((x) => [Number(x.payment_id), x.book]),
        [
          [900_001, 'live'],
          [900_002, 'test'],
        ],
      );
      await db.deleteFrom('payment_exceptions').execute();
    });
  });
});
