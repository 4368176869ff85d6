// donations.fundraiser.store.ts on both engines: every function, against real rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './donations.fundraiser.store.ts';

describeEachEngine('donations to fundraisers store', (env) => {
  test("a fundraiser to give to, its totals by status, its supporters newest first, a donor's own page", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '110000002', name: 'Fundraiser Store Org' });
    const ana = await makeUser(deps);
    const bo = await makeUser(deps, { name: 'Bo Store' });
    await fund(deps, bo, 100_00);
    const f = await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: '110000002', title: 'Store', goal: 100 } });
    const id: number = f.body.id;
    const toGive = await store.fundraiserToGive(deps.db, 'live', id);
    assert.deepEqual([toGive?.ein, toGive?.user_id, toGive?.ended_at], ['110000002', ana.user_id, null]);
    assert.equal(await store.fundraiserToGive(deps.db, 'test', id), undefined, 'not in the other book');
    const first = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000002', amount: 30, fundraiser_id: id } });
    const second = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000002', amount: 20, fundraiser_id: id, visibility: 'private' } });
    assert.deepEqual(await store.fundraiserTotals(deps.db, [id], ['scheduled']), new Map([[id, { cents: 50_00, donations: 2 }]]));
    assert.deepEqual(await store.fundraiserTotals(deps.db, [id], ['completed']), new Map(), 'none in that status');
    assert.deepEqual(await store.fundraiserTotals(deps.db, [], ['scheduled']), new Map());
    const supporters = await store.fundraiserSupporters(deps.db, id, ['scheduled'], 1);
    assert.deepEqual(
      supporters.map((s) => [s.id, s.visibility, s.name]),
      [[second.body.id, 'private', 'Bo Store']],
    );
    const page = await store.ownDonationsOfFundraiser(deps.db, 'live', bo.user_id, id, { page: 2, per_page: 1 });
    assert.deepEqual([page.count, page.rows.map((r) => r.id)], [2, [first.body.id]]);
    assert.equal((await store.ownDonationsOfFundraiser(deps.db, 'live', ana.user_id, id, { page: 1, per_page: 10 })).count, 0);
  });
});
