// Every function of donations.queue.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './donations.queue.store.ts';

describeEachEngine('donations queue store', (env) => {
  test('donationsInStatus: a book and a status, oldest first, after an id, with the donor and the organisation', async () => {
    const { deps, app } = env();
    await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const donor = await makeUser(deps);
    await fund(deps, donor, 1_000_00);
    const ids: number[] = [];
    for (const amount of [10, 20, 30]) ids.push((await call(app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount } })).body.id);
    const rows = await store.donationsInStatus(deps.db, 'live', 'scheduled', 10);
    assert.deepEqual(
      rows.map((r) => [r.id, Number(r.amount_cents), r.ein, r.non_profit, r.diligence, r.user_id]),
      ids.map((id, i) => [id, (i + 1) * 10_00, '261544963', 'Vermont Foodbank', 'clear', donor.user_id]),
    );
    assert.deepEqual(
      (await store.donationsInStatus(deps.db, 'live', 'scheduled', 1, ids[0])).map((r) => r.id),
      [ids[1]],
    );
    assert.deepEqual(await store.donationsInStatus(deps.db, 'test', 'scheduled', 10), []);
    assert.deepEqual(await store.donationsInStatus(deps.db, 'live', 'approved', 10), []);
  });
});
