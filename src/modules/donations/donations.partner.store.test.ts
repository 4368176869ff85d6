// Every function of donations.partner.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser, fund } from '../../../test/harness.ts';
import { createDonation } from './donations.service.ts';
import * as store from './donations.partner.store.ts';

describeEachEngine('donations partner store', (env) => {
  test('a donation found by its owner and external id; its metadata replaced', async () => {
    const deps = env().deps;
    await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const owner = await makeUser(deps);
    const other = await makeUser(deps);
    await fund(deps, owner, 100_00);
    const made = await createDonation(deps, owner.caller, { amount_cents: 1000, ein: '261544963', external_id: 'ext-1' });
    assert.equal(await store.donationByExternalId(deps.db, owner.user_id, 'ext-1'), made.id);
    assert.equal(await store.donationByExternalId(deps.db, other.user_id, 'ext-1'), undefined, "another owner's id space");
    assert.equal(await store.donationByExternalId(deps.db, owner.user_id, 'ext-2'), undefined);
    await store.setMetadata(deps.db, made.id, '{"a":"b"}', '2026-11-29T00:00:00.000Z');
    const row = await deps.db.selectFrom('donations').select(['metadata', 'updated_at']).where('id', '=', made.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { metadata: '{"a":"b"}', updated_at: '2026-11-29T00:00:00.000Z' });
    await store.setMetadata(deps.db, made.id, null, '2026-11-29T00:00:01.000Z');
    assert.equal((await deps.db.selectFrom('donations').select('metadata').where('id', '=', made.id).executeTakeFirstOrThrow()).metadata, null);
  });
});
