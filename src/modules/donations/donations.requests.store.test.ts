// Every function of donations.requests.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, donationRow, makeNonProfit, makeUser, queryPlan } from '../../../test/harness.ts';
import * as store from './donations.store.ts';
import * as requests from './donations.requests.store.ts';

describeEachEngine('donation requests store', (env) => {
  const at = '2026-01-01T00:00:00Z';
  const row = (u: { user_id: number; fund_id: number }, visibility = 'public') => donationRow(env().deps, u, { visibility, created_at: at });

  test('requests (rules §20): counted public only once approved; a member’s, the lapsed ones, and a request’s row', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '222222223', name: 'Requests Charity' });
    const user = await makeUser(env().deps, { name: 'Family' });
    const request = { ...(await row(user)), status: 'requested', actor_id: user.user_id, request_expires_at: '2026-01-31T00:00:00Z' };
    const id = await db.transaction().execute((trx) => store.insertDonation(trx, request));
    const counts = () => db.selectFrom('donation_counts').select(['total', 'public_total']).where('user_id', '=', user.user_id).executeTakeFirstOrThrow();
    assert.deepEqual(await counts(), { total: 1, public_total: 0 }, 'a request is no public donation yet');
    assert.deepEqual(await requests.requestsOf(db, user.fund_id, user.user_id), [{ id, user_id: user.user_id }]);
    assert.deepEqual(await requests.requestsOf(db, user.fund_id, user.user_id + 1), []);
    assert.deepEqual(await requests.lapsedRequests(db, '2026-01-30T00:00:00Z', 10), []);
    assert.deepEqual(await requests.lapsedRequests(db, '2026-01-31T00:00:00Z', 10), [{ id, user_id: user.user_id, book: 'live' }]);
    assert.deepEqual(
      (await requests.waitingRequestsOfFund(db, 'live', user.fund_id)).map((r) => [r.id, r.requester]),
      [[id, 'Family']],
    );
    assert.deepEqual(await requests.waitingRequestsOfFund(db, 'test', user.fund_id), []);
    const read = await db.transaction().execute((trx) => requests.requestRow(trx, id));
    assert.deepEqual([read?.status, read?.actor_id, read?.non_profit_name], ['requested', user.user_id, 'Requests Charity']);
    await db.transaction().execute((trx) => store.transition(trx, id, 'requested', 'scheduled', at, { decided_at: at, decided_by: user.user_id }));
    assert.deepEqual(await counts(), { total: 1, public_total: 1 }, 'approved, it is counted');
    // Decided, it keeps its expiry but is no request: no reader returns it.
    assert.deepEqual(await requests.requestsOf(db, user.fund_id, user.user_id), []);
    assert.deepEqual(await requests.lapsedRequests(db, '2026-02-01T00:00:00Z', 10), []);
    assert.deepEqual(await requests.waitingRequestsOfFund(db, 'live', user.fund_id), []);
  });

  test('the partial indexes of requests (migration 068): the lapsed ones and a fund’s are read by index', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    // The queries the store runs, as it compiles them.
    const lapsing = await queryPlan(db, requests.lapsedRequestsQuery(db, at, 500).compile());
    assert.ok(
      lapsing.some((line) => line.includes('donations_requests_lapsing')),
      lapsing.join('\n'),
    );
    const ofFund = await queryPlan(db, requests.waitingRequestsOfFundQuery(db, 'live', user.fund_id).compile());
    assert.ok(
      ofFund.some((line) => line.includes('donations_requests_of_fund')),
      ofFund.join('\n'),
    );
  });
});
