// Every function of check.store.ts on both engines: what each reads on a
// sound ledger, and that it sees a wrong row as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, withoutForeignKeys } from '../../../test/harness.ts';
import * as store from './check.store.ts';
import { formatCheck, runCheck } from './check.service.ts';
import { connectApp } from '../../../test/app-tokens.ts';

describeEachEngine('check store', (env) => {
  test('on a sound ledger: sums, causes, holds, counts and books read as the journal says', async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '500000001', name: 'Check Charity', income_amt: 0 });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '500000001', amount: 25 } });
    assert.equal(made.status, 201);

    const sums = await store.entrySums(db);
    assert.ok(sums.length >= 2 && sums.every((s) => s.sum === 0n && s.postings >= 2));
    assert.deepEqual(await store.entriesWithoutPostings(db), []);
    assert.deepEqual(await store.entriesWithoutCause(db), []);
    const accounts = await store.accountsWithPostings(db);
    const available = accounts.find((a) => a.fund_id === user.fund_id && a.kind === 'available');
    assert.deepEqual([available?.balance, available?.postings], [7_500n, 7_500n]);
    assert.ok(accounts.every((a) => a.balance === a.postings));
    const net = await store.netByCause(db, 'donation');
    assert.deepEqual(net.get(made.body.id), { available: -2_500n, reserved: 2_500n });
    assert.deepEqual(
      (await store.causes(db, 'donation')).find((d) => d.id === made.body.id),
      { id: made.body.id, status: 'scheduled', amount: 2_500n },
    );
    assert.equal((await store.causes(db, 'contribution')).length, 1);
    assert.deepEqual(
      (await store.reservedAndHeld(db, ['scheduled', 'approved'])).find((f) => f.fund_id === user.fund_id),
      { fund_id: user.fund_id, reserved: 2_500n, held: 2_500n },
    );
    const counts = (await store.donationCounts(db, ['not_completed', 'rejected'])).find((c) => c.user_id === user.user_id);
    assert.deepEqual(counts, { user_id: user.user_id, total: 1, public_total: 1, actual: 1, actual_public: 1 });
    assert.deepEqual(await store.wrongWordSizes(db), []);
    assert.deepEqual(await store.postingsAcrossBooks(db), []);
    assert.deepEqual(await store.bookMismatches(db), []);
    assert.ok((await store.bookSums(db)).every((b) => b.sum === 0n));
    assert.deepEqual(await store.receiptMismatches(db), [], 'the contribution that succeeded has its receipt');
    const contribution = (await db.selectFrom('contributions').select('id').where('user_id', '=', user.user_id).executeTakeFirstOrThrow()).id;
    await db.deleteFrom('receipts').where('contribution_id', '=', contribution).execute();
    assert.deepEqual(await store.receiptMismatches(db), [{ id: contribution, status: 'success', receipts: 0 }]);
    // A correction of another contribution's receipt is a break in the chain.
    const other = await makeUser(deps);
    await fund(deps, other, 1_000);
    const [theirs] = await db.selectFrom('receipts').select('id').where('user_id', '=', other.user_id).execute();
    assert.deepEqual(await store.receiptChainBreaks(db), []);
    const wrong = await db
      .insertInto('receipts')
      .values({ book: 'live', contribution_id: contribution, user_id: user.user_id, replaces_id: theirs?.id ?? 0, issued_at: new Date().toISOString(), body: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(await store.receiptChainBreaks(db), [{ id: wrong.id, replaces_id: theirs?.id }]);
  });

  test('each sees a wrong row as it is: an unbalanced entry, a wrong cache, a crossing, a stale count, a word size, a key of the other book', async () => {
    const { deps } = env();
    const { db } = deps;
    const user = await makeUser(deps);
    await fund(deps, user, 1_000);
    const lines = await db
      .selectFrom('postings as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select(['p.id', 'p.entry_id', 'a.fund_id'])
      .where('p.entry_id', '=', (eb) => eb.selectFrom('journal_entries').select((e) => e.fn.max('id').as('id')))
      .execute();
    const mine = lines.find((l) => l.fund_id === user.fund_id);
    const outside = lines.find((l) => l.fund_id === null);
    assert.ok(mine !== undefined && outside !== undefined);
    await db.updateTable('postings').set({ amount_cents: 999 }).where('id', '=', mine.id).execute();
    assert.deepEqual(
      (await store.entrySums(db)).find((s) => s.entry_id === mine.entry_id),
      { entry_id: mine.entry_id, postings: 2, sum: -1n },
    );
    const account = (await store.accountsWithPostings(db)).find((a) => a.fund_id === user.fund_id && a.kind === 'available');
    assert.deepEqual([account?.balance, account?.postings], [1_000n, 999n]);
    await db.updateTable('ledger_accounts').set({ balance_cents: 1_001 }).where('fund_id', '=', user.fund_id).where('kind', '=', 'available').execute();
    assert.deepEqual(
      (await store.bookSums(db)).find((b) => b.book === 'live'),
      { book: 'live', sum: 1n },
    );
    // A posting on the other book's account: the database refuses it (013_books), so it is made with the checks off, as a corrupt copy would be.
    const testDeposits = (
      await db.selectFrom('ledger_accounts').select('id').where('fund_id', 'is', null).where('book', '=', 'test').where('kind', '=', 'deposits').executeTakeFirstOrThrow()
    ).id;
    await assert.rejects(db.updateTable('postings').set({ account_id: testDeposits }).where('id', '=', outside.id).execute());
    await withoutForeignKeys(env(), (c) => c.updateTable('postings').set({ account_id: testDeposits }).where('id', '=', outside.id).execute());
    assert.deepEqual(await store.postingsAcrossBooks(db), [{ entry_id: mine.entry_id, entry_book: 'live', account_id: testDeposits, account_book: 'test' }]);
    await db
      .insertInto('donation_counts')
      .values({ user_id: user.user_id, total: 5, public_total: 0 })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ total: 5 }))
      .execute();
    assert.deepEqual(
      (await store.donationCounts(db, [])).find((c) => c.user_id === user.user_id),
      { user_id: user.user_id, total: 5, public_total: 0, actual: 0, actual_public: 0 },
    );
    await makeNonProfit(deps, { ein: '500000002', name: 'Sized Org', income_amt: 10 });
    await db
      .updateTable('non_profit_words')
      .set({ size: 11 })
      .where('non_profit_id', '=', (eb) => eb.selectFrom('non_profits').select('id').where('ein', '=', '500000002'))
      .execute();
    assert.ok((await store.wrongWordSizes(db)).some((w) => w.ein === '500000002' && w.size === 11 && w.income_amt === 10));
    await db.updateTable('api_keys').set({ mode: 'test' }).where('user_id', '=', user.user_id).execute();
    assert.ok((await store.bookMismatches(db)).some((m) => m.name === 'API key' && m.own === 'test' && m.other === 'live' && m.what === 'its user'));
    assert.deepEqual(await store.reservedAndHeld(db, []).then((all) => all.find((f) => f.fund_id === user.fund_id)), { fund_id: user.fund_id, reserved: 0n, held: 0n });
  });

  test('apps: monthsPastLimit and appsMovedUncounted read what each app moved against what it was counted for', async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '500000003', name: 'Counted Charity', income_amt: 0 });
    const user = await makeUser(deps);
    await fund(deps, user, 100_000);
    const tokens = await connectApp(deps, user.user_id, { scopes: ['read', 'donate', 'gifts'], monthlyLimitCents: 5_000 });
    const bearer = { authorization: `Bearer ${tokens.accessToken}` };
    assert.equal((await call(app, 'POST', '/v1/donations', { headers: bearer, body: { ein: '500000003', amount: 20 } })).status, 201);
    assert.equal((await call(app, 'POST', '/v1/gifts', { headers: bearer, body: { name: 'Dev', amount: 18 } })).status, 201);
    assert.deepEqual(await store.monthsPastLimit(db), []);
    assert.deepEqual(await store.appsMovedUncounted(db), []);
    const connection = await db.selectFrom('app_spending').select(['connection_id', 'month']).executeTakeFirstOrThrow();
    // Money moved past what was counted: the count written down, then the limit.
    await db.updateTable('app_spending').set({ spent_cents: 2_999 }).where('connection_id', '=', connection.connection_id).execute();
    assert.deepEqual(await store.appsMovedUncounted(db), [{ connection_id: connection.connection_id, moved: 3_800n, counted: 2_999n }]);
    await db.updateTable('app_spending').set({ spent_cents: 5_001 }).where('connection_id', '=', connection.connection_id).execute();
    assert.deepEqual(await store.monthsPastLimit(db), [{ connection_id: connection.connection_id, month: connection.month, spent: 5_001n, limit: 5_000n }]);
    await db.updateTable('app_spending').set({ spent_cents: 3_800 }).where('connection_id', '=', connection.connection_id).execute();
  });

  test("apps: a sandbox user's app or connection, and a connection past its limit, are seen as they are", async () => {
    const { deps } = env();
    const { db } = deps;
    const user = await makeUser(deps);
    const tokens = await connectApp(deps, user.user_id, { scopes: ['read', 'donate'], monthlyLimitCents: 5_000 });
    const sandbox = await connectApp(deps, user.user_id, { scopes: ['read'], book: 'test' });
    assert.deepEqual(await store.appsOfSandboxUsers(db), []);
    assert.deepEqual(await store.connectionsPastLimit(db), []);
    const app = await db.selectFrom('apps').select('id').where('client_id', '=', tokens.clientId).executeTakeFirstOrThrow();
    const connection = await db.selectFrom('app_connections').select('id').where('app_id', '=', app.id).executeTakeFirstOrThrow();
    await db.updateTable('app_connections').set({ spent_cents: 5_001 }).where('id', '=', connection.id).execute();
    assert.deepEqual(await store.connectionsPastLimit(db), [{ id: connection.id, spent: 5_001n, limit: 5_000n }]);
    await db.updateTable('app_connections').set({ spent_cents: -1, monthly_limit_cents: null }).where('id', '=', connection.id).execute();
    assert.deepEqual(await store.connectionsPastLimit(db), [{ id: connection.id, spent: -1n, limit: null }]);
    // The twin a sandbox app acts for, put where only a live user may be.
    const twin = await db.selectFrom('users').select('id').where('book', '=', 'test').where('sandbox_of', '=', user.user_id).executeTakeFirstOrThrow();
    const sandboxApp = await db.selectFrom('apps').select('id').where('client_id', '=', sandbox.clientId).executeTakeFirstOrThrow();
    await db.updateTable('apps').set({ owner_id: twin.id }).where('id', '=', sandboxApp.id).execute();
    await db.updateTable('app_connections').set({ user_id: twin.id }).where('id', '=', connection.id).execute();
    assert.deepEqual(await store.appsOfSandboxUsers(db), [
      { what: 'app', id: sandboxApp.id, user_id: twin.id },
      { what: 'app connection', id: connection.id, user_id: twin.id },
    ]);
  });

  test('danglingReferences: a donation, entry, posting, event, count, key record or search word naming a row that does not exist (what the keys dropped by migrations 023, 025 and 066 refused, and what an import on SQLite does not check)', async () => {
    const { deps, app } = env();
    const { db } = deps;
    const { engine } = env();
    await makeNonProfit(deps, { ein: '500000009', name: 'Referenced Charity', income_amt: 0 });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '500000009', amount: 25 } });
    assert.equal(made.status, 201);
    assert.deepEqual(await store.danglingReferences(db), []);
    const entry = await db.selectFrom('journal_entries').select('id').where('donation_id', '=', made.body.id).executeTakeFirstOrThrow();
    // SQLite still refuses them (its keys stay); PostgreSQL no longer does, and the check must see them.
    await db.connection().execute(async (c) => {
      if (engine === 'sqlite') await sql.raw('pragma foreign_keys = off').execute(c);
      await c.updateTable('donations').set({ non_profit_id: 999_999_001 }).where('id', '=', made.body.id).execute();
      await c.updateTable('journal_entries').set({ donation_id: 999_999_002 }).where('id', '=', entry.id).execute();
      await c.updateTable('events').set({ user_id: 999_999_003 }).where('user_id', '=', user.user_id).execute();
      const at = new Date().toISOString();
      await c
        .insertInto('idempotency_keys')
        .values({
          user_id: 999_999_007,
          key: 'of-no-user',
          request_hash: 'h',
          state: 'done',
          response_status: 201,
          response_body: '{}',
          locked_until: at,
          created_at: at,
          claim_token: 't',
          resource: null,
        })
        .execute();
      if (engine === 'sqlite') await sql.raw('pragma foreign_keys = on').execute(c);
    });
    // A search word of no organisation: refused by both engines' keys, but an import loads words
    // with SQLite's checks off (bulkLoad). A posting of no entry on no account: refused by
    // both engines (PostgreSQL's triggers of migration 025, SQLite's keys). Both are made with
    // the checks off, as a corrupt copy would be.
    const orphan = { word: 'orphan', non_profit_id: 999_999_004, kind: 'n', size: 0 };
    await assert.rejects(db.insertInto('non_profit_words').values(orphan).execute());
    const stray = { entry_id: 999_999_005, account_id: 999_999_006, amount_cents: 1, book: 'live' as const };
    await assert.rejects(db.insertInto('postings').values(stray).execute(), engine === 'postgres' ? { code: '23503' } : /FOREIGN KEY/);
    await withoutForeignKeys(env(), async (c) => {
      await c.insertInto('non_profit_words').values(orphan).execute();
      await c.insertInto('postings').values(stray).execute();
    });
    assert.deepEqual(await store.danglingReferences(db), [
      { table: 'donations', column: 'non_profit_id', target: 'non_profits', value: 999_999_001 },
      { table: 'journal_entries', column: 'donation_id', target: 'donations', value: 999_999_002 },
      { table: 'postings', column: 'entry_id', target: 'journal_entries', value: 999_999_005 },
      { table: 'postings', column: 'account_id', target: 'ledger_accounts', value: 999_999_006 },
      { table: 'events', column: 'user_id', target: 'users', value: 999_999_003 },
      { table: 'idempotency_keys', column: 'user_id', target: 'users', value: 999_999_007 },
      { table: 'non_profit_words', column: 'non_profit_id', target: 'non_profits', value: 999_999_004 },
    ]);
    const { ok, text } = formatCheck(await runCheck(deps));
    assert.equal(ok, false);
    assert.match(text, /donations\.non_profit_id names non_profits 999999001, which does not exist/);
    assert.match(text, /non_profit_words\.non_profit_id names non_profits 999999004, which does not exist/);
    assert.match(text, /postings\.entry_id names journal_entries 999999005, which does not exist/);
    assert.match(text, /postings\.account_id names ledger_accounts 999999006, which does not exist/);
    assert.match(text, /idempotency_keys\.user_id names users 999999007, which does not exist/);
  });

  test("rows: a statement's rows as objects by column, on either engine (the payments' store reads with it too)", async () => {
    assert.deepEqual(await store.rows(env().deps.db, "select 'x' as word, 2 as n union all select 'y', 3 order by word"), [
      { word: 'x', n: 2 },
      { word: 'y', n: 3 },
    ]);
  });

  test('check runs: none, then the latest kept', async () => {
    const { db } = env().deps;
    await db.deleteFrom('check_runs').execute();
    assert.equal(await store.lastCheckRun(db), undefined);
    const first = { finished_at: '2026-11-27T01:00:00.000Z', duration_ms: 120, failed: 2, checked: 16, release: '0.1.0' };
    const second = { ...first, finished_at: '2026-11-27T02:00:00.000Z', failed: 0 };
    await store.recordCheckRun(db, first);
    await store.recordCheckRun(db, second);
    assert.deepEqual(await store.lastCheckRun(db), second);
  });
});
