// Every function of check.apps.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, queryPlan } from '../../../test/harness.ts';
import { connectApp } from '../../../test/app-tokens.ts';
import { backfillDonationApps } from '../../db/migrations/053_schedule_app.ts';
import * as store from './check.apps.store.ts';

describeEachEngine('check apps store', (env) => {
  test("donationsOfAnotherAppQuery: a donation's gift is found by the gifts' index, not by reading every gift", async () => {
    const plan = await queryPlan(env().deps.db, store.donationsOfAnotherAppQuery(env().deps.db).compile());
    assert.ok(
      plan.some((line) => line.includes('gifts_donation')),
      plan.join('\n'),
    );
  });

  test("donationsOfAnotherApp: a token's donation is its app's (rules §25); migration 053 gives an older one its app", async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '500000004', name: 'Told Charity' });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const tokens = await connectApp(deps, user.user_id, { scopes: ['read', 'donate'] });
    const made = await call(app, 'POST', '/v1/donations', { headers: { authorization: `Bearer ${tokens.accessToken}` }, body: { ein: '500000004', amount: 20 } });
    assert.equal(made.status, 201);
    assert.deepEqual(await store.donationsOfAnotherApp(db), []);
    const byToken = await db.selectFrom('donations').select(['id', 'app_id']).where('id', '=', made.body.id).executeTakeFirstOrThrow();
    assert.notEqual(byToken.app_id, null, "the token's app is written with it");
    // As a donation made before migration 052 is: no app written.
    await db.updateTable('donations').set({ app_id: null }).where('id', '=', byToken.id).execute();
    assert.deepEqual(await store.donationsOfAnotherApp(db), [{ id: byToken.id, app_id: null, connection_app_id: byToken.app_id }]);
    await backfillDonationApps(db);
    assert.deepEqual(await store.donationsOfAnotherApp(db), []);
    await db.updateTable('donations').set({ app_id: 987_654 }).where('id', '=', byToken.id).execute();
    assert.deepEqual(await store.donationsOfAnotherApp(db), [{ id: byToken.id, app_id: 987_654, connection_app_id: byToken.app_id }], 'another app');
    await db.updateTable('donations').set({ app_id: byToken.app_id }).where('id', '=', byToken.id).execute();
  });
});
