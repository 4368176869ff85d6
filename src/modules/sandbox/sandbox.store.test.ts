// Every function of sandbox.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, fundSandbox, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { createKeyForOwner } from '../users/index.ts';
import * as store from './sandbox.store.ts';

describeEachEngine('sandbox store', (env) => {
  test("ownerOfTestObject finds sandbox objects only; the clock's reads list what is due", async () => {
    const { deps, app } = env();
    await makeNonProfit(deps, { ein: '333333333', name: 'Sandbox Charity' });
    const owner = await makeUser(deps);
    const testKey = (await createKeyForOwner(deps, owner.user_id, 'sandbox', 'test')).key;
    await fundSandbox(app, testKey, 100);
    const donation = await call(app, 'POST', '/v1/donations', { key: testKey, body: { ein: '333333333', amount: 10 } });
    const gift = await call(app, 'POST', '/v1/gifts', { key: testKey, body: { name: 'Friend', amount: 25 } });
    const deposit = await call(app, 'POST', '/v1/sandbox/deposits', { key: testKey, body: { amount: 20 } });
    assert.deepEqual([donation.status, gift.status, deposit.status], [201, 201, 201]);
    const twin = await deps.db.selectFrom('users').select('id').where('sandbox_of', '=', owner.user_id).executeTakeFirstOrThrow();
    assert.equal(await store.ownerOfTestObject(deps.db, { object: 'donation', id: donation.body.id }), twin.id);
    assert.equal(await store.ownerOfTestObject(deps.db, { object: 'gift', code: String(gift.body.code).toUpperCase() }), twin.id);
    assert.equal(await store.ownerOfTestObject(deps.db, { object: 'contribution', id: deposit.body.contribution_id }), twin.id);
    // Nothing of the live book is a sandbox object.
    await fund(deps, owner, 5_000);
    const live = await call(app, 'POST', '/v1/gifts', { key: owner.key, body: { name: 'Friend', amount: 25 } });
    assert.equal(live.status, 201);
    assert.equal(await store.ownerOfTestObject(deps.db, { object: 'gift', code: live.body.code }), undefined);
    assert.equal(await store.ownerOfTestObject(deps.db, { object: 'donation', id: 999_999 }), undefined);
    const future = '2999-01-01T00:00:00Z';
    assert.ok((await store.pendingTestContributions(deps.db, future, 100)).includes(deposit.body.contribution_id));
    assert.deepEqual(await store.pendingTestContributions(deps.db, '2000-01-01T00:00:00Z', 100), []);
    assert.ok((await store.idleTestDonations(deps.db, 'scheduled', future, 100)).includes(donation.body.id));
    assert.deepEqual(await store.idleTestDonations(deps.db, 'approved', future, 100), []);
  });
});
