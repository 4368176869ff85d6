// Every function of donations.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, donationRow, makeNonProfit, makeUser, queryPlan, readAcrossUndone } from '../../../test/harness.ts';
import { reserveIds } from '../../db/ids.ts';
import { runStatements } from '../../db/bulk.ts';
import * as store from './donations.store.ts';
import { KeptDonationRows } from './donations.rows.ts';

describeEachEngine('donations store', (env) => {
  const at = '2026-01-01T00:00:00Z';
  const row = (u: { user_id: number; fund_id: number }, visibility = 'public') => donationRow(env().deps, u, { visibility, created_at: at });

  test('insertDonation writes a donation and counts it; findDonation, findDonations and fundsOfDonations read it in its book only; appsOfDonations', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '222222222', name: 'Donations Charity' });
    const user = await makeUser(env().deps, { name: 'Donor' });
    const donation = await row(user);
    const id = await db.transaction().execute((trx) => store.insertDonation(trx, donation));
    const found = await store.findDonation(db, 'live', id);
    assert.deepEqual([found?.status, found?.amount_cents, found?.owner.name, found?.fund_name], ['scheduled', 1_000, 'Donor', `Donor's Fund`]);
    assert.equal(await store.findDonation(db, 'test', id), undefined);
    const many = await store.findDonations(db, 'live', [id, 999_999_999]);
    assert.deepEqual(
      many.map((d) => [d.id, d.owner.name]),
      [[id, 'Donor']],
      'the ones that exist, with their owners',
    );
    assert.deepEqual(await store.findDonations(db, 'test', [id]), []);
    assert.deepEqual(await store.findDonations(db, 'live', []), []);
    assert.deepEqual([...(await store.fundsOfDonations(db, 'live', [id, 999_999_999]))], [[id, user.fund_id]]);
    assert.deepEqual([...(await store.fundsOfDonations(db, 'test', [id]))], []);
    // appsOfDonations: only the donations an app made (rules §25).
    const byApp = await db.transaction().execute((trx) => store.insertDonation(trx, { ...donation, app_id: 4242 }));
    assert.deepEqual([...(await store.appsOfDonations(db, [id, byApp, 999_999_999]))], [[byApp, 4242]]);
    assert.deepEqual([...(await store.appsOfDonations(db, []))], []);
    const counts = await db.selectFrom('donation_counts').selectAll().where('user_id', '=', user.user_id).executeTakeFirstOrThrow();
    assert.deepEqual([counts.total, counts.public_total], [2, 2]);
  });

  test('donationStatements insert a batch with reserved ids and count public and private ones; listByUser pages them', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Pager' });
    const rows = [await row(user), await row(user, 'private'), await row(user)];
    const ids = await db.transaction().execute(async (trx) => {
      const reserved = await reserveIds(trx, 'donations', rows.length);
      await runStatements(trx, store.donationStatements(rows.map((r, i) => ({ ...r, id: reserved[i]! }))));
      return reserved;
    });
    const own = await store.listByUser(db, user.user_id, false, { page: 1, per_page: 10 });
    assert.equal(own.count, 3);
    assert.deepEqual(
      own.rows.map((r) => r.id),
      [...ids].reverse(),
      'newest first (same time: by id)',
    );
    assert.deepEqual(
      own.rows.map((r) => [r.fund_name, r.owner.name]),
      own.rows.map(() => [`Pager's Fund`, 'Pager']),
      'each row with its fund and owner',
    );
    const second = await store.listByUser(db, user.user_id, false, { page: 2, per_page: 2 });
    assert.deepEqual([second.rows.map((r) => r.id), second.count], [[ids[0]], 3], 'the last page');
    const past = await store.listByUser(db, user.user_id, false, { page: 9, per_page: 10 });
    assert.deepEqual([past.rows, past.count], [[], 3], 'a page past the end still counts them');
    const others = await store.listByUser(db, user.user_id, true, { page: 1, per_page: 10 });
    assert.equal(others.count, 2);
    assert.ok(others.rows.every((r) => r.visibility === 'public'));
    const none = await makeUser(env().deps);
    assert.deepEqual(await store.listByUser(db, none.user_id, false, { page: 1, per_page: 10 }), { rows: [], count: 0 }, 'a user with no donations');
    assert.deepEqual(await store.listByUser(db, 999_999_999, true, { page: 1, per_page: 10 }), { rows: [], count: 0 }, 'no such user');
    assert.deepEqual(await store.idsInStatus(db, 'live', 'scheduled', 1_000).then((all) => all.filter((id) => ids.includes(id))), ids);
    assert.deepEqual(await store.idsInStatus(db, 'test', 'scheduled', 1_000).then((all) => all.filter((id) => ids.includes(id))), []);
    // rules §17: a donation in a payment is found there.
    const first = ids[0] as number;
    assert.equal(await db.transaction().execute((trx) => store.paymentOf(trx, first)), undefined);
    await db.insertInto('payment_grants').values({ payment_id: 424242, donation_id: first, amount_cents: 1 }).execute();
    assert.equal(await db.transaction().execute((trx) => store.paymentOf(trx, first)), 424242);
    await db.deleteFrom('payment_grants').where('donation_id', '=', first).execute();
  });

  test("every update of a donation raises its revision, whoever runs it (migration 064's trigger)", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const donation = await row(user);
    const id = await db.transaction().execute((trx) => store.insertDonation(trx, donation));
    const revision = async () => (await db.selectFrom('donations').select('revision').where('id', '=', id).executeTakeFirstOrThrow()).revision;
    assert.equal(await revision(), 0, 'a new row');
    await db.updateTable('donations').set({ note: 'one' }).where('id', '=', id).execute();
    assert.equal(await revision(), 1, "a statement that does not name it (any release's, a CLI's, a migration's)");
    await db.updateTable('donations').set({ note: 'one' }).where('id', '=', id).execute();
    assert.equal(await revision(), 2, 'an update that changes nothing still moves it');
    assert.equal(await db.transaction().execute((trx) => store.transition(trx, id, 'scheduled', 'approved', at)), true);
    assert.equal(await revision(), 3, "the store's own transition");
    const other = await db.transaction().execute((trx) => store.insertDonation(trx, donation));
    await db.updateTable('donations').set({ note: 'both' }).where('id', 'in', [id, other]).execute();
    assert.deepEqual(
      (await db.selectFrom('donations').select(['id', 'revision']).where('id', 'in', [id, other]).orderBy('id').execute()).map((r) => r.revision),
      [4, 1],
      'each row of a statement that updates many',
    );
  });

  test('listByUser keeps the rows it read and reads again only those whose revision moved; a row that left the list between its reads is left out', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Kept' });
    const ids: number[] = [];
    for (const visibility of ['public', 'public', 'private']) {
      const donation = await row(user, visibility);
      ids.push(await db.transaction().execute((trx) => store.insertDonation(trx, donation)));
    }
    const kept = new KeptDonationRows<store.PageRow>(100);
    const first = await store.listByUser(db, user.user_id, false, { page: 1, per_page: 10 }, kept);
    assert.deepEqual(
      first.rows.map((r) => [r.id, r.note, r.revision]),
      [...ids].reverse().map((id) => [id, null, 0]),
    );
    assert.equal(kept.size, 3, 'the rows read are kept');
    const [newest, middle, oldest] = [...ids].reverse() as [number, number, number];
    const keptOldest = kept.get(oldest, 0);
    // Another node (or a statement in psql) changes a row: its revision moves, and the next page
    // shows the row as it is now, not as this node kept it.
    await db.updateTable('donations').set({ note: 'changed elsewhere' }).where('id', '=', middle).execute();
    const second = await store.listByUser(db, user.user_id, false, { page: 1, per_page: 10 }, kept);
    assert.deepEqual(
      second.rows.map((r) => [r.id, r.note]),
      [
        [newest, null],
        [middle, 'changed elsewhere'],
        [oldest, null],
      ],
    );
    assert.equal(kept.get(middle, 0), undefined, 'the old revision is no longer found');
    assert.equal(kept.get(middle, 1)?.row.note, 'changed elsewhere', 'the new one is kept');
    assert.equal(kept.get(oldest, 0), keptOldest, 'an unchanged row is not read again');
    // Others' view: a kept public row that became private is not shown (its revision moved), nor is
    // a row read while it is no longer public.
    const publicFirst = await store.listByUser(db, user.user_id, true, { page: 1, per_page: 10 }, kept);
    assert.deepEqual(
      publicFirst.rows.map((r) => r.id),
      [middle, oldest],
    );
    await db.updateTable('donations').set({ visibility: 'private' }).where('id', '=', middle).execute();
    const publicNow = await store.listByUser(db, user.user_id, true, { page: 1, per_page: 10 }, kept);
    assert.deepEqual(
      publicNow.rows.map((r) => r.id),
      [oldest],
    );
    // A kept row of one user is never another's: the page's ids come from the user's rows.
    const other = await makeUser(env().deps);
    assert.deepEqual((await store.listByUser(db, other.user_id, false, { page: 1, per_page: 10 }, kept)).rows, []);
  });

  test("a user's list's mark (migration 069): every update and delete of their donations moves its revision, whoever runs it; an insert moves the count", async () => {
    const { db } = env().deps;
    const [user, other] = [await makeUser(env().deps), await makeUser(env().deps)];
    const ids: number[] = [];
    for (const u of [user, user, other]) {
      const donation = await row(u);
      ids.push(await db.transaction().execute((trx) => store.insertDonation(trx, donation)));
    }
    const [a, b, c] = ids as [number, number, number];
    const mark = async (u: { user_id: number }) => {
      const r = await db.selectFrom('donation_counts').select(['total', 'revision']).where('user_id', '=', u.user_id).executeTakeFirstOrThrow();
      return { total: Number(r.total), revision: Number(r.revision) };
    };
    assert.deepEqual(
      [await mark(user), await mark(other)],
      [
        { total: 2, revision: 0 },
        { total: 1, revision: 0 },
      ],
    );
    const before = await mark(user);
    await db.updateTable('donations').set({ note: 'x' }).where('id', '=', a).execute();
    assert.ok((await mark(user)).revision > before.revision, "a statement that names neither the count nor the revision (any release's, a CLI's)");
    assert.deepEqual(await mark(other), { total: 1, revision: 0 }, "another user's is left alone");
    const beforeBoth = [await mark(user), await mark(other)];
    await db.updateTable('donations').set({ note: 'y' }).where('id', 'in', [b, c]).execute();
    assert.ok(
      (await mark(user)).revision > (beforeBoth[0]?.revision ?? 0) && (await mark(other)).revision > (beforeBoth[1]?.revision ?? 0),
      'each user of a statement that updates many',
    );
    const moved = [await mark(user), await mark(other)];
    await db.updateTable('donations').set({ user_id: other.user_id }).where('id', '=', b).execute();
    assert.ok((await mark(user)).revision > (moved[0]?.revision ?? 0) && (await mark(other)).revision > (moved[1]?.revision ?? 0), 'a donation moved to another user: both lists');
    const beforeDelete = await mark(other);
    await db.deleteFrom('journal_entries').where('donation_id', '=', c).execute();
    await db.deleteFrom('donations').where('id', '=', c).execute();
    assert.ok((await mark(other)).revision > beforeDelete.revision, 'a delete');
    const beforeInsert = await mark(user);
    const donation = await row(user);
    await db.transaction().execute((trx) => store.insertDonation(trx, donation));
    assert.equal((await mark(user)).total, beforeInsert.total + 1, 'an insert moves the count');
  });

  test("listByUser keeps a page's keys under its list's mark and reads them again only when the owner's row shows another", async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Marked' });
    const ids: number[] = [];
    for (const visibility of ['public', 'private']) {
      const donation = await row(user, visibility);
      ids.push(await db.transaction().execute((trx) => store.insertDonation(trx, donation)));
    }
    const kept = new KeptDonationRows<store.PageRow>(100);
    const page = { page: 1, per_page: 10 };
    const list = async () => (await store.listByUser(db, user.user_id, false, page, kept)).rows.map((r) => [r.id, r.note]);
    assert.deepEqual(
      await list(),
      [...ids].reverse().map((id) => [id, null]),
    );
    const held = kept.keys(`${user.user_id} own 10 0`);
    assert.deepEqual(
      held?.keys.map((k) => k.id),
      [...ids].reverse(),
      'the keys kept with the mark they were read under',
    );
    assert.deepEqual(held?.mark, { total: 2, revision: 0 });
    // The mark is what decides: a donation written while the mark is put back as it was is not
    // seen (what no writer does: every insert counts, every update and delete is counted by a trigger).
    const insert = async () => {
      const donation = await row(user);
      return db.transaction().execute((trx) => store.insertDonation(trx, donation));
    };
    const hidden = await insert();
    await db.updateTable('donation_counts').set({ total: 2 }).where('user_id', '=', user.user_id).execute();
    assert.deepEqual(
      await list(),
      [...ids].reverse().map((id) => [id, null]),
      'the kept keys, since the mark did not move',
    );
    await db.updateTable('donation_counts').set({ total: 3 }).where('user_id', '=', user.user_id).execute();
    assert.deepEqual(
      (await list()).map(([id]) => id),
      [hidden, ...[...ids].reverse()],
      'the count moved: the keys are read again',
    );
    // Another node (or psql) updates, deletes, inserts: each moves the mark, and the page is read again.
    const [first, second] = ids as [number, number];
    await db.updateTable('donations').set({ note: 'changed elsewhere' }).where('id', '=', first).execute();
    assert.deepEqual(await list(), [
      [hidden, null],
      [second, null],
      [first, 'changed elsewhere'],
    ]);
    await db.deleteFrom('journal_entries').where('donation_id', '=', second).execute();
    await db.deleteFrom('donations').where('id', '=', second).execute();
    assert.deepEqual(await list(), [
      [hidden, null],
      [first, 'changed elsewhere'],
    ]);
    const newest = await insert();
    assert.deepEqual(
      (await list()).map(([id]) => id),
      [newest, hidden, first],
    );
    // Others' view is kept apart, under the same mark.
    const others = await store.listByUser(db, user.user_id, true, page, kept);
    assert.deepEqual(
      others.rows.map((r) => r.id),
      [newest, hidden, first],
    );
    assert.ok(kept.keys(`${user.user_id} public 10 0`) !== undefined);
    // No keys are kept by a node that keeps nothing.
    const none = new KeptDonationRows<store.PageRow>(0);
    await store.listByUser(db, user.user_id, false, page, none);
    assert.equal(none.keys(`${user.user_id} own 10 0`), undefined);
  });

  test('listByUser keeps nothing it read of a transaction group the database then undid', async () => {
    const { db, undone } = env().deps;
    const user = await makeUser(env().deps, { name: 'Undone' });
    const donation = await row(user);
    const id = await db.transaction().execute((trx) => store.insertDonation(trx, donation));
    const kept = new KeptDonationRows<store.PageRow>(100, undone);
    const page = { page: 1, per_page: 10 };
    const list = async () => (await store.listByUser(db, user.user_id, false, page, kept)).rows.map((r) => [r.id, r.note]);
    assert.deepEqual(await list(), [[id, null]]);
    const seen = await readAcrossUndone(env(), (trx) => trx.updateTable('donations').set({ note: 'undone' }).where('id', '=', id).execute(), list);
    assert.deepEqual(seen, [[id, env().engine === 'sqlite' ? 'undone' : null]], 'what the read saw');
    // The same revision, and the same mark, now committed with other values: shown as they are.
    await db.updateTable('donations').set({ note: 'committed' }).where('id', '=', id).execute();
    assert.deepEqual(await list(), [[id, 'committed']]);
  });

  test('KeptDonationRows holds at most its capacity, the rows used last, each only at the revision it was read at', () => {
    const kept = new KeptDonationRows(4);
    const at = (id: number, revision = 0) => ({ id, revision }) as unknown as store.PageRow;
    for (const id of [1, 2]) kept.keep(at(id), 0);
    assert.ok(kept.get(1, 0) !== undefined && kept.get(2, 0) !== undefined);
    assert.equal(kept.get(1, 1), undefined, 'another revision of a kept row');
    kept.keep(at(3), 0); // the young generation was full: 1 and 2 are now the old one
    assert.ok(kept.get(1, 0) !== undefined, 'an old row used again moves to the young generation');
    kept.keep(at(4), 0); // young full again (3, 1): it becomes the old one, and 2 is dropped
    assert.equal(kept.get(2, 0), undefined, 'the row unused longest is dropped');
    assert.ok(kept.get(1, 0) !== undefined && kept.get(3, 0) !== undefined && kept.get(4, 0) !== undefined);
    for (let id = 10; id < 100; id += 1) kept.keep(at(id), 0);
    assert.ok(kept.size <= 4, `at most the capacity is held (${kept.size})`);
    const none = new KeptDonationRows(0);
    none.keep(at(1), 0);
    assert.deepEqual([none.size, none.get(1, 0)], [0, undefined], 'a capacity of none keeps nothing');
  });

  test('KeptDonationRows drops all it holds when the database undid writes, and keeps nothing read before it did', () => {
    let undone = 0;
    const kept = new KeptDonationRows(10, () => undone);
    const at = (id: number) => ({ id, revision: 0 }) as unknown as store.PageRow;
    const mark = { total: 1, revision: 0 };
    const a = Buffer.from('{"id":1}');
    let since = kept.since();
    kept.keep(at(1), since);
    kept.keepKeys('k', mark, [{ id: 1, revision: 0 }], since);
    kept.keepPage(7, [a], 'tail', a);
    assert.ok(kept.get(1, 0) !== undefined && kept.keys('k') !== undefined && kept.page(7, [a], 'tail') !== undefined);
    undone += 1;
    assert.deepEqual([kept.get(1, 0), kept.keys('k'), kept.page(7, [a], 'tail'), kept.size, kept.pages], [undefined, undefined, undefined, 0, 0], 'all dropped');
    // A read begun before the undoing: what it read may be what was undone.
    const before = since;
    undone += 1;
    const row = kept.keep(at(2), before);
    kept.keepKeys('k', mark, [{ id: 2, revision: 0 }], before);
    assert.deepEqual([row.row.id, kept.get(2, 0), kept.keys('k')], [2, undefined, undefined], 'given back to its reader, not kept');
    since = kept.since();
    kept.keep(at(2), since);
    kept.keepKeys('k', mark, [{ id: 2, revision: 0 }], since);
    assert.ok(kept.get(2, 0) !== undefined && kept.keys('k') !== undefined, 'a read begun after it is kept');
  });

  test("KeptDonationRows' pages: one a key, given back only for the same bytes objects in the same order and the same tail, all dropped when the young generation turns over", () => {
    const kept = new KeptDonationRows(4);
    const at = (id: number) => ({ id, revision: 0 }) as unknown as store.PageRow;
    const [a, b] = [Buffer.from('{"id":1}'), Buffer.from('{"id":2}')];
    const page = Buffer.from('page');
    kept.keep(at(1), 0);
    kept.keepPage(7, [a, b], 'tail', page);
    assert.equal(kept.page(7, [a, b], 'tail'), page);
    assert.equal(kept.page(7, [a, Buffer.from('{"id":2}')], 'tail'), undefined, 'equal bytes in another object: not the bytes the page was made of');
    assert.equal(kept.page(7, [b, a], 'tail'), undefined, 'another order');
    assert.equal(kept.page(7, [a], 'tail'), undefined, 'fewer rows');
    assert.equal(kept.page(7, [a, b], 'other tail'), undefined, 'another tail (the count, the page)');
    assert.equal(kept.page(8, [a, b], 'tail'), undefined, 'another key');
    kept.keep(at(2), 0);
    kept.keep(at(3), 0); // the young generation (1, 2) was full: it turns over, and the pages go
    assert.deepEqual([kept.pages, kept.page(7, [a, b], 'tail')], [0, undefined]);
    const none = new KeptDonationRows(0);
    none.keepPage(7, [a, b], 'tail', page);
    assert.deepEqual([none.pages, none.page(7, [a, b], 'tail')], [0, undefined], 'a capacity of none keeps no page');
  });

  test('lockDonation, transition (a compare-and-set; a public one that did not happen leaves the public count), waitingForFund', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const scheduled = await row(user);
    const waiting = { ...scheduled, status: 'waiting_for_funds' };
    const [a, w] = await db.transaction().execute(async (trx) => [await store.insertDonation(trx, scheduled), await store.insertDonation(trx, waiting)]);
    await db.transaction().execute(async (trx) => {
      assert.equal((await store.lockDonation(trx, 'live', a!))?.status, 'scheduled');
      assert.equal(await store.lockDonation(trx, 'test', a!), undefined);
      assert.equal(await store.transition(trx, a!, 'scheduled', 'not_completed', at, { cancelled_at: at }), true);
      assert.equal(await store.transition(trx, a!, 'scheduled', 'approved', at), false);
      assert.deepEqual(
        (await store.waitingForFund(trx, user.fund_id)).map((d) => d.id),
        [w],
      );
    });
    const counts = await db.selectFrom('donation_counts').selectAll().where('user_id', '=', user.user_id).executeTakeFirstOrThrow();
    assert.deepEqual([counts.total, counts.public_total], [2, 1]);
    assert.equal((await store.findDonation(db, 'live', a!))?.status, 'not_completed');
  });

  test('the partial indexes (migration 024): waitingForFund reads the waiting ones by index; a recurring donation makes one donation per date, any number have none', async () => {
    const {
      deps: { db },
    } = env();
    const user = await makeUser(env().deps);
    // The query the store runs, as it compiles it, not a copy that could drift from it.
    const query = store.waitingForFundQuery(db, user.fund_id).compile();
    const plan = await queryPlan(db, query);
    assert.ok(
      plan.some((line) => line.includes('donations_fund_waiting')),
      plan.join('\n'),
    );
    const np = await db.selectFrom('non_profits').select('id').orderBy('id').executeTakeFirstOrThrow();
    const schedule = await db
      .insertInto('scheduled_donations')
      .values({
        book: 'live',
        user_id: user.user_id,
        fund_id: user.fund_id,
        non_profit_id: np.id,
        amount_cents: 500,
        frequency: 'Monthly',
        start_date: '2026-02-01',
        occurrences: 0,
        next_date: '2026-02-01',
        note: null,
        visibility: 'public',
        status: 'active',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const base = await row(user);
    const insert = (extra: Partial<store.NewDonationRow>) => db.transaction().execute((trx) => store.insertDonation(trx, { ...base, ...extra }));
    await insert({});
    await insert({});
    await insert({ scheduled_donation_id: schedule.id, scheduled_for: '2026-02-01' });
    await insert({ scheduled_donation_id: schedule.id, scheduled_for: '2026-03-01' });
    await assert.rejects(insert({ scheduled_donation_id: schedule.id, scheduled_for: '2026-02-01' }), /unique|duplicate/i);
    const count = await db
      .selectFrom('donations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.user_id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 4, 'the refused one wrote nothing');
  });
});
