// What a node keeps from its reads (its keys' callers, its cards of organisations) is kept under a
// counter of the database (an epoch) and the count of writes the database undid (Deps.undone). On
// SQLite a read between two transactions of a group commit sees the group's writes before its
// COMMIT; if that COMMIT fails, the epoch goes back, and later writes raise it to the same number
// again: what was read from the undone writes must not be served then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser, readAcrossUndone } from './harness.ts';
import { bumpAuthEpoch, callerOfKey, revokeKey } from '../src/modules/keys/index.ts';
import { bumpRecordsEpoch, nonProfitCards } from '../src/modules/nonprofits/index.ts';

describeEachEngine('reads of writes the database undid', (env) => {
  test("a key's caller read under an auth epoch that was undone is not served once a revocation raises the epoch to the same number", async () => {
    const { deps } = env();
    const user = await makeUser(deps);
    assert.equal((await callerOfKey(deps, user.key))?.user_id, user.user_id);
    const seen = await readAcrossUndone(env(), bumpAuthEpoch, () => callerOfKey(deps, user.key));
    assert.equal(seen?.user_id, user.user_id, 'the key was live meanwhile');
    await revokeKey(deps, user.user_id, user.caller.key_id);
    assert.equal(await callerOfKey(deps, user.key), undefined, 'the revoked key is refused');
  });

  test("an organisation's card read under a records epoch that was undone is not served once a change raises the epoch to the same number", async () => {
    const { deps } = env();
    await makeNonProfit(deps, { ein: '313131313', name: 'Before' });
    const { id } = await deps.db.selectFrom('non_profits').select('id').where('ein', '=', '313131313').executeTakeFirstOrThrow();
    const name = async () => (await nonProfitCards(deps, [id])).get(id)?.name;
    assert.equal(await name(), 'Before');
    const seen = await readAcrossUndone(
      env(),
      async (trx) => {
        await trx.updateTable('non_profits').set({ name: 'Undone' }).where('id', '=', id).execute();
        await bumpRecordsEpoch(trx);
      },
      name,
    );
    assert.equal(seen, env().engine === 'sqlite' ? 'Undone' : 'Before', 'what the read saw');
    await deps.db.transaction().execute(async (trx) => {
      await trx.updateTable('non_profits').set({ name: 'Committed' }).where('id', '=', id).execute();
      await bumpRecordsEpoch(trx);
    });
    assert.equal(await name(), 'Committed');
  });
});
