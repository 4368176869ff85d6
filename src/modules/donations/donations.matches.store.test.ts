// donations.matches.store.ts on both engines: every function, against real rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './donations.matches.store.ts';

describeEachEngine('donations of matches store', (env) => {
  test("a fundraiser's live matches, what one matched, whether a donation is bound by a match, ending one once", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '110000005', name: 'Matches Store Org' });
    const ana = await makeUser(deps);
    const max = await makeUser(deps);
    const bo = await makeUser(deps);
    await fund(deps, max, 100_00);
    await fund(deps, bo, 100_00);
    const id: number = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: '110000005', title: 'S', goal: 100 } })).body.id;
    const first: number = (await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: max.key, body: { ratio: 2, cap: 30, per_donation_cap: 20 } })).body.id;
    const second: number = (await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: max.key, body: { ratio: 1, cap: 10 } })).body.id;
    const live = await store.liveMatchesOf(deps.db, id);
    assert.deepEqual(
      live.map((m) => [m.id, m.fund_id, m.ratio, m.cap_cents, m.per_donation_cap_cents, m.matched_cents]),
      [
        [first, max.fund_id, 2, 30_00, 20_00, 0],
        [second, max.fund_id, 1, 10_00, null, 0],
      ],
      'oldest first',
    );
    const at = new Date().toISOString();
    await deps.db.transaction().execute((trx) => store.addMatched(trx, second, 1_00, at));
    assert.equal((await store.liveMatchesOf(deps.db, id)).find((m) => m.id === second)?.matched_cents, 1_00);
    const given = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000005', amount: 10, fundraiser_id: id } });
    const plain = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000005', amount: 10 } });
    const made = await deps.db.selectFrom('donations').select('id').where('match_id', '=', first).executeTakeFirstOrThrow();
    assert.equal(await store.isMatchBound(deps.db, given.body.id), true, 'matched');
    assert.equal(await store.isMatchBound(deps.db, Number(made.id)), true, 'made by a match');
    assert.equal(await store.isMatchBound(deps.db, plain.body.id), false);
    assert.equal(await deps.db.transaction().execute((trx) => store.endMatch(trx, second, at)), true);
    assert.equal(await deps.db.transaction().execute((trx) => store.endMatch(trx, second, at)), false, 'once');
    assert.deepEqual(
      (await store.liveMatchesOf(deps.db, id)).map((m) => m.id),
      [first],
    );
  });
});
