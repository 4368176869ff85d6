// fundraisers.store.ts on both engines: every function, against real rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './fundraisers.store.ts';

describeEachEngine('fundraisers store', (env) => {
  test('inserts, finds in its book only, pages a user’s own, finds by external id, ends once, keeps metadata', async () => {
    const { deps } = env();
    const user = await makeUser(deps);
    await makeNonProfit(deps, { ein: '110000001', name: 'Store Fundraiser Org' });
    const np = await deps.db.selectFrom('non_profits').select('id').where('ein', '=', '110000001').executeTakeFirstOrThrow();
    const at = '2026-11-29T10:00:00.000Z';
    const row = {
      book: 'live' as const,
      user_id: user.user_id,
      non_profit_id: np.id,
      title: 'Run',
      story: '',
      goal_cents: 50_000,
      offline_cents: 0,
      starts_on: '2026-11-29',
      ends_on: null,
      ended_at: null,
      created_at: at,
      updated_at: at,
      external_id: 'run-1',
      metadata: null,
    };
    const id = await deps.db.transaction().execute((trx) => store.insertFundraiser(trx, row));
    const second = await deps.db.transaction().execute((trx) => store.insertFundraiser(trx, { ...row, title: 'Swim', external_id: null, created_at: '2026-11-29T11:00:00.000Z' }));
    assert.equal((await store.findFundraiser(deps.db, 'live', id))?.title, 'Run');
    assert.equal(await store.findFundraiser(deps.db, 'test', id), undefined, 'not in the other book');
    const page = await store.ownFundraisers(deps.db, user.user_id, { page: 1, per_page: 1 });
    assert.deepEqual([page.count, page.rows.map((r) => r.id)], [2, [second]], 'newest first, counted');
    assert.equal(await store.fundraiserByExternalId(deps.db, user.user_id, 'run-1'), id);
    assert.equal(await store.fundraiserByExternalId(deps.db, user.user_id, 'run-2'), undefined);
    assert.equal(await deps.db.transaction().execute((trx) => store.endFundraiser(trx, id, at)), true);
    assert.equal(await deps.db.transaction().execute((trx) => store.endFundraiser(trx, id, at)), false, 'ended once');
    await deps.db.transaction().execute((trx) => store.setFundraiserMetadata(trx, id, '{"a":"b"}', at));
    assert.equal((await store.findFundraiser(deps.db, 'live', id))?.metadata, '{"a":"b"}');
    assert.equal(await store.einOf(deps.db, np.id), '110000001');
    assert.equal(await store.einOf(deps.db, 999_999), undefined);
  });

  test("the journal's side of a fundraiser, and donations naming another organisation's", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '110000003', name: 'Journal Org' });
    await makeNonProfit(deps, { ein: '110000004', name: 'Other Org' });
    const ana = await makeUser(deps);
    const bo = await makeUser(deps);
    await fund(deps, bo, 100_00);
    const id: number = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: '110000003', title: 'J', goal: 100 } })).body.id;
    const empty: number = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: '110000003', title: 'Empty', goal: 100 } })).body.id;
    const given = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000003', amount: 30, fundraiser_id: id } });
    const stray = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000004', amount: 10 } });
    let found = await store.fundraiserJournal(deps.db);
    assert.deepEqual([found.journal.get(id), found.journal.get(empty), found.strays], [30_00n, 0n, []]);
    await deps.db.updateTable('donations').set({ fundraiser_id: id }).where('id', '=', stray.body.id).execute();
    found = await store.fundraiserJournal(deps.db);
    assert.deepEqual([found.journal.get(id), found.strays], [40_00n, [{ donation_id: stray.body.id, fundraiser_id: id }]]);
    assert.ok(given.status === 201);
  });
});
