// The directory held in memory (directory.memory.ts) answers as the database
// does, on both engines: every read a search makes, its ranking, and whole searches, over
// random queries; a search after a change reads the database until a new
// image is held; a load the epochs overtake is abandoned; the flag off holds none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describeEachEngine, makeNonProfit } from '../../../test/harness.ts';
import type { Deps } from '../../deps.ts';
import { rebuildVocabularyTables } from './directory.store.ts';
import { bumpRecordsEpoch } from './nonprofits.store.ts';
import { Abandoned, databaseReads, DirectoryImage, Refused } from './directory.memory.ts';
import { DirectoryInMemory } from './directory.held.ts';
import { DirectorySearch, type SearchQuery } from './search.service.ts';
import * as store from './search.store.ts';
import type { Ranking } from './rank.ts';

const WORDS = [
  'river',
  'valley',
  'hope',
  'food',
  'bank',
  'saint',
  'mary',
  'church',
  'school',
  'friends',
  'animal',
  'rescue',
  'youth',
  'arts',
  'center',
  'community',
  'health',
  'garden',
];
const CITIES = ['Burlington', 'Montpelier', 'Rutland', 'Saint Albans', 'Food River'];
const SMALL_PAGES = { organisations: 37, words: 50 };

/** A deterministic directory of `n` organisations whose names share a few words (one used by most). */
async function fill(deps: Deps, n: number): Promise<void> {
  let seed = 7;
  // A linear congruential generator's high bits (its low ones repeat in short cycles).
  const next = (k: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((seed / 2_147_483_648) * k);
  };
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 1 + next(3) }, () => WORDS[next(WORDS.length)] as string);
    await makeNonProfit(deps, {
      ein: String(500_000_000 + i),
      name: `${i % 3 === 0 ? 'Community ' : ''}${words.join(' ')}${i % 5 === 0 ? ' of the Valley Inc' : ''} ${i}`,
      city: CITIES[next(CITIES.length)] as string,
      state: ['VT', 'NH', 'NY'][next(3)] as string,
      cause_id: 1 + next(4),
      eligible: next(6) === 0 ? 0 : 1,
      // Ties on purpose: ranking breaks them by assets, name and id.
      income_amt: next(4) * 10_000,
      asset_amt: next(3) * 5_000,
      revenue_amt: next(3) === 0 ? 0 : next(1000) * 1_000,
      latitude: next(7) === 0 ? null : 44 + next(100) / 100,
      longitude: -73,
      subsection: ['03', '04'][next(2)] as string,
      foundation: ['15', '04', '17'][next(3)] as string,
      affiliation: ['3', '9', '1'][next(3)] as string,
      organization: ['1', '6'][next(2)] as string,
      filing_req: ['01', '06'][next(2)] as string,
      status: ['01', '12'][next(2)] as string,
    });
  }
}

describeEachEngine('the directory held in memory', (env) => {
  const search = () => new DirectorySearch(env().deps);
  const onDatabase = () => new DirectorySearch({ ...env().deps, config: { ...env().deps.config, directoryInMemory: false } });

  test('an organisation added or changed raises the records epoch in its transaction', async () => {
    const { deps } = env();
    const before = await store.directoryEpochs(deps.db);
    await makeNonProfit(deps, { ein: '499999999', name: 'Epoch Test Society' });
    assert.equal((await store.directoryEpochs(deps.db)).records, before.records + 1, 'added');
    await makeNonProfit(deps, { ein: '499999999', name: 'Epoch Test Society', income_amt: 5 });
    assert.equal((await store.directoryEpochs(deps.db)).records, before.records + 2, 'changed');
  });

  test('an image, read a few rows a page, answers every read as the database does', async () => {
    const { deps } = env();
    await fill(deps, 240);
    // Some removed (still in the word index), and the import's lists of common words' biggest users.
    await deps.db.transaction().execute(async (trx) => {
      await trx.updateTable('non_profits').set({ removed_at: new Date().toISOString() }).where('ein', 'in', ['500000003', '500000010', '500000011']).execute();
      await bumpRecordsEpoch(trx);
      await rebuildVocabularyTables(trx, 30, 10);
    });
    const image = await DirectoryImage.load(deps.db, async () => true, SMALL_PAGES);
    assert.deepEqual(image.epochs, await store.directoryEpochs(deps.db));
    const db = databaseReads(deps.db);
    const ids = (await deps.db.selectFrom('non_profits').select('id').execute()).map((r) => r.id);
    const vocabulary = [...WORDS, 'of', 'burlington', 'albans', 'nosuchword', '17'];
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...vocabulary),
        fc.integer({ min: 1, max: 60 }),
        async (words, other, limit) => {
          const [held, read] = [await image.postings(words), await db.postings(words)];
          const same = (what: string) => {
            assert.equal(held.size, read.size, what);
            // Each names organisations by its own handles: compared as ids.
            const [heldIds, readIds] = [(n: number) => image.idsOf(held.biggest(n)).sort(), (n: number) => db.idsOf(read.biggest(n)).sort()];
            assert.deepEqual(heldIds(1_000_000), readIds(1_000_000), what);
            assert.deepEqual(heldIds(limit), readIds(limit), `${what}: the biggest ${limit}`);
          };
          same('the users of any of the words');
          await Promise.all([held.narrow([other]), read.narrow([other])]);
          same('narrowed by another word');
          assert.deepEqual(image.idsOf(await image.topOfWords(words)).sort(), db.idsOf(await db.topOfWords(words)).sort());
        },
      ),
      { numRuns: 150 },
    );
    // Ranking: from the columns and word numbers, as from rows and their text.
    const term = fc.record({
      map: fc
        .uniqueArray(fc.tuple(fc.constantFrom(...vocabulary, 'inc', 'the', 'saint'), fc.constantFrom(0, 0.25, 1, 2, 3)), { selector: ([w]) => w, maxLength: 3 })
        .map((e) => new Map(e)),
      optional: fc.boolean(),
    });
    const ranking = fc.record(
      {
        readings: fc.array(fc.array(term, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
        ein: fc.constantFrom(null, '500000004', '500000003', '123456789'),
        cause_id: fc.integer({ min: 1, max: 4 }),
        state: fc.constantFrom('VT', 'nh'),
        near: fc.record({ latitude: fc.constantFrom(44.5), longitude: fc.constantFrom(-73), radius_km: fc.integer({ min: 1, max: 80 }) }),
      },
      { requiredKeys: ['readings', 'ein'] },
    );
    let ranked = 0;
    await fc.assert(
      fc.asyncProperty(fc.subarray([...ids, 0, 999_999]), ranking, fc.constantFrom(0, 1, 5, 25, 201, 10_000), async (some, how: Ranking, k) => {
        // The image takes its handles of the ids it holds (0 and 999,999 are no organisation's).
        const held = await image.ranked(image.handlesOf(some), how, k);
        assert.deepEqual(held, await db.ranked(db.handlesOf(some), how, k));
        assert.deepEqual(
          image.idsOf(image.handlesOf(some)),
          some.filter((id) => id !== 0 && id !== 999_999),
          'a handle names the organisation it was made of',
        );
        assert.equal(held.ids.length, Math.min(k, held.count));
        if (held.count > 0) ranked += 1;
      }),
      { numRuns: 200 },
    );
    assert.ok(ranked >= 40, `rankings rank organisations (${ranked} of 200)`);
    assert.ok((await db.topOfWords(['community'])).length > 0, 'a common word has its list');
  });

  test('searches answer alike from the image and from the database, whatever the query', async () => {
    const { deps } = env();
    await deps.runtime.directory.warm();
    const epochs = await store.directoryEpochs(deps.db);
    const held = deps.runtime.directory.held;
    assert.ok(held !== undefined && deps.runtime.directory.readsAt(epochs) === held, 'the image is held at the current epochs');
    const memory = search();
    const database = onDatabase();
    const typo = (w: string) => (w.length > 4 ? `${w[1]}${w[0]}${w.slice(2)}` : w);
    const query = fc.record(
      {
        query: fc
          .tuple(fc.array(fc.constantFrom(...WORDS, 'of', 'saint albans', 'xyzzy'), { minLength: 1, maxLength: 2 }), fc.constantFrom('as typed', 'typo', 'prefix'))
          .map(([ws, how]) => {
            const last = ws[ws.length - 1] as string;
            const end = how === 'typo' ? typo(last) : how === 'prefix' ? last.slice(0, 3) : last;
            return [...ws.slice(0, -1), end].join(' ');
          }),
        cause_id: fc.integer({ min: 1, max: 4 }),
        state: fc.constantFrom('VT', 'nh'),
      },
      { requiredKeys: ['query'] },
    );
    let found = 0;
    await fc.assert(
      fc.asyncProperty(query, fc.integer({ min: 1, max: 3 }), fc.constantFrom(5, 25), async (q: SearchQuery, page, perPage) => {
        const asked = { page, per_page: perPage };
        const answer = await memory.search(q, asked);
        assert.deepEqual(answer, await database.search(q, asked));
        if (answer.items.length > 0) found += 1;
      }),
      { numRuns: 120 },
    );
    assert.ok(found >= 15, `queries find organisations (${found} of 120)`);
    // An EIN typed whole is found first, whatever its name, from either (its id made the image's handle).
    for (const ein of ['500000004', '50-0000007', '500000003', '123456789']) {
      const [answer, read] = [await memory.search({ query: ein }, { page: 1, per_page: 5 }), await database.search({ query: ein }, { page: 1, per_page: 5 })];
      assert.deepEqual(answer, read, ein);
      if (ein === '500000004') assert.equal(answer.items[0]?.ein, ein, 'the EIN first');
    }
    assert.equal(deps.runtime.directory.held, held, 'the searches read the image they were given');
  });

  test('after a change, searches read the database until an image of the new epochs is held', async () => {
    const { deps } = env();
    await deps.runtime.directory.warm();
    const stale = deps.runtime.directory.held;
    assert.ok(stale !== undefined);
    // Words the vocabulary knows (it is counted again at the end of an import), and the biggest income.
    await makeNonProfit(deps, { ein: '600000001', name: 'Hope Garden Rescue Arts', income_amt: 900_000_000 });
    const found = async () => (await search().search({ query: 'hope garden rescue arts' }, { page: 1, per_page: 5 })).items.map((n) => n.ein)[0];
    assert.equal(await found(), '600000001', 'the new organisation is found at once');
    assert.notEqual(deps.runtime.directory.held, stale, 'the stale image is no longer held');
    await deps.runtime.directory.warm();
    assert.deepEqual(deps.runtime.directory.held?.epochs, await store.directoryEpochs(deps.db));
    assert.equal(await found(), '600000001', 'and from the new image');
    // Removed: gone from both at once.
    await deps.db.transaction().execute(async (trx) => {
      await trx.updateTable('non_profits').set({ removed_at: new Date().toISOString() }).where('ein', '=', '600000001').execute();
      await bumpRecordsEpoch(trx);
    });
    assert.notEqual(await found(), '600000001');
    await deps.runtime.directory.warm();
    assert.notEqual(await found(), '600000001');
  });

  test('a load the epochs overtake is abandoned, between pages or at its end', async () => {
    const { deps } = env();
    await assert.rejects(
      DirectoryImage.load(deps.db, async () => false, SMALL_PAGES),
      Abandoned,
      'told to stop between pages',
    );
    const raising = async () => {
      await bumpRecordsEpoch(deps.db);
      return true;
    };
    await assert.rejects(DirectoryImage.load(deps.db, raising, SMALL_PAGES), Abandoned, 'an epoch raised while it read');
  });

  test('a name of more words than a row can say is refused, not cut short', async () => {
    const { deps } = env();
    await makeNonProfit(deps, { ein: '600000002', name: Array.from({ length: 1_030 }, (_, i) => `w${i}`).join(' ') });
    await assert.rejects(
      DirectoryImage.load(deps.db, async () => true, SMALL_PAGES),
      Refused,
    );
    // The database still answers: the search reads it while no image is held.
    assert.equal((await search().search({ query: '60-0000002' }, { page: 1, per_page: 5 })).items[0]?.ein, '600000002');
  });

  test('with DIRECTORY_IN_MEMORY off, a search holds nothing and loads nothing', async () => {
    const { deps } = env();
    const directory = new DirectoryInMemory(deps);
    const off = { ...deps, config: { ...deps.config, directoryInMemory: false }, runtime: { ...deps.runtime, directory } };
    const page = await new DirectorySearch(off).search({ query: 'river' }, { page: 1, per_page: 5 });
    assert.ok(page.items.length > 0);
    assert.equal(directory.loading, false);
    assert.equal(directory.held, undefined);
    await directory.close();
    // Nor does warming a node's holder (the bench's servers warm theirs before they listen).
    const offHolder = new DirectoryInMemory(off);
    await offHolder.warm();
    assert.equal(offHolder.held, undefined, 'warm holds nothing with the flag off');
    await offHolder.close();
  });
});
