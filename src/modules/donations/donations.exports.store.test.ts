// Every function of donations.exports.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, donationRow, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './donations.store.ts';
import * as exportsStore from './donations.exports.store.ts';

describeEachEngine('donations exports store', (env) => {
  const row = async (u: { user_id: number; fund_id: number }) => {
    await makeNonProfit(env().deps, { ein: '222222222', name: 'Donations Charity' });
    return donationRow(env().deps, u);
  };

  test("donationsForExport: a user's with their organisation, newest first, a batch at a time, filtered", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const base = await row(user);
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertDonation(trx, { ...base, created_at: '2026-04-01T10:00:00Z' }),
        await store.insertDonation(trx, { ...base, created_at: '2026-04-02T10:00:00Z', status: 'waiting_for_funds', note: '=1+1' }),
      ]);
    const all = await exportsStore.donationsForExport(db, user.user_id, {}, undefined, 10);
    assert.deepEqual(
      all.map((d) => d.id),
      [ids[1], ids[0]],
    );
    assert.equal(all[0]?.note, '=1+1', 'stored as given: the CSV neutralises it');
    assert.ok(all.every((d) => d.ein === '222222222' && d.non_profit === 'Donations Charity'));
    assert.deepEqual(
      (await exportsStore.donationsForExport(db, user.user_id, {}, ids[1], 10)).map((d) => d.id),
      [ids[0]],
    );
    assert.deepEqual(
      (await exportsStore.donationsForExport(db, user.user_id, { status: 'waiting_for_funds' }, undefined, 10)).map((d) => d.id),
      [ids[1]],
    );
    assert.deepEqual(
      (await exportsStore.donationsForExport(db, user.user_id, { from: '2026-04-02' }, undefined, 10)).map((d) => d.id),
      [ids[1]],
    );
    assert.deepEqual(
      (await exportsStore.donationsForExport(db, user.user_id, { to: '2026-04-01' }, undefined, 10)).map((d) => d.id),
      [ids[0]],
    );
  });

  test('grantsPaidBetween: completed and mailed donations paid in a period, with their organisation', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const base = await row(user);
    const [paid, mailed, later] = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertDonation(trx, { ...base, status: 'completed' }),
        await store.insertDonation(trx, { ...base, status: 'check_mailed' }),
        await store.insertDonation(trx, { ...base, status: 'completed' }),
      ]);
    await db.updateTable('donations').set({ completed_at: '2025-03-01T00:00:00Z' }).where('id', '=', paid!).execute();
    await db.updateTable('donations').set({ mailed_at: '2025-04-01T00:00:00Z' }).where('id', '=', mailed!).execute();
    await db.updateTable('donations').set({ completed_at: '2026-02-01T00:00:00Z' }).where('id', '=', later!).execute();
    const found = await exportsStore.grantsPaidBetween(db, 'live', user.user_id, '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
    assert.deepEqual(
      found.map((d) => [d.id, d.status, d.ein]),
      [
        [paid, 'completed', '222222222'],
        [mailed, 'check_mailed', '222222222'],
      ],
    );
    assert.deepEqual(await exportsStore.grantsPaidBetween(db, 'test', user.user_id, '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'), []);
  });
});
