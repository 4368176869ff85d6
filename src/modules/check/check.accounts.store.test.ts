// Every function of check.accounts.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import { runCheck } from './check.service.ts';
import * as store from './check.accounts.store.ts';

describeEachEngine('check accounts store', (env) => {
  test('outsideAccountTwins: a second deposits account of a book is named, and almoner check fails on it', async () => {
    const { db } = env().deps;
    assert.deepEqual(await store.outsideAccountTwins(db), []);
    const twin = await db.insertInto('ledger_accounts').values({ fund_id: null, kind: 'deposits', balance_cents: 0, book: 'live' }).returning('id').executeTakeFirstOrThrow();
    try {
      assert.deepEqual(await store.outsideAccountTwins(db), [{ book: 'live', kind: 'deposits', accounts: 2 }]);
      const result = (await runCheck(env().deps)).find((r) => r.name.startsWith('each book holds one'));
      assert.deepEqual(result?.failures, ['the live book holds 2 deposits accounts outside every fund: a movement may post to any of them']);
    } finally {
      await db.deleteFrom('ledger_accounts').where('id', '=', twin.id).execute();
    }
    assert.deepEqual(await store.outsideAccountTwins(db), []);
  });
});
