// Every function of contributions.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './contributions.store.ts';

describeEachEngine('contributions store', (env) => {
  const row = (u: { user_id: number; fund_id: number }, created_at: string) => ({
    book: 'live' as const,
    user_id: u.user_id,
    fund_id: u.fund_id,
    type: 'wire_payment',
    status: 'waiting_for_funds',
    units: '10',
    valuation: '1',
    currency: 'USD',
    frequency: 'OneTime',
    amount_cents: 1000,
    created_at,
    received_at: null,
    completed_at: null,
  });

  test('insertContribution, fundOfContribution (in its book only), lockContribution, moveContribution (a compare-and-set)', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const id = await db.transaction().execute((trx) => store.insertContribution(trx, row(user, '2026-01-01T00:00:00Z')));
    assert.equal(await store.fundOfContribution(db, 'live', id), user.fund_id);
    assert.equal(await store.fundOfContribution(db, 'test', id), undefined);
    assert.equal(await store.fundOfContribution(db, 'live', 999_999), undefined);
    await db.transaction().execute(async (trx) => {
      const locked = await store.lockContribution(trx, id);
      assert.equal(locked.status, 'waiting_for_funds');
      assert.equal(await store.moveContribution(trx, id, 'waiting_for_funds', 'pending', '2026-01-02T00:00:00Z'), true);
      assert.equal(await store.moveContribution(trx, id, 'waiting_for_funds', 'pending', '2026-01-02T00:00:00Z'), false, 'no longer in the state named');
      assert.equal(await store.moveContribution(trx, id, 'pending', 'success', '2026-01-03T00:00:00Z'), true);
    });
    const done = await db.transaction().execute((trx) => store.lockContribution(trx, id));
    assert.deepEqual([done.status, done.received_at, done.completed_at], ['success', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z']);
  });

  test("contributionByExternalId finds the owner's by their id; setContributionMetadata replaces its metadata", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const other = await makeUser(env().deps);
    const id = await db.transaction().execute((trx) => store.insertContribution(trx, { ...row(user, '2026-01-05T00:00:00Z'), external_id: 'wire-1' }));
    assert.equal(await store.contributionByExternalId(db, user.user_id, 'wire-1'), id);
    assert.equal(await store.contributionByExternalId(db, other.user_id, 'wire-1'), undefined);
    await store.setContributionMetadata(db, id, '{"a":"b"}');
    assert.equal((await store.findContribution(db, 'live', id))?.metadata, '{"a":"b"}');
  });

  test("pageOfContributions: a user's own, newest first, with their count", async () => {
    const { db } = env().deps;
    const [user, other] = [await makeUser(env().deps), await makeUser(env().deps)];
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertContribution(trx, row(user, '2026-01-01T00:00:00Z')),
        await store.insertContribution(trx, row(user, '2026-01-03T00:00:00Z')),
        await store.insertContribution(trx, row(user, '2026-01-02T00:00:00Z')),
        await store.insertContribution(trx, row(other, '2026-01-04T00:00:00Z')),
      ]);
    const first = await store.pageOfContributions(db, user.user_id, { page: 1, per_page: 2 });
    assert.equal(first.count, 3);
    assert.deepEqual(
      first.rows.map((r) => r.id),
      [ids[1], ids[2]],
    );
    assert.deepEqual(
      (await store.pageOfContributions(db, user.user_id, { page: 2, per_page: 2 })).rows.map((r) => r.id),
      [ids[0]],
    );
  });

  test('declarations: findContribution in its book, awaitingMoney by reference, recordArrival and cancelDeclared while waiting only', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const declared = (ref: string) => ({ ...row(user, '2026-01-01T00:00:00Z'), amount_cents: 0, reference: ref, declared_at: '2026-01-01T00:00:00Z' });
    const [a, b] = await db
      .transaction()
      .execute(async (trx) => [await store.insertContribution(trx, declared('ALM-AAAA-0001')), await store.insertContribution(trx, declared('ALM-AAAA-0002'))]);
    assert.equal((await store.findContribution(db, 'live', a!))?.reference, 'ALM-AAAA-0001');
    assert.equal(await store.findContribution(db, 'test', a!), undefined);
    assert.deepEqual(
      (await store.awaitingMoney(db, 'live', 'alm-aaaa-0002', 10)).map((c) => c.id),
      [b],
      'by reference, any case',
    );
    assert.ok((await store.awaitingMoney(db, 'live', undefined, 10)).some((c) => c.id === a));
    assert.deepEqual(await store.awaitingMoney(db, 'test', undefined, 10), []);
    assert.equal(
      await db.transaction().execute((trx) => store.recordArrival(trx, a!, { units: '12', valuation: '150.5', amount_cents: 180_600, valuation_source: 'NYSE close' })),
      true,
    );
    const arrived = await store.findContribution(db, 'live', a!);
    assert.deepEqual(
      [arrived?.units, arrived?.valuation, arrived?.amount_cents, arrived?.valuation_source, arrived?.status],
      ['12', '150.5', 180_600, 'NYSE close', 'waiting_for_funds'],
    );
    assert.equal(await db.transaction().execute((trx) => store.cancelDeclared(trx, b!, '2026-01-02T00:00:00Z')), true);
    assert.equal(await db.transaction().execute((trx) => store.cancelDeclared(trx, b!, '2026-01-02T00:00:00Z')), false, 'once');
    assert.equal(
      await db.transaction().execute((trx) => store.recordArrival(trx, b!, { units: '1', valuation: '1', amount_cents: 100, valuation_source: null })),
      false,
      'not after cancelling',
    );
    assert.deepEqual([(await store.findContribution(db, 'live', b!))?.status, (await store.findContribution(db, 'live', b!))?.cancelled_at], ['failed', '2026-01-02T00:00:00Z']);
    // A value set again only while the contribution is in the status the caller read.
    const revised = { units: '12', valuation: '15.05', amount_cents: 18_060, valuation_source: 'NYSE close, per share' };
    assert.equal(await db.transaction().execute((trx) => store.reviseValue(trx, a!, 'success', revised)), false, 'not in that status');
    assert.equal(await db.transaction().execute((trx) => store.reviseValue(trx, a!, 'waiting_for_funds', revised)), true);
    const again = await store.findContribution(db, 'live', a!);
    assert.deepEqual([again?.valuation, again?.amount_cents, again?.valuation_source], ['15.05', 18_060, 'NYSE close, per share']);
  });

  test("receipts: donorName, insertReceipt numbers its body from its id, receiptsOf lists a contribution's in its book, a second original is refused", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Receipt Holder' });
    const id = await db.transaction().execute((trx) => store.insertContribution(trx, { ...row(user, '2026-01-01T00:00:00Z'), status: 'success' }));
    assert.equal(await db.transaction().execute((trx) => store.donorName(trx, user.user_id)), 'Receipt Holder');
    const receipt = { book: 'live' as const, contribution_id: id, user_id: user.user_id, replaces_id: null, issued_at: '2026-01-02T00:00:00Z' };
    const first = await db.transaction().execute((trx) => store.insertReceipt(trx, receipt, (n) => ({ number: n })));
    await assert.rejects(
      db.transaction().execute((trx) => store.insertReceipt(trx, receipt, (n) => ({ number: n }))),
      'one original receipt per contribution',
    );
    const correction = await db.transaction().execute((trx) => store.insertReceipt(trx, { ...receipt, replaces_id: first }, (n) => ({ number: n })));
    const listed = await store.receiptsOf(db, 'live', id);
    assert.deepEqual(
      listed.map((r) => [r.id, r.replaces_id, JSON.parse(r.body).number]),
      [
        [first, null, first],
        [correction, first, correction],
      ],
    );
    assert.deepEqual(await store.receiptsOf(db, 'test', id), []);
  });

  test('successesWithoutReceipt: a success completed since receipts exist and without its original receipt, until it has one', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const id = await db
      .transaction()
      .execute((trx) => store.insertContribution(trx, { ...row(user, '2099-01-01T00:00:00Z'), status: 'success', completed_at: '2099-01-01T00:00:00Z' }));
    const older = await db
      .transaction()
      .execute((trx) => store.insertContribution(trx, { ...row(user, '2000-01-01T00:00:00Z'), status: 'success', completed_at: '2000-01-01T00:00:00Z' }));
    const missing = await store.successesWithoutReceipt(db, 1000);
    assert.ok(missing.includes(id), 'missing its receipt');
    assert.ok(!missing.includes(older), 'one from before receipts existed is left as it was');
    await db
      .transaction()
      .execute((trx) => store.insertReceipt(trx, { book: 'live', contribution_id: id, user_id: user.user_id, replaces_id: null, issued_at: '2099-01-02T00:00:00Z' }, () => ({})));
    assert.ok(!(await store.successesWithoutReceipt(db, 1000)).includes(id));
  });

  test("contributionsForExport: a user's, newest first, a batch at a time, filtered by status and dates", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertContribution(trx, row(user, '2026-03-01T10:00:00Z')),
        await store.insertContribution(trx, { ...row(user, '2026-03-02T10:00:00Z'), status: 'failed' }),
        await store.insertContribution(trx, row(user, '2026-03-03T10:00:00Z')),
        await store.insertContribution(trx, row(user, '2026-03-03T10:00:00Z')),
      ]);
    // Newest first; two of the same moment by id, and a batch boundary between them loses neither.
    const first = await store.contributionsForExport(db, user.user_id, {}, undefined, 1);
    assert.deepEqual(
      first.map((c) => c.id),
      [ids[3]],
    );
    const after = (c: { created_at: string; id: number } | undefined) => (c === undefined ? undefined : { created_at: c.created_at, id: c.id });
    const second = await store.contributionsForExport(db, user.user_id, {}, after(first.at(-1)), 2);
    assert.deepEqual(
      second.map((c) => c.id),
      [ids[2], ids[1]],
    );
    assert.deepEqual(
      (await store.contributionsForExport(db, user.user_id, {}, after(second.at(-1)), 2)).map((c) => c.id),
      [ids[0]],
    );
    assert.deepEqual(
      (await store.contributionsForExport(db, user.user_id, { status: 'failed' }, undefined, 10)).map((c) => c.id),
      [ids[1]],
    );
    assert.deepEqual(
      (await store.contributionsForExport(db, user.user_id, { from: '2026-03-02', to: '2026-03-02' }, undefined, 10)).map((c) => c.id),
      [ids[1]],
    );
  });

  test("succeededBetween: a user's successes in a period, with their original receipt", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const done = (completed_at: string) => ({ ...row(user, completed_at), status: 'success', completed_at, received_at: completed_at });
    const [inside, outside] = await db
      .transaction()
      .execute(async (trx) => [await store.insertContribution(trx, done('2025-06-01T00:00:00Z')), await store.insertContribution(trx, done('2026-01-01T00:00:00Z'))]);
    const receipt = await db
      .transaction()
      .execute((trx) =>
        store.insertReceipt(trx, { book: 'live', contribution_id: inside!, user_id: user.user_id, replaces_id: null, issued_at: '2025-06-01T00:00:00Z' }, () => ({})),
      );
    const found = await store.succeededBetween(db, 'live', user.user_id, '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
    assert.deepEqual(
      found.map((c) => [c.id, c.receipt_id]),
      [[inside, receipt]],
    );
    assert.equal((await store.succeededBetween(db, 'live', user.user_id, '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'))[0]?.id, outside);
    assert.deepEqual(await store.succeededBetween(db, 'test', user.user_id, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'), []);
  });
});
