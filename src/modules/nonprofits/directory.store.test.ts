// Every function of directory.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describeEachEngine } from '../../../test/harness.ts';
import { NO_IRS_DETAILS, recordsEpoch, type NonProfitInput } from './nonprofits.store.ts';
import * as store from './directory.store.ts';

describeEachEngine('directory store', (env) => {
  const input = (ein: string, name: string, extra: Partial<NonProfitInput> = {}): NonProfitInput => ({
    ein,
    name,
    ...NO_IRS_DETAILS,
    name_lower: name.toLowerCase(),
    website: null,
    city: 'Albany',
    state: 'NY',
    zip: '12207',
    latitude: 42.65,
    longitude: -73.75,
    ntee_code: 'B20',
    cause_id: 2,
    eligible: 1,
    slug: `/charities/${ein}-y`,
    income_amt: 100,
    asset_amt: 200,
    tax_period: '202401',
    ...extra,
  });
  const at = '2026-01-01T00:00:00Z';

  test('an import run: insertNonProfits and insertWords, storedByEins, rewriteNonProfit, markSeenByRun, markUnlisted, finishImportRun', async () => {
    const { db } = env().deps;
    const run = await store.startImportRun(db, at);
    const inserted = await db.transaction().execute(async (trx) => {
      const rows = await store.insertNonProfits(trx, [input('200000001', 'Hudson Food Bank'), input('200000002', 'Albany Arts'), input('200000003', 'Gone Org')], 'f.csv', run, at);
      await store.insertWords(
        trx,
        rows.map((r) => [r.name.split(' ')[0]!.toLowerCase(), r.id, 'name', r.income_amt] as const),
      );
      return rows;
    });
    assert.deepEqual(
      inserted.map((r) => r.name),
      ['Hudson Food Bank', 'Albany Arts', 'Gone Org'],
    );
    const stored = await db.transaction().execute((trx) => store.storedByEins(trx, ['200000001', '200000002', '299999999']));
    assert.deepEqual(stored.map((s) => [s.ein, s.source]).sort(), [
      ['200000001', 'f.csv'],
      ['200000002', 'f.csv'],
    ]);
    assert.deepEqual(await db.transaction().execute((trx) => store.storedByEins(trx, [])), []);

    const next = await store.startImportRun(db, at);
    const [food, arts] = inserted;
    await db.transaction().execute(async (trx) => {
      await store.rewriteNonProfit(trx, food!.id, input('200000001', 'Hudson Valley Food Bank', { income_amt: 500 }), 'f.csv', next, at);
      await store.markSeenByRun(trx, [arts!.id], next);
      await store.markSeenByRun(trx, [], next);
    });
    const epochBefore = await recordsEpoch(db);
    const removed = await store.markUnlisted(db, 'f.csv', next, '202401', '2026-02-01T00:00:00Z');
    assert.equal(removed, 1, 'only the organisation this run did not see');
    assert.equal(await recordsEpoch(db), epochBefore + 1, 'a removal raises the records epoch: nodes forget the recipients they remember');
    assert.equal(await store.markUnlisted(db, 'f.csv', next, '202401', '2026-02-01T00:00:00Z'), 0);
    assert.equal(await recordsEpoch(db), epochBefore + 1, 'removing none leaves it');
    const gone = await db.selectFrom('non_profits').select(['ein', 'removed_at', 'name']).where('source', '=', 'f.csv').orderBy('ein').execute();
    assert.deepEqual(
      gone.map((g) => [g.ein, g.removed_at !== null]),
      [
        ['200000001', false],
        ['200000002', false],
        ['200000003', true],
      ],
    );
    assert.equal(gone[0]?.name, 'Hudson Valley Food Bank');
    await store.finishImportRun(db, next, { added: 0 }, '2026-02-01T00:00:00Z');
    const finished = await db.selectFrom('import_runs').selectAll().where('id', '=', next).executeTakeFirstOrThrow();
    assert.deepEqual([finished.finished_at, finished.summary], ['2026-02-01T00:00:00Z', '{"added":0}']);

    await db.transaction().execute(async (trx) => {
      await store.resizeWords(trx, food!.id, 500);
      await store.deleteWords(trx, arts!.id);
    });
    const words = await db.selectFrom('non_profit_words').select(['non_profit_id', 'size']).where('non_profit_id', 'in', [food!.id, arts!.id]).execute();
    assert.deepEqual(words, [{ non_profit_id: food!.id, size: 500 }]);
  });

  test('the search indexes: dropDirectoryIndexes then ensureDirectoryIndexes (twice is once); bulkLoad on and off', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const wanted = ['non_profit_words_word_size', 'non_profits_cause_size', 'non_profits_latitude', 'non_profits_state_size'];
    const indexes = async () =>
      (engine === 'sqlite'
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)).rows
        : (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db)).rows
      ).map((r) => r.name);
    await store.dropDirectoryIndexes(db);
    assert.equal((await indexes()).filter((n) => wanted.includes(n)).length, 0, 'dropped');
    const cache = async () => (await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]?.cache_size;
    const cacheBefore = engine === 'sqlite' ? await cache() : undefined;
    await store.ensureDirectoryIndexes(db);
    await store.ensureDirectoryIndexes(db);
    assert.deepEqual((await indexes()).filter((n) => wanted.includes(n)).sort(), wanted);
    if (engine === 'sqlite') {
      // The builds' sort settings are the connection's again after them.
      assert.equal(await cache(), cacheBefore);
      assert.notEqual(cacheBefore, -16384);
      assert.equal((await sql<{ threads: number }>`pragma threads`.execute(db)).rows[0]?.threads, 0);
      const foreignKeys = async () => (await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0]?.foreign_keys;
      await store.bulkLoad(db, true);
      assert.equal((await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]?.synchronous, 1, 'NORMAL');
      assert.equal(await foreignKeys(), 0);
      await store.bulkLoad(db, false);
      assert.equal((await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]?.synchronous, 2, 'FULL');
      assert.equal(await foreignKeys(), 1);
    }
  });

  test('vacuumDirectory vacuums and analyzes the organisations and their words on PostgreSQL, and does nothing on SQLite', async () => {
    const { db } = env().deps;
    await store.vacuumDirectory(db);
    if (env().engine !== 'postgres') return;
    const { rows } = await sql<{ relname: string; vacuumed: boolean; analyzed: boolean }>`
      select relname, last_vacuum is not null as vacuumed, last_analyze is not null as analyzed
      from pg_stat_user_tables where schemaname = current_schema() and relname in ('non_profits', 'non_profit_words') order by relname`.execute(db);
    assert.deepEqual(rows, [
      { relname: 'non_profit_words', vacuumed: true, analyzed: true },
      { relname: 'non_profits', vacuumed: true, analyzed: true },
    ]);
  });

  test("replaceZipCentroids keeps the last import's centres only", async () => {
    const { db } = env().deps;
    await db.transaction().execute((trx) =>
      store.replaceZipCentroids(trx, [
        ['05401', 44.48, -73.21],
        ['05402', 44.5, -73.2],
      ]),
    );
    await db.transaction().execute((trx) => store.replaceZipCentroids(trx, [['05403', 44.44, -73.2]]));
    assert.deepEqual(await db.selectFrom('zip_centroids').select(['zip', 'latitude', 'longitude']).execute(), [{ zip: '05403', latitude: 44.44, longitude: -73.2 }]);
  });

  test('rebuildVocabularyTables counts words, lists the biggest users of common ones, and raises the directory epoch', async () => {
    const { db } = env().deps;
    const run = await store.startImportRun(db, at);
    await db.transaction().execute(async (trx) => {
      const rows = await store.insertNonProfits(
        trx,
        [1, 2, 3].map((i) => input(`30000000${i}`, `Common Club ${i}`, { income_amt: i * 10 })),
        'g.csv',
        run,
        at,
      );
      await store.insertWords(
        trx,
        rows.map((r) => ['commonword', r.id, 'name', r.income_amt] as const),
      );
    });
    const epoch = (await db.selectFrom('directory_epoch').select('epoch').executeTakeFirstOrThrow()).epoch;
    await db.transaction().execute((trx) => store.rebuildVocabularyTables(trx, 2, 2));
    const df = await db.selectFrom('directory_vocabulary').select('df').where('word', '=', 'commonword').executeTakeFirstOrThrow();
    assert.equal(Number(df.df), 3);
    const top = await db
      .selectFrom('directory_top as t')
      .innerJoin('non_profits as n', 'n.id', 't.non_profit_id')
      .select('n.ein')
      .where('t.word', '=', 'commonword')
      .orderBy('n.ein')
      .execute();
    assert.deepEqual(
      top.map((t) => t.ein),
      ['300000002', '300000003'],
      'the two biggest',
    );
    assert.equal((await db.selectFrom('directory_epoch').select('epoch').executeTakeFirstOrThrow()).epoch, epoch + 1);
  });
});
