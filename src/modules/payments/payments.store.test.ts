// Every function of payments.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { applyDonationEvent } from '../donations/index.ts';
import * as store from './payments.store.ts';

describeEachEngine('payments store', (env) => {
  test('runs: one per book and date, listed newest first, submitted once', async () => {
    const { db } = env().deps;
    const first = await db.transaction().execute((trx) => store.insertRun(trx, { book: 'live', pay_date: '2026-12-01', opened_at: '2026-11-30T00:00:00Z', opened_by: 'op' }));
    assert.ok(first !== undefined);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        if ((await store.insertRun(trx, { book: 'live', pay_date: '2026-12-01', opened_at: '2026-11-30T00:00:00Z', opened_by: 'op' })) === undefined) throw new Error('taken');
      }),
      /taken/,
    );
    const sandbox = await db.transaction().execute((trx) => store.insertRun(trx, { book: 'test', pay_date: '2026-12-01', opened_at: '2026-11-30T00:00:00Z', opened_by: 'op' }));
    assert.ok(sandbox !== undefined, 'the other book has its own run of the date');
    assert.equal((await store.findRun(db, 'live', first))?.status, 'open');
    assert.equal(await store.findRun(db, 'test', first), undefined);
    // The day's runs of a book in order: what picks each NACHA file's File ID Modifier.
    const second = (await db
      .transaction()
      .execute((trx) => store.insertRun(trx, { book: 'live', pay_date: '2026-12-02', opened_at: '2026-11-30T09:00:00Z', opened_by: 'op' }))) as number;
    assert.deepEqual(
      [await store.runsOpenedBefore(db, 'live', first), await store.runsOpenedBefore(db, 'live', second), await store.runsOpenedBefore(db, 'test', sandbox)],
      [0, 1, 0],
    );
    assert.deepEqual(
      (await store.listRuns(db, 'live', 10)).map((r) => Number(r.id)),
      [second, first],
    );
    // Three runs open (two live, one sandbox); on 2026-12-02 the two paying 2026-12-01 are overdue, none before their day.
    assert.deepEqual(await store.moneyOutHealth(db, '2026-12-02'), { open_runs: 3, overdue_runs: 2, open_exceptions: 0, returned_7d: 0 });
    assert.deepEqual(await store.moneyOutHealth(db, '2026-11-30'), { open_runs: 3, overdue_runs: 0, open_exceptions: 0, returned_7d: 0 });
    assert.deepEqual(
      await db
        .transaction()
        .execute(async (trx) => [await store.submitRunRow(trx, first, '2026-12-01T00:00:00Z', 'op'), await store.submitRunRow(trx, first, '2026-12-01T00:00:00Z', 'op2')]),
      [true, false],
    );
  });

  test('payments: approved donations payable once, check numbers, grants, outcomes, stale checks', async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const donor = await makeUser(deps);
    await fund(deps, donor, 1_000_00);
    const ids: number[] = [];
    for (const amount of [10, 20]) ids.push((await call(app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount } })).body.id);
    for (const id of ids) await applyDonationEvent(deps, 'live', id, 'approve');
    const payable = await store.payableDonations(db, 'live');
    assert.deepEqual(
      payable.map((d) => [d.id, Number(d.amount_cents), d.ein, d.diligence]),
      ids.map((id, i) => [id, (i + 1) * 10_00, '261544963', 'clear']),
    );
    assert.deepEqual(await store.payableDonations(db, 'test'), []);
    const nonProfitId = payable[0]?.non_profit_id as number;
    assert.deepEqual(
      (await store.organisationsToScreen(db, [nonProfitId, 999_999])).map((o) => [o.ein, o.diligence]),
      [['261544963', 'clear']],
    );
    assert.deepEqual(await store.organisationsToScreen(db, []), []);
    const runId = (await db
      .transaction()
      .execute((trx) => store.insertRun(trx, { book: 'live', pay_date: '2027-01-04', opened_at: '2027-01-01T00:00:00Z', opened_by: 'op' }))) as number;
    const payment = (at: number | null) => ({
      run_id: runId,
      book: 'live' as const,
      non_profit_id: nonProfitId,
      ein: '261544963',
      payee: 'Vermont Foodbank',
      address: '',
      method: at === null ? 'ach' : 'check',
      amount_cents: 30_00,
      grants: 2,
      screened: 'clear',
      status: 'open',
      payee_account_id: null,
      check_number: at,
      return_code: null,
      created_at: '2027-01-01T00:00:00Z',
      sent_at: null,
      settled_at: null,
      settled_by: null,
    });
    const grants = payable.map((d) => ({ donation_id: d.id, amount_cents: Number(d.amount_cents) }));
    const paymentId = await db.transaction().execute(async (trx) => {
      assert.equal(await store.nextCheckNumber(trx, 'live', 1001), 1001);
      return (await store.insertPayments(trx, [payment(1001)], [grants]))?.get(nonProfitId);
    });
    assert.ok(paymentId !== undefined);
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        assert.equal(await store.nextCheckNumber(trx, 'live', 1001), 1002);
        if ((await store.insertPayments(trx, [{ ...payment(1002), run_id: runId + 1 }], [grants])) === undefined) throw new Error('a donation in two payments');
      }),
      /a donation in two payments/,
    );
    assert.deepEqual(await store.payableDonations(db, 'live'), [], 'in a payment: no longer payable');
    // A second operator approves an open run once; a withdrawn run gives its grants up, its donations payable again.
    const spare = (await db
      .transaction()
      .execute((trx) => store.insertRun(trx, { book: 'live', pay_date: '2027-01-05', opened_at: '2027-01-01T00:00:00Z', opened_by: 'op' }))) as number;
    assert.deepEqual(
      await db
        .transaction()
        .execute(async (trx) => [
          await store.approveRunRow(trx, spare, '2027-01-01T01:00:00Z', 'op2'),
          await store.approveRunRow(trx, spare, '2027-01-01T01:00:00Z', 'op3'),
          await store.withdrawRunRow(trx, spare, '2027-01-01T02:00:00Z', 'op', 'wrong date'),
          await store.withdrawRunRow(trx, spare, '2027-01-01T02:00:00Z', 'op', 'again'),
          await store.approveRunRow(trx, spare, '2027-01-01T03:00:00Z', 'op4'),
        ]),
      [true, false, true, false, false],
    );
    assert.deepEqual([(await store.findRun(db, 'live', spare))?.approved_by, (await store.findRun(db, 'live', spare))?.withdraw_reason], ['op2', 'wrong date']);
    assert.deepEqual(
      (await store.paymentsOfRun(db, runId)).map((p) => Number(p.id)),
      [paymentId],
    );
    assert.equal((await store.findPayment(db, 'test', paymentId)) === undefined, true);
    assert.equal(Number((await store.paymentByCheckNumber(db, 'live', 1001))?.id), paymentId);
    assert.equal(await store.paymentByCheckNumber(db, 'test', 1001), undefined);
    assert.equal(await store.paymentByCheckNumber(db, 'live', 1002), undefined);
    assert.deepEqual(
      (await store.grantsOf(db, [paymentId])).map((g) => [g.donation_id, Number(g.amount_cents), g.user_id, g.status]),
      ids.map((id, i) => [id, (i + 1) * 10_00, donor.user_id, 'approved']),
    );
    assert.deepEqual(await store.grantsOf(db, []), []);
    assert.deepEqual(
      (await store.remittanceLines(db, [paymentId])).map((l) => [l.donation_id, Number(l.amount_cents), l.share, l.designation, l.dedication, l.email]),
      ids.map((id, i) => [id, (i + 1) * 10_00, 'name', null, null, null]),
    );
    assert.deepEqual(await store.paymentsToOrganisation(db, nonProfitId, 10), [], 'an open payment is not listed');
    const moved = await db
      .transaction()
      .execute(async (trx) => [
        await store.settlePayment(trx, paymentId, 'open', { status: 'sent', sent_at: '2027-01-04T00:00:00Z' }),
        await store.settlePayment(trx, paymentId, 'open', { status: 'sent', sent_at: '2027-01-05T00:00:00Z' }),
      ]);
    assert.deepEqual(moved, [true, false]);
    // Sending many at once moves only those still open: none here, so the first sending stands.
    assert.equal(await db.transaction().execute((trx) => store.sendPayments(trx, [paymentId, paymentId + 1_000], '2027-01-06T00:00:00Z')), 0);
    assert.equal(await db.transaction().execute((trx) => store.sendPayments(trx, [], '2027-01-06T00:00:00Z')), 0);
    // Once sent, the organisation's payments list it (the live book's, newest first, with the run's date).
    assert.deepEqual(
      (await store.paymentsToOrganisation(db, nonProfitId, 10)).map((p) => [Number(p.id), p.pay_date, p.status]),
      [[paymentId, '2027-01-04', 'sent']],
    );
    assert.deepEqual(await store.paymentsToOrganisation(db, nonProfitId + 1, 10), []);
    assert.equal((await store.findPayment(db, 'live', paymentId))?.sent_at, '2027-01-04T00:00:00Z');
    assert.deepEqual(await store.staleChecks(db, 'live', '2027-01-04'), []);
    assert.deepEqual(await store.staleChecks(db, 'live', '2027-07-04'), [paymentId]);
    assert.deepEqual(await store.staleChecks(db, 'test', '2027-07-04'), []);
    // The bank paid it after it was voided: an exception once per payment and kind, resolved once.
    const exception = {
      book: 'live' as const,
      payment_id: paymentId,
      kind: 'voided_check_paid',
      amount_cents: 100,
      paid_date: '2027-08-01',
      found_at: '2027-08-02T00:00:00Z',
      found_by: 'op',
    };
    assert.equal(await db.transaction().execute((trx) => store.insertException(trx, exception)), true);
    assert.equal(await db.transaction().execute((trx) => store.insertException(trx, exception)), false, 'once');
    const [open] = await store.exceptionsOf(db, 'live');
    assert.deepEqual([Number(open?.payment_id), open?.resolution], [paymentId, null]);
    assert.deepEqual(await store.exceptionsOf(db, 'test'), []);
    assert.equal(Number((await store.findException(db, 'live', Number(open?.id)))?.payment_id), paymentId);
    assert.equal(await store.findException(db, 'test', Number(open?.id)), undefined, 'not in the other book');
    assert.deepEqual(
      (await store.openExceptions(db)).map((x) => Number(x.payment_id)),
      [paymentId],
    );
    const resolve = (book: 'live' | 'test') =>
      db
        .transaction()
        .execute((trx) => store.resolveException(trx, book, Number(open?.id), { resolution: 'recovered', resolved_at: '2027-08-03T00:00:00Z', resolved_by: 'op', note: 'back' }));
    assert.equal(await resolve('test'), false, 'not in the other book');
    assert.equal(await resolve('live'), true);
    assert.equal(await resolve('live'), false, 'resolved once');
    assert.deepEqual(await store.openExceptions(db), []);
    // A withdrawn payment gives its grants up (their donation ids, once).
    const released = await db.transaction().execute(async (trx) => {
      const made = (await store.insertPayments(trx, [{ ...payment(1003), run_id: spare }], [[]]))?.get(nonProfitId) as number;
      return [await store.releaseGrants(trx, paymentId), await store.releaseGrants(trx, paymentId), await store.releaseGrants(trx, made)];
    });
    assert.deepEqual(released, [payable.map((p) => p.id).sort((x, y) => x - y), [], []]);
    assert.deepEqual(await store.grantsOf(db, [paymentId]), []);
  });
});
