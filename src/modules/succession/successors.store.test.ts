// Every function of successors.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './successors.store.ts';

describeEachEngine('successors store', (env) => {
  test('successor lines replaced whole; deaths once, approved once, listed', async () => {
    const { db } = env().deps;
    const holder = await makeUser(env().deps, { name: 'Holder Three' });
    await db.transaction().execute((trx) =>
      store.replaceSuccessorLines(
        trx,
        holder.fund_id,
        [
          { email: 'heir@example.org', ein: null, share_percent: null },
          { email: null, ein: '530196605', share_percent: 100 },
        ],
        holder.user_id,
        '2026-11-20T00:00:00Z',
      ),
    );
    await db
      .transaction()
      .execute((trx) => store.replaceSuccessorLines(trx, holder.fund_id, [{ email: null, ein: '530196605', share_percent: 100 }], holder.user_id, '2026-11-21T00:00:00Z'));
    assert.deepEqual(await store.successorLines(db, holder.fund_id), [{ email: null, ein: '530196605', share_percent: 100, updated_at: '2026-11-21T00:00:00Z' }]);

    const death = { fund_id: holder.fund_id, user_id: holder.user_id, document_reference: 'cert 1', recorded_by: 'operator:a', recorded_at: '2026-11-22T00:00:00Z' };
    const id = await db.transaction().execute((trx) => store.insertDeath(trx, death));
    assert.ok(id !== undefined);
    assert.equal(await db.transaction().execute((trx) => store.insertDeath(trx, death)), undefined, 'once');
    const locked = await db.transaction().execute((trx) => store.lockDeath(trx, id, true));
    assert.equal(locked?.status, 'recorded');
    assert.equal(await db.transaction().execute((trx) => store.approveDeath(trx, id, 'operator:b', '2026-11-23T00:00:00Z', '{}')), true);
    assert.equal(await db.transaction().execute((trx) => store.approveDeath(trx, id, 'operator:b', '2026-11-23T00:00:00Z', '{}')), false);
    assert.deepEqual(
      (await store.listDeaths(db, 'approved')).map((d) => [d.id, d.approved_by]),
      [[id, 'operator:b']],
    );
    assert.deepEqual(await store.listDeaths(db, 'recorded'), []);
  });
});
