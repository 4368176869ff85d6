// Every function of ledger.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, fund, makeUser, olderTransactionsEnded, whileHeld } from '../../../test/harness.ts';
import { isExpectationFailed, runIfAllRows, runStatements } from '../../db/bulk.ts';
import * as store from './ledger.store.ts';
import { CHAIN_START, LogTail, chainHash } from './ledger.tail.ts';
import { lastSequenced, unsequencedHashes } from './ledger.log.store.ts';
import { sql } from 'kysely';

describeEachEngine('ledger store', (env) => {
  const at = '2026-01-01T00:00:00Z';

  test('outsideAccount finds an outside account, or makes it the first time, in each book its own', async () => {
    const { db } = env().deps;
    const [first, again, other] = await db
      .transaction()
      .execute(async (trx) => [await store.outsideAccount(trx, 'fees', 'live'), await store.outsideAccount(trx, 'fees', 'live'), await store.outsideAccount(trx, 'fees', 'test')]);
    assert.equal(first, again, 'made once');
    assert.notEqual(first, other, 'each book its own');
    assert.equal(await db.transaction().execute((trx) => store.outsideAccount(trx, 'deposits', 'live')), await store.outsideAccountId(db, 'deposits', 'live'), 'found');
  });

  test('createFundAccounts gives a fund its four accounts in its book; readFundAccounts and lockFundAccounts read them', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const accounts = await store.readFundAccounts(db, user.fund_id);
    assert.equal(accounts.book, 'live');
    assert.deepEqual(accounts.balances, { pending_deposit_cents: 0, available_cents: 0, reserved_cents: 0, portfolio_cents: 0 });
    const locked = await db.transaction().execute((trx) => store.lockFundAccounts(trx, user.fund_id));
    assert.deepEqual(locked, accounts);
    // A fund made by hand gets them from createFundAccounts.
    const fundId = await db.transaction().execute(async (trx) => {
      const f = await trx
        .insertInto('funds')
        .values({ user_id: user.user_id, name: 'Second', summary: '', created_at: at, book: 'live' })
        .returning('id')
        .executeTakeFirstOrThrow();
      await store.createFundAccounts(trx, f.id, 'live');
      return f.id;
    });
    assert.equal(Object.keys((await store.readFundAccounts(db, fundId)).ids).length, 4);
  });

  test('lockFundsAccounts (and readFundsAccounts, without locks) reads several funds as lockFundAccounts reads each, in one statement; on PostgreSQL it holds their locks', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const [a, b, c] = [await makeUser(env().deps), await makeUser(env().deps), await makeUser(env().deps)];
    await fund(env().deps, b, 2_500);
    const each = new Map<number, store.FundAccounts>();
    for (const u of [c, a, b]) each.set(u.fund_id, await store.readFundAccounts(db, u.fund_id));
    // Any order, a fund named twice: each fund once, ascending.
    const locked = await db.transaction().execute((trx) => store.lockFundsAccounts(trx, [c.fund_id, a.fund_id, b.fund_id, a.fund_id]));
    assert.deepEqual([...locked.keys()], [a.fund_id, b.fund_id, c.fund_id]);
    for (const [fundId, accounts] of locked) assert.deepEqual(accounts, each.get(fundId));
    assert.equal(locked.get(b.fund_id)?.balances.available_cents, 2_500);
    assert.deepEqual([...(await db.transaction().execute((trx) => store.lockFundsAccounts(trx, [b.fund_id])))], [[b.fund_id, each.get(b.fund_id)]]);
    assert.equal((await db.transaction().execute((trx) => store.lockFundsAccounts(trx, []))).size, 0);
    // Read without a lock, on any connection: the same accounts.
    assert.deepEqual(await store.readFundsAccounts(db, [c.fund_id, a.fund_id, b.fund_id, a.fund_id]), locked);
    assert.equal((await store.readFundsAccounts(db, [])).size, 0);
    await assert.rejects(store.readFundsAccounts(db, [a.fund_id, 999_999_999]), /a fund has accounts/);
    await assert.rejects(
      db.transaction().execute((trx) => store.lockFundsAccounts(trx, [a.fund_id, 999_999_999])),
      /a fund has accounts/,
    );
    if (engine !== 'postgres') return; // SQLite's transactions run one at a time
    // A transaction holding two funds' locks: a single fund's lock waits for it to end.
    const { waited, outcome } = await whileHeld(
      db,
      (trx) => store.lockFundsAccounts(trx, [a.fund_id, c.fund_id]),
      () => db.transaction().execute((trx) => store.lockFundAccounts(trx, c.fund_id)),
    );
    assert.equal(waited, true, "the fund's lock waited for the transaction holding it");
    assert.deepEqual(await outcome, each.get(c.fund_id));
  });

  test('postEntry writes a balanced entry and moves the cached balances; journalOfFund lists its lines', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    await fund(env().deps, user, 10_000);
    const accounts = await store.readFundAccounts(db, user.fund_id);
    const entryId = await db
      .transaction()
      .execute((trx) =>
        store.postEntry(
          trx,
          { book: 'live', memo: 'hold', gift_id: undefined, audit_id: 1 },
          [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: 2_500 }],
          at,
        ),
      );
    const after = await store.readFundAccounts(db, user.fund_id);
    assert.deepEqual([after.balances.available_cents, after.balances.reserved_cents], [7_500, 2_500]);
    const lines = await store.journalOfFund(db, user.fund_id);
    const mine = lines.filter((l) => l.entry_id === entryId);
    assert.deepEqual(mine.map((l) => [l.account, l.amount_cents]).sort(), [
      ['available', -2_500],
      ['reserved', 2_500],
    ]);
    assert.ok(
      lines.every((l, i) => i === 0 || l.entry_id >= (lines[i - 1]?.entry_id ?? 0)),
      'oldest first',
    );
    await assert.rejects(
      db
        .transaction()
        .execute((trx) =>
          store.postEntry(trx, { book: 'live', memo: 'no cause' }, [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: 1 }], at),
        ),
      /names what caused it/,
    );
  });

  test('the writer places its entries in the log on SQLite (in id order, chained from the last); on PostgreSQL the sequencer does', async () => {
    const { deps, engine } = env();
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const a = await store.readFundAccounts(deps.db, user.fund_id);
    const hold = { from_account_id: a.ids.available, to_account_id: a.ids.reserved, amount_cents: 100 };
    const before = await lastSequenced(deps.db, 'live');
    const ids = await deps.db.transaction().execute(async (trx) => {
      const single = await store.postEntry(trx, { book: 'live', memo: 'one', audit_id: 1 }, [hold], at);
      const many = await store.reserveEntryIds(trx, 3);
      // Given out of order: placed in id order all the same.
      const entries = [...many].reverse().map((id) => ({ id, cause: { book: 'live' as const, memo: 'many', audit_id: 1 }, movements: [hold] }));
      await runStatements(trx, store.entryStatements(entries, at, await LogTail.open(trx)));
      return [single, ...many];
    });
    const rows = await deps.db
      .selectFrom('journal_entries as j')
      .leftJoin('ledger_places as p', 'p.entry_id', 'j.id')
      .leftJoin('ledger_waiting as w', 'w.entry_id', 'j.id')
      .select(['j.id', 'j.entry_hash', 'p.leaf as log_seq', 'p.chain_hash', 'w.book as waiting', 'w.entry_hash as waiting_hash'])
      .where('j.id', 'in', ids)
      .orderBy('j.id')
      .execute();
    if (engine === 'postgres') {
      assert.equal(await deps.db.transaction().execute((trx) => LogTail.open(trx)), undefined);
      assert.deepEqual(
        rows.map((r) => [r.log_seq, r.chain_hash, r.waiting]),
        ids.map(() => [null, null, null]),
        'left to the sequencer, named in no table',
      );
      // Each written with its hash and its transaction's id in its one insert: the sequencer takes them by those alone.
      const txids = await sql<{ txid: string }>`select distinct txid::text as txid from journal_entries where id in (${sql.join(ids)})`.execute(deps.db);
      assert.equal(txids.rows.length, 1, 'one transaction wrote them');
      await olderTransactionsEnded(deps.db);
      assert.deepEqual(
        (await unsequencedHashes(deps.db, 'live', 10_000)).filter((e) => ids.includes(e.id)).map((e) => [e.id, e.entry_hash]),
        rows.map((r) => [Number(r.id), r.entry_hash]),
      );
      return;
    }
    assert.deepEqual(
      rows.map((r) => r.waiting),
      ids.map(() => null),
      'none waits',
    );
    let seq = before === undefined ? 0 : before.log_seq + 1;
    let chain = before?.chain_hash ?? CHAIN_START;
    for (const r of rows) {
      chain = chainHash(chain, r.entry_hash as string);
      assert.deepEqual([Number(r.log_seq), r.chain_hash], [seq, chain], `entry ${r.id}`);
      seq += 1;
    }
    // A transaction rolled back leaves no place taken: the next one reads the log's tail again.
    await assert.rejects(
      deps.db.transaction().execute(async (trx) => {
        await store.postEntry(trx, { book: 'live', memo: 'gone', audit_id: 1 }, [hold], at);
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    const next = await deps.db.transaction().execute((trx) => store.postEntry(trx, { book: 'live', memo: 'next', audit_id: 1 }, [hold], at));
    const placed = await deps.db.selectFrom('ledger_places').select(['leaf']).where('entry_id', '=', next).executeTakeFirstOrThrow();
    assert.equal(Number(placed.leaf), seq);
  });

  test('entryStatements with reserveEntryIds write many entries; guardedEntryStatements writes only while the balance is the one expected', async () => {
    const {
      deps: { db },
      engine,
    } = env();
    const user = await makeUser(env().deps);
    await fund(env().deps, user, 10_000);
    const a = await store.readFundAccounts(db, user.fund_id);
    const hold = { from_account_id: a.ids.available, to_account_id: a.ids.reserved, amount_cents: 1_000 };
    await db.transaction().execute(async (trx) => {
      const ids = await store.reserveEntryIds(trx, 2);
      assert.equal(ids.length, 2);
      await runStatements(
        trx,
        store.entryStatements(
          ids.map((id) => ({ id, cause: { book: 'live' as const, memo: 'batch', audit_id: 1 }, movements: [hold] })),
          at,
          await LogTail.open(trx),
        ),
      );
    });
    assert.deepEqual([(await store.readFundAccounts(db, user.fund_id)).balances.available_cents], [8_000]);
    // Entries as postings: each account's net change, several accounts at once; one that does not balance is refused.
    await db.transaction().execute(async (trx) => {
      const [id] = await store.reserveEntryIds(trx, 1);
      const postings = [
        { account_id: a.ids.available, amount_cents: -500 },
        { account_id: a.ids.portfolio, amount_cents: 300 },
        { account_id: a.ids.reserved, amount_cents: 200 },
      ];
      // The reserved account's balance moved apart, last (as a valuation writes its market and fees accounts).
      const netted = store.postingEntryStatements(
        [{ id: id!, cause: { book: 'live', memo: 'netted', audit_id: 1 }, postings }],
        at,
        await LogTail.open(trx),
        new Set([a.ids.reserved]),
      );
      assert.equal(netted.last.length, 1);
      await runStatements(trx, netted.first);
      assert.equal((await store.readFundAccounts(trx, user.fund_id)).balances.reserved_cents, 2_000, 'not moved yet');
      await runStatements(trx, netted.last);
      assert.throws(
        () => store.postingEntryStatements([{ id: id!, cause: { book: 'live', memo: 'off', audit_id: 1 }, postings: postings.slice(1) }], at, undefined),
        /must balance/,
      );
    });
    const after = (await store.readFundAccounts(db, user.fund_id)).balances;
    assert.deepEqual([after.available_cents, after.portfolio_cents, after.reserved_cents], [7_500, 300, 2_200]);
    await db.transaction().execute(async (trx) => {
      const [id] = await store.reserveEntryIds(trx, 1);
      await runStatements(
        trx,
        store.postingEntryStatements(
          [
            {
              id: id!,
              cause: { book: 'live', memo: 'back', audit_id: 1 },
              postings: [
                { account_id: a.ids.available, amount_cents: 500 },
                { account_id: a.ids.portfolio, amount_cents: -300 },
                { account_id: a.ids.reserved, amount_cents: -200 },
              ],
            },
          ],
          at,
          await LogTail.open(trx),
        ).first,
      );
    });
    if (engine !== 'postgres') return; // the compare-and-set statement is PostgreSQL's (ADR 9)
    const guardedRun = (expected: number) =>
      db.transaction().execute(async (trx) => {
        const [id] = await store.reserveEntryIds(trx, 1);
        const { guard, statements } = store.guardedEntryStatements([{ id: id!, cause: { book: 'live', memo: 'guarded', audit_id: 1 }, movements: [hold] }], at, [
          { account_id: a.ids.available, expected_cents: expected },
        ]);
        return runIfAllRows(trx, guard, 1, statements, 'the balance decided on');
      });
    assert.equal(Number((await guardedRun(8_000)).get(a.ids.available)), 7_000);
    await assert.rejects(guardedRun(8_000), (error) => isExpectationFailed(error));
    assert.equal((await store.readFundAccounts(db, user.fund_id)).balances.available_cents, 7_000, 'the refused batch wrote nothing');
  });
});
