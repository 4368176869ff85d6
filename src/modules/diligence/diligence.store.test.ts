// Every function of diligence.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit } from '../../../test/harness.ts';
import * as store from './diligence.store.ts';

describeEachEngine('diligence store', (env) => {
  test('a new snapshot replaces the entries of older ones of its kind, keeps their records, and is the current one', async () => {
    const { db } = env().deps;
    const list = (kind: 'revocations' | 'pub78' | 'sdn', as_of: string) => ({ kind, as_of, imported_at: `${as_of}T00:00:00.000Z`, source: `${kind}.txt`, sha256: 'x' });
    const first = await db.transaction().execute((trx) =>
      store.insertList(trx, list('revocations', '2026-01-01'), [
        { ein: '111111111', name: 'A', revoked_on: '2010-05-15', reinstated_on: null },
        { ein: '222222222', name: 'B', revoked_on: '2011-05-15', reinstated_on: '2013-02-01' },
      ]),
    );
    assert.deepEqual([...(await store.revokedEins(db))], ['111111111'], 'a reinstatement after the revocation ends it');
    const second = await db
      .transaction()
      .execute((trx) => store.insertList(trx, list('revocations', '2026-02-01'), [{ ein: '333333333', name: 'C', revoked_on: '2024-11-15', reinstated_on: '2024-11-15' }]));
    assert.ok(second > first);
    assert.deepEqual([...(await store.revokedEins(db))], ['333333333'], 'only the newest snapshot counts; reinstated the same day is still revoked');
    await db.transaction().execute((trx) => store.insertList(trx, list('pub78', '2026-02-02'), [{ ein: '444444444', name: 'D', codes: 'PF' }]));
    await db
      .transaction()
      .execute((trx) =>
        store.insertList(trx, list('sdn', '2026-02-03'), [{ entry: 7, name: 'HOLY LAND RELIEF FUND', name_key: 'HOLY LAND RELIEF FUND', kind: 'entity', program: 'SDGT' }]),
      );
    assert.deepEqual([...(await store.pub78Codes(db))], [['444444444', 'PF']]);
    assert.deepEqual(await store.sanctionEntries(db), [{ name: 'HOLY LAND RELIEF FUND', name_key: 'HOLY LAND RELIEF FUND' }]);
    const current = await store.currentLists(db);
    assert.deepEqual(
      current.map((l) => [l.kind, l.as_of, Number(l.entries)]),
      [
        ['sdn', '2026-02-03', 1],
        ['pub78', '2026-02-02', 1],
        ['revocations', '2026-02-01', 1],
      ],
    );
    assert.equal((await db.selectFrom('diligence_lists').select('id').execute()).length, 4, 'every snapshot keeps its record');
  });

  test('screening reads the directory a page at a time and writes findings; reviews are inserted once and decided once', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '555555551', name: 'Friends of the Holy Land Relief Fund' });
    await makeNonProfit(env().deps, { ein: '555555552', name: 'Vermont Foodbank' });
    const byEin = async (ein: string) => await db.selectFrom('non_profits').select(['id', 'ein', 'name']).where('ein', '=', ein).executeTakeFirstOrThrow();
    const [a, b] = [await byEin('555555551'), await byEin('555555552')];
    const page = await store.screeningPage(db, 0, 1000);
    const mine = page.filter((r) => r.id === a.id || r.id === b.id);
    assert.deepEqual(
      mine.map((r) => r.diligence),
      ['clear', 'clear'],
    );
    assert.deepEqual(await store.screeningPage(db, Math.max(...page.map((r) => r.id)), 10), []);
    await db.transaction().execute((trx) => store.setDiligence(trx, [a.id], 'review'));
    const review = {
      non_profit_id: a.id,
      ein: a.ein,
      name: a.name,
      listed_name: 'HOLY LAND RELIEF FUND',
      listed_key: 'HOLY LAND RELIEF FUND',
      reason: 'the listed name is part of its name',
      status: 'pending',
      created_at: '2026-02-03T00:00:00.000Z',
    };
    await db.transaction().execute((trx) => store.insertReviews(trx, [review, review]));
    await db.transaction().execute((trx) => store.insertReviews(trx, [review]));
    const pending = await store.reviewsInStatus(db, 'pending', 10);
    assert.equal(pending.length, 1, 'one review per organisation and listed name');
    assert.deepEqual(await store.allReviews(db), [{ non_profit_id: a.id, listed_key: 'HOLY LAND RELIEF FUND', status: 'pending' }]);
    const id = Number(pending[0]?.id);
    const decided = await db.transaction().execute(async (trx) => {
      assert.equal((await store.lockReview(trx, id))?.status, 'pending');
      return [
        await store.decideReview(trx, id, { status: 'cleared', decided_at: '2026-02-04T00:00:00.000Z', decided_by: 'op', note: 'a local parish group' }),
        await store.decideReview(trx, id, { status: 'confirmed', decided_at: '2026-02-04T00:00:00.000Z', decided_by: 'op2', note: '' }),
      ];
    });
    assert.deepEqual(decided, [true, false], 'a decided review is not decided again');
    assert.equal(await db.transaction().execute((trx) => store.lockReview(trx, 999_999)), undefined);
    assert.equal((await store.screeningPage(db, a.id - 1, 1))[0]?.diligence, 'review');
  });
});
