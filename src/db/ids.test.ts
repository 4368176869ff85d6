import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, type TestEnv } from '../../test/harness.ts';
import { IdStock, STOCK_MAX_AGE_MS, reserveIds, reserveIdsOfEach } from './ids.ts';

const ascending = (ids: readonly number[]) => ids.every((id, i) => i === 0 || id > (ids[i - 1] as number));

// The stock is for PostgreSQL (SQLite takes ids in its write transaction, the only writer).
const postgres = engines().some((e) => e.name === 'postgres');
describe('ids (postgres)', { skip: postgres ? false : 'TEST_DATABASE_URL is not set' }, () => {
  let env: TestEnv;
  before(async () => {
    env = await openEnv('postgres');
  });
  after(async () => env.close());

  test('an id stock hands out ids in the order the sequence gave them, also across a discard and once its ids are too old', async () => {
    const { db } = env.deps;
    // The stock's own clock, moved by hand: its age limit without waiting for it.
    let now = 1_000;
    const stock = new IdStock(db, ['donations', 'journal_entries'], () => now);
    const handed: number[][] = [[], []];
    const take = async (n: number) => {
      const ids = await stock.take(n);
      assert.equal(ids.length, 2);
      for (const [i, list] of ids.entries()) {
        assert.equal(list.length, n);
        handed[i]?.push(...list);
      }
      return ids;
    };
    await take(5); // by a statement of its own, which also fills the stock
    await take(5);
    await take(5);
    assert.ok(stock.stats.stocked >= 2, 'later takes come from the stock');
    // Someone else takes ids directly, after a discard: nothing handed out later is older.
    stock.discard();
    const [direct = []] = await reserveIdsOfEach(db, ['donations'], 3);
    const [afterDiscard = []] = await take(4);
    assert.ok((afterDiscard[0] as number) > (direct.at(-1) as number), 'ids after a discard follow ids taken elsewhere');
    // Ids older than the stock's age limit are not handed out.
    await take(4);
    const [later = []] = await reserveIdsOfEach(db, ['donations'], 1);
    await stock.toppedUp();
    now += STOCK_MAX_AGE_MS + 1;
    const [afterWait = []] = await take(4);
    assert.ok((afterWait[0] as number) > (later[0] as number), 'a stale stock is dropped');
    for (const list of handed) {
      assert.ok(ascending(list), 'every id handed out is above the ones before');
    }
  });

  test('ids taken elsewhere in the process drop the stock and a top-up under way, with no discard', async () => {
    const { db } = env.deps;
    const stock = new IdStock(db, ['donations', 'journal_entries']);
    await stock.take(5); // fills the stock
    // A use case takes a donation id of its own (a gift's claim): the stock's ids are older now.
    const [direct] = await reserveIds(db, 'donations', 1);
    const [[next = 0] = []] = await stock.take(1);
    assert.ok(next > (direct as number), `the next id (${next}) follows the one taken elsewhere (${direct})`);
    // A journal entry's id taken elsewhere drops the donations' ids with it: the stock's rows go together.
    await stock.take(1);
    const [entry] = await reserveIds(db, 'journal_entries', 1);
    const [, [nextEntry = 0] = []] = await stock.take(1);
    assert.ok(nextEntry > (entry as number), 'entry ids follow one taken elsewhere');
    // A top-up under way when ids are taken elsewhere is dropped when it arrives.
    const stats = { ...stock.stats };
    const taken = await stock.take(40); // the stock runs low: a top-up starts
    const [[racing = 0] = []] = await reserveIdsOfEach(db, ['donations'], 1);
    await stock.toppedUp(); // the top-up arrives
    const [[after = 0] = []] = await stock.take(1);
    assert.ok(after > racing, `after a racing take (${racing}) the stock hands out ${after}`);
    assert.ok(stock.stats.reserved > stats.reserved, 'the take after it took ids of its own');
    assert.equal(taken[0]?.length, 40);
  });
});
