// Every function of search.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit } from '../../../test/harness.ts';
import { rebuildVocabularyTables, replaceZipCentroids } from './directory.store.ts';
import * as store from './search.store.ts';

describeEachEngine('search store', (env) => {
  const idOf = async (ein: string) => (await env().deps.db.selectFrom('non_profits').select('id').where('ein', '=', ein).executeTakeFirstOrThrow()).id;

  test('the vocabulary: countWords from the index, vocabularyEntries once counted, directoryEpochs raised; topOfWords', async () => {
    const { deps } = env();
    await makeNonProfit(deps, { ein: '400000001', name: 'Maple Syrup Society', income_amt: 50 });
    await makeNonProfit(deps, { ein: '400000002', name: 'Maple Leaf Rescue', income_amt: 900 });
    assert.equal((await store.countWords(deps.db)).find((w) => w.word === 'maple')?.df, 2);
    const before = await store.directoryEpochs(deps.db);
    await deps.db.transaction().execute((trx) => rebuildVocabularyTables(trx, 1, 1));
    assert.deepEqual(await store.directoryEpochs(deps.db), { epoch: before.epoch + 1, records: before.records }, 'a rebuilt vocabulary raises the epoch alone');
    assert.equal((await store.vocabularyEntries(deps.db)).find((w) => w.word === 'maple')?.df, 2);
    assert.deepEqual(await store.topOfWords(deps.db, ['maple']), [await idOf('400000002')], 'the biggest user of a common word');
    assert.deepEqual(await store.topOfWords(deps.db, []), []);
  });

  test('postings and usersOf read the index alone; listedRows and listedCandidates (by ids or EIN) read only listed organisations', async () => {
    const { deps } = env();
    await makeNonProfit(deps, { ein: '400000003', name: 'Birch Bark Canoes', income_amt: 5 });
    await makeNonProfit(deps, { ein: '400000004', name: 'Birch Removed Org', income_amt: 7 });
    const [kept, gone] = [await idOf('400000003'), await idOf('400000004')];
    await deps.db.updateTable('non_profits').set({ removed_at: '2026-01-01T00:00:00Z' }).where('id', '=', gone).execute();
    assert.deepEqual(
      await store.postings(deps.db, ['birch']),
      new Map([
        [kept, 5],
        [gone, 7],
      ]),
      'the index itself lists both',
    );
    assert.deepEqual(await store.postings(deps.db, []), new Map());
    assert.deepEqual(await store.usersOf(deps.db, ['birch', 'canoes', 'nowhere']), new Set([kept, gone]));
    assert.deepEqual(await store.usersOf(deps.db, []), new Set());
    assert.deepEqual(
      (await store.listedRows(deps.db, [kept, gone])).map((r) => r.ein),
      ['400000003'],
    );
    assert.deepEqual(await store.listedRows(deps.db, []), []);
    assert.deepEqual(
      (await store.listedCandidates(deps.db, { ids: [kept, gone] })).map((r) => r.ein),
      ['400000003'],
    );
    assert.deepEqual(await store.listedCandidates(deps.db, { ein: '400000004' }), []);
    assert.equal((await store.listedCandidates(deps.db, { ein: '400000003' }))[0]?.income_amt, 5);
    assert.deepEqual(await store.listedCandidates(deps.db, { ids: [] }), []);
  });

  test('biggestMatching and pageMatching filter by cause, state and box, biggest first', async () => {
    const { deps } = env();
    await makeNonProfit(deps, { ein: '400000005', name: 'Desert Fund', state: 'AZ', cause_id: 7, income_amt: 30, latitude: 33.4, longitude: -112.0 });
    await makeNonProfit(deps, { ein: '400000006', name: 'Canyon Fund', state: 'AZ', cause_id: 7, income_amt: 60, latitude: 36.1, longitude: -112.1 });
    await makeNonProfit(deps, { ein: '400000007', name: 'Mesa Fund', state: 'AZ', cause_id: 8, income_amt: 90, latitude: 33.4, longitude: -111.8 });
    const az = await store.pageMatching(deps.db, { state: 'az', cause_id: 7 }, { page: 1, per_page: 1 });
    assert.deepEqual([az.count, az.rows.map((r) => r.ein)], [2, ['400000006']]);
    assert.deepEqual(
      (await store.pageMatching(deps.db, { state: 'AZ', cause_id: 7 }, { page: 2, per_page: 1 })).rows.map((r) => r.ein),
      ['400000005'],
    );
    const phoenix = await store.biggestMatching(deps.db, { state: 'AZ', box: { lat: [33, 34], lng: [-113, -111] } }, 10);
    assert.deepEqual(
      phoenix.map((r) => r.ein),
      ['400000007', '400000005'],
    );
    assert.deepEqual(
      (await store.biggestMatching(deps.db, { state: 'AZ' }, 1)).map((r) => r.ein),
      ['400000007'],
    );
  });

  test('zipCentroid reads the centres an import kept (replaceZipCentroids)', async () => {
    const { db } = env().deps;
    await db.transaction().execute((trx) => replaceZipCentroids(trx, [['05401', 44.48, -73.21]]));
    assert.deepEqual(await store.zipCentroid(db, '05401'), { latitude: 44.48, longitude: -73.21 });
    assert.equal(await store.zipCentroid(db, '99999'), undefined);
  });

  test('what a node reads to hold the directory: directoryCounts, candidatesPage, wordsPage, wordUsers, topEntries', async () => {
    const { db } = env().deps;
    const counts = await store.directoryCounts(db);
    const all = await db.selectFrom('non_profits').select('id').orderBy('id').execute();
    assert.equal(counts.organisations, all.length);
    assert.equal(counts.words, (await db.selectFrom('non_profit_words').select('word').execute()).length);
    // Pages by id, listed or not, each with what ranking reads and whether it is removed.
    const first = await store.candidatesPage(db, 0, 2);
    assert.deepEqual(
      first.map((r) => r.id),
      all.slice(0, 2).map((r) => r.id),
    );
    const second = await store.candidatesPage(db, first[1]?.id ?? 0, 100);
    assert.deepEqual(
      second.map((r) => r.id),
      all.slice(2).map((r) => r.id),
    );
    assert.ok(first.every((r) => typeof r.income_amt === 'number' && typeof r.name === 'string' && 'removed_at' in r));
    // Words after a word, in word order; one word's users whole.
    const words = await store.wordsPage(db, '', 1_000_000);
    assert.equal(words.length, counts.words);
    const order = words.map((w) => w.word);
    assert.ok(
      order.every((w, i) => i === 0 || w === order[i - 1] || !order.slice(0, i).includes(w)),
      'each word once, its users together',
    );
    assert.ok((await store.wordsPage(db, 'maple', 1_000_000)).every((w) => w.word > 'maple'));
    assert.deepEqual(
      (await store.wordUsers(db, 'maple')).map((w) => w.non_profit_id).sort(),
      words
        .filter((w) => w.word === 'maple')
        .map((w) => w.non_profit_id)
        .sort(),
    );
    assert.deepEqual(
      (await store.topEntries(db)).filter((e) => e.word === 'maple'),
      (await store.topOfWords(db, ['maple'])).map((id) => ({ word: 'maple', non_profit_id: id })),
    );
  });
});
