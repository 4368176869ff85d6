// Every function of payees.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit } from '../../../test/harness.ts';
import * as payees from './payees.store.ts';

describeEachEngine('payees store', (env) => {
  test('bank details: in force after the cooling-off, replaced by newer ones, suspended once, waiting for a second operator', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const nonProfitId = Number((await db.selectFrom('non_profits').select('id').where('ein', '=', '261544963').executeTakeFirstOrThrow()).id);
    const account = {
      non_profit_id: nonProfitId,
      routing: '091000019',
      account_sealed: 'v1.x',
      account_last4: '5678',
      account_type: 'checking',
      holder: 'VF',
      created_at: '2026-11-20T00:00:00Z',
      created_by: 'op',
    };
    const a = await db.transaction().execute((trx) => payees.replacePayeeAccount(trx, { ...account, usable_from: '2026-11-27' }));
    assert.equal((await payees.usablePayeeAccounts(db, [nonProfitId], '2026-11-26')).get(nonProfitId), undefined, 'not before its cooling-off ends');
    assert.equal(Number((await payees.usablePayeeAccounts(db, [nonProfitId], '2026-11-27')).get(nonProfitId)?.id), a);
    const b = await db.transaction().execute((trx) => payees.replacePayeeAccount(trx, { ...account, account_last4: '9999', usable_from: '2026-12-05' }));
    assert.equal(Number((await payees.activePayeeAccount(db, nonProfitId))?.id), b, 'the newest replaces the older');
    assert.equal((await payees.payeeAccountById(db, a))?.status, 'replaced');
    assert.deepEqual(
      (await payees.payeeAccountsByIds(db, [b, a, 999_999])).map((r) => [Number(r.id), r.account_last4]).sort(),
      [
        [a, '5678'],
        [b, '9999'],
      ].sort(),
    );
    assert.deepEqual(await payees.payeeAccountsByIds(db, []), []);
    // A return suspends them once; new details replace suspended ones too.
    assert.equal(await db.transaction().execute((trx) => payees.suspendPayeeAccount(trx, b)), true);
    assert.equal(await db.transaction().execute((trx) => payees.suspendPayeeAccount(trx, b)), false, 'once');
    assert.equal((await payees.usablePayeeAccounts(db, [nonProfitId], '2027-01-01')).get(nonProfitId), undefined, 'suspended details pay nothing');
    const c = await db.transaction().execute((trx) => payees.replacePayeeAccount(trx, { ...account, account_last4: '4321', usable_from: '2026-12-05' }));
    assert.equal((await payees.payeeAccountById(db, b))?.status, 'replaced');
    assert.equal(Number((await payees.activePayeeAccount(db, nonProfitId))?.id), c);
    // Details an operator typed wait (pending) beside those in force, until a second operator approves them.
    const d = await db.transaction().execute((trx) => payees.replacePayeeAccount(trx, { ...account, account_last4: '1111', usable_from: '2026-12-05' }, 'pending'));
    assert.equal(Number((await payees.activePayeeAccount(db, nonProfitId))?.id), c, 'waiting details replace nothing in force');
    assert.deepEqual(await db.transaction().execute(async (trx) => [await payees.activatePayeeAccount(trx, d, 'op2'), await payees.activatePayeeAccount(trx, d, 'op2')]), [
      true,
      false,
    ]);
    assert.deepEqual([(await payees.payeeAccountById(db, c))?.status, (await payees.payeeAccountById(db, d))?.approved_by], ['replaced', 'op2']);
    assert.deepEqual(
      [...(await payees.usablePayeeAccounts(db, [nonProfitId, 999_999], '2026-12-05')).entries()].map(([org, a]) => [org, Number(a.id)]),
      [[nonProfitId, d]],
    );
    assert.equal((await payees.usablePayeeAccounts(db, [nonProfitId], '2026-12-04')).size, 0, 'not before its cooling-off ends');
  });
});
