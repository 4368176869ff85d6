// matches.store.ts on both engines: every function, against real rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './matches.store.ts';

describeEachEngine('matches store', (env) => {
  test("inserts, finds in its book, pages a matcher's own, a fundraiser's, every one, and the books the check compares", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '110000006', name: 'Match Store Org' });
    const ana = await makeUser(deps);
    const max = await makeUser(deps);
    const bo = await makeUser(deps);
    await fund(deps, max, 100_00);
    await fund(deps, bo, 100_00);
    const fundraiser: number = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: '110000006', title: 'M', goal: 100 } })).body.id;
    const at = new Date().toISOString();
    const row = {
      book: 'live' as const,
      fundraiser_id: fundraiser,
      user_id: max.user_id,
      fund_id: max.fund_id,
      ratio: 1,
      cap_cents: 5_00,
      per_donation_cap_cents: null,
      give_rest: 0,
      matched_cents: 0,
      ended_at: null,
      created_at: at,
      updated_at: at,
    };
    const inserted = await deps.db.transaction().execute((trx) => store.insertMatch(trx, row));
    assert.equal((await store.findMatch(deps.db, 'live', inserted))?.cap_cents, 5_00);
    assert.equal(await store.findMatch(deps.db, 'test', inserted), undefined, 'not in the other book');
    // One made as the API makes it, its cap held: the books say what it holds and gave.
    const pledged: number = (await call(app, 'POST', `/v1/fundraisers/${fundraiser}/matches`, { key: max.key, body: { ratio: 1, cap: 20 } })).body.id;
    await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: '110000006', amount: 12, fundraiser_id: fundraiser } });
    const page = await store.ownMatches(deps.db, max.user_id, { page: 1, per_page: 1 });
    assert.deepEqual([page.count, page.rows.map((m) => m.id)], [2, [pledged]], 'newest first, counted');
    assert.deepEqual(
      (await store.matchesOfFundraiser(deps.db, fundraiser)).map((m) => m.id),
      [inserted, pledged],
    );
    assert.deepEqual(
      [...(await store.matchesOfFundraisers(deps.db, [fundraiser, 987_654]))].map(([id, ms]) => [id, ms.map((m) => m.id)]),
      [[fundraiser, [inserted, pledged]]],
      'matchesOfFundraisers: by fundraiser, the ones with matches',
    );
    assert.deepEqual([...(await store.matchesOfFundraisers(deps.db, []))], []);
    assert.ok((await store.everyMatch(deps.db)).some((m) => m.id === pledged && m.matched_cents === 15_00 - 3_00));
    const books = await store.matchBooks(deps.db);
    // The hand-inserted one held nothing (no entry) and matched first: its row says 5 dollars given, no entry holds them.
    assert.deepEqual([books.nets.get(pledged), books.given.get(pledged), books.nets.get(inserted) ?? 0n], [8_00n, 12_00n, -5_00n]);
    assert.deepEqual(books.strays, []);
  });
});
