// Sandbox and live are two books (rules §14): the database refuses an
// entry spanning them, the web and the operators stay in the live book unless
// asked, and `almoner check` finds a database corrupted either way, summing
// exactly whatever it finds.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import {
  engines,
  openEnv,
  makeUser,
  fund,
  fundSandbox,
  makeNonProfit,
  call,
  fingerprint,
  assertLedgerBalanced,
  withoutForeignKeys,
  type TestEnv,
  type TestUser,
} from './harness.ts';
import { WebClient } from './web-client.ts';
import { formatCheck, runCheck } from '../src/modules/check/index.ts';
import { lockFundAccounts, postEntry } from '../src/modules/ledger/index.ts';
import { createAdminToken } from '../src/modules/admin/admin.service.ts';

const EIN = '261544963';

for (const { name: engine } of engines()) {
  describe(`two books on ${engine}`, () => {
    let env: TestEnv;
    let bob: TestUser;
    let bobTest: string;
    let operator: string;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      bob = await makeUser(env.deps, { name: 'Bob' });
      await fund(env.deps, bob, 500_000);
      const k = await call(env.app, 'POST', '/v1/api_keys', { key: bob.key, body: { name: 'sandbox', mode: 'test' } });
      bobTest = k.body.key;
      await fundSandbox(env.app, bobTest, 1000);
      operator = (await createAdminToken(env.deps, 'books test', 'test')).token;
    });
    after(async () => env.close());

    const accountsOf = async (key: string) => {
      const me = await call(env.app, 'GET', '/v1/users/me', { key });
      return env.deps.db.transaction().execute((trx) => lockFundAccounts(trx, me.body.current_fund.id));
    };

    test('the database refuses a journal entry whose postings span the books, whatever book it claims', async () => {
      const live = await accountsOf(bob.key);
      const sandbox = await accountsOf(bobTest);
      assert.equal(live.book, 'live');
      assert.equal(sandbox.book, 'test');
      const before = await fingerprint(env.deps);
      const gift = await call(env.app, 'POST', '/v1/gifts', { key: bobTest, body: { name: 'Bob', amount: 300 } });
      const afterGift = await fingerprint(env.deps);
      for (const book of ['live', 'test'] as const) {
        await assert.rejects(
          env.deps.db.transaction().execute(async (trx) => {
            const at = new Date().toISOString();
            const giftRow = await trx.selectFrom('gifts').select('id').where('code', '=', gift.body.code).executeTakeFirstOrThrow();
            await postEntry(
              trx,
              { book, memo: 'sandbox money into a live fund', gift_id: giftRow.id },
              [{ from_account_id: sandbox.ids.reserved, to_account_id: live.ids.available, amount_cents: 30_000 }],
              at,
            );
          }),
          `an entry claiming the ${book} book`,
        );
      }
      assert.deepEqual(await fingerprint(env.deps), afterGift, 'nothing was written');
      assert.notDeepEqual(before, afterGift);
      await assertLedgerBalanced(env.deps);
    });

    test("the review's attack: a sandbox gift accepted with a live key is not found, and no live money appears", async () => {
      const gift = await call(env.app, 'POST', '/v1/gifts', { key: bobTest, body: { name: 'Bob', amount: 300 } });
      assert.equal(gift.status, 201);
      const balance = await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key });
      const before = await fingerprint(env.deps);
      for (const action of ['accept', 'deny']) {
        const res = await call(env.app, 'POST', `/v1/gifts/${gift.body.code}/${action}`, { key: bob.key });
        assert.equal(res.status, 404, action);
        assert.equal(res.body.code, 'gift_not_found');
      }
      const claim = await call(env.app, 'POST', `/v1/gifts/${gift.body.code}/claim`, { key: bob.key, body: { ein: EIN } });
      assert.equal(claim.status, 404);
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.deepEqual((await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key })).body, balance.body);
      await assertLedgerBalanced(env.deps);
    });

    test('on the web, a sandbox gift has no page and no signed-in user can accept, claim or deny it', async () => {
      const gift = await call(env.app, 'POST', '/v1/gifts', { key: bobTest, body: { name: 'Someone', amount: 18 } });
      const anonymous = new WebClient(env.app);
      assert.equal((await anonymous.get(`/gifts/${gift.body.code}`)).status, 404);
      const browser = new WebClient(env.app);
      await browser.signUp('Web Visitor', `visitor-${engine}@example.org`);
      assert.equal((await browser.get(`/gifts/${gift.body.code}`)).status, 404);
      await browser.get('/dashboard');
      const before = await fingerprint(env.deps);
      for (const [action, fields] of [
        ['accept', {}],
        ['deny', {}],
        ['claim', { ein: EIN }],
      ] as const) {
        const res = await browser.post(`/gifts/${gift.body.code}/${action}`, fields);
        assert.equal(res.status, 404, action);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      // A live gift's page works as before for the same visitor.
      const liveGift = await call(env.app, 'POST', '/v1/gifts', { key: bob.key, body: { name: 'Someone', amount: 18 } });
      assert.equal((await browser.get(`/gifts/${liveGift.body.code}`)).status, 200);
    });

    test('a sandbox key made on the web belongs to the sandbox twin and acts in the test book', async () => {
      const browser = new WebClient(env.app);
      await browser.signUp('Key Maker', `keys-${engine}@example.org`);
      await browser.get('/settings/keys');
      const posted = await browser.post('/settings/keys', { name: 'Sandbox app', mode: 'test' });
      assert.equal(posted.status, 303);
      const page = await browser.get('/settings/keys');
      const key = /alm_test_[0-9A-Za-z]{40}/.exec(page.body)?.[0];
      assert.ok(key !== undefined, 'the new key is shown once');
      const me = await call(env.app, 'GET', '/v1/users/me', { key });
      assert.equal(me.status, 200);
      assert.match(me.body.slug, /-sandbox$/);
      const deposit = await call(env.app, 'POST', '/v1/sandbox/deposits', { key, body: { amount: 50 } });
      assert.equal(deposit.status, 201, 'a sandbox key may use the sandbox');
      const id = /\/settings\/keys\/(\d+)/.exec((await browser.get('/settings/keys')).body)?.[1];
      assert.ok(id !== undefined, "the sandbox key is listed in the owner's settings");
      assert.equal((await browser.post(`/settings/keys/${id}/revoke`, {})).status, 303);
      assert.equal((await call(env.app, 'GET', '/v1/users/me', { key })).status, 401, 'and revoked from there');
    });

    test('operators act on live money: batches and lists skip the sandbox unless it is asked for', async () => {
      const auth = { authorization: `Bearer ${operator}` };
      const liveDonation = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 10, ein: EIN } });
      const testDonation = await call(env.app, 'POST', '/v1/donations', { key: bobTest, body: { amount: 10, ein: EIN } });
      for (const d of [liveDonation, testDonation]) assert.equal(d.body.status, 'scheduled');
      // One at a time: the sandbox one is not found in the live book.
      const approveTest = await call(env.app, 'POST', `/admin/v1/donations/${testDonation.body.id}/approve`, { headers: auth });
      assert.equal(approveTest.status, 404);
      assert.equal(approveTest.body.code, 'donation_not_found');
      assert.equal((await call(env.app, 'POST', `/admin/v1/donations/${liveDonation.body.id}/approve`, { headers: auth })).status, 200);
      assert.equal((await call(env.app, 'POST', `/admin/v1/donations/${testDonation.body.id}/approve?book=test`, { headers: auth })).status, 200);
      // "Pay every approved donation" pays the live ones only.
      const paid = await call(env.app, 'POST', '/admin/v1/donations/batch', { headers: auth, body: { event: 'pay', status: 'approved' } });
      assert.equal(paid.status, 200);
      assert.ok(paid.body.done.includes(liveDonation.body.id));
      assert.ok(!paid.body.done.includes(testDonation.body.id));
      assert.equal((await call(env.app, 'GET', `/v1/donations/${testDonation.body.id}`, { key: bobTest })).body.status, 'approved');
      const listed = await call(env.app, 'POST', '/admin/v1/donations/batch', { headers: auth, body: { event: 'pay', ids: [testDonation.body.id] } });
      assert.deepEqual(listed.body.skipped, [{ id: testDonation.body.id, code: 'donation_not_found' }], 'listed ids too');
      const sandboxPaid = await call(env.app, 'POST', '/admin/v1/donations/batch?book=test', { headers: auth, body: { event: 'pay', status: 'approved' } });
      assert.ok(sandboxPaid.body.done.includes(testDonation.body.id));
      // Users: the twins are not live users.
      const twinId = (await call(env.app, 'GET', '/v1/users/me', { key: bobTest })).body.id;
      const users = await call(env.app, 'GET', '/admin/v1/users?per_page=100', { headers: auth });
      assert.ok(
        users.body.items.every((u: { slug: string }) => !u.slug.endsWith('-sandbox')),
        'live users only',
      );
      assert.ok(users.body.items.some((u: { id: number }) => u.id === bob.user_id));
      const twins = await call(env.app, 'GET', '/admin/v1/users?book=test', { headers: auth });
      assert.ok(twins.body.items.some((u: { id: number }) => u.id === twinId));
      assert.ok(
        twins.body.items.every((u: { slug: string }) => u.slug.endsWith('-sandbox')),
        'twins only',
      );
      const before = await fingerprint(env.deps);
      for (const [method, url, body] of [
        ['POST', `/admin/v1/users/${twinId}/suspend`, undefined],
        ['GET', `/admin/v1/users/${twinId}/statement`, undefined],
        ['POST', '/admin/v1/contributions', { user_id: twinId, type: 'wire_payment', units: '100', valuation: '1', currency: 'USD' }],
        ['POST', `/admin/v1/users/${twinId}/portfolio`, { move: 'invest', amount: 10 }],
        ['GET', `/admin/v1/users/${bob.user_id}/statement?book=test`, undefined],
      ] as const) {
        const res = await call(env.app, method, url, { headers: auth, ...(body === undefined ? {} : { body }) });
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(res.body.code, 'user_not_found');
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await call(env.app, 'GET', `/admin/v1/users/${twinId}/statement?book=test`, { headers: auth })).status, 200);
      // The audit log too: the live book's by default, the sandbox's when asked.
      const audit = await call(env.app, 'GET', '/admin/v1/audit?per_page=100', { headers: auth });
      assert.ok(audit.body.items.some((e: { object_id: number; action: string }) => e.object_id === liveDonation.body.id && e.action === 'donation.approve'));
      assert.ok(
        !audit.body.items.some((e: { object_id: number; object_type: string }) => e.object_type === 'donation' && e.object_id === testDonation.body.id),
        'no sandbox donation',
      );
      assert.ok(!audit.body.items.some((e: { actor: string }) => e.actor === 'sandbox'), 'nothing the sandbox did');
      const sandboxAudit = await call(env.app, 'GET', '/admin/v1/audit?book=test&per_page=100', { headers: auth });
      assert.ok(sandboxAudit.body.items.some((e: { object_id: number; action: string }) => e.object_id === testDonation.body.id && e.action === 'donation.approve'));
      assert.ok(sandboxAudit.body.items.some((e: { actor: string }) => e.actor === 'sandbox'));
      await assertLedgerBalanced(env.deps);
    });

    test('suspending a user stops their sandbox keys and web sessions at once; reactivating restores them', async () => {
      const auth = { authorization: `Bearer ${operator}` };
      const carol = await makeUser(env.deps, { name: 'Carol' });
      const k = await call(env.app, 'POST', '/v1/api_keys', { key: carol.key, body: { name: 'sandbox', mode: 'test' } });
      assert.equal((await call(env.app, 'POST', `/admin/v1/users/${carol.user_id}/suspend`, { headers: auth })).status, 200);
      const before = await fingerprint(env.deps);
      for (const [method, url, body] of [
        ['GET', '/v1/users/me/balance', undefined],
        ['POST', '/v1/gifts', { name: 'X', amount: 18 }],
        ['POST', '/v1/api_keys', { name: 'more' }],
      ] as const) {
        for (const key of [carol.key, k.body.key]) {
          const res = await call(env.app, method, url, { key, ...(body === undefined ? {} : { body }) });
          assert.equal(res.status, 403, `${method} ${url}`);
          assert.equal(res.body.code, 'forbidden');
        }
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await call(env.app, 'POST', `/admin/v1/users/${carol.user_id}/reactivate`, { headers: auth })).status, 200);
      assert.equal((await call(env.app, 'GET', '/v1/users/me/balance', { key: k.body.key })).status, 200);
    });

    test('almoner check finds an entry that spans the books and objects in the wrong book', async () => {
      const isolated = await openEnv(engine);
      try {
        await makeNonProfit(isolated.deps, { ein: EIN, name: 'Vermont Foodbank' });
        const user = await makeUser(isolated.deps, { name: 'Dana' });
        await fund(isolated.deps, user, 100_000);
        const k = await call(isolated.app, 'POST', '/v1/api_keys', { key: user.key, body: { name: 'sandbox', mode: 'test' } });
        await call(isolated.app, 'POST', '/v1/sandbox/deposits', { key: k.body.key, body: { amount: 100 } });
        const liveGift = await call(isolated.app, 'POST', '/v1/gifts', { key: user.key, body: { name: 'E', amount: 18 } });
        await assertLedgerBalanced(isolated.deps);
        const check = async () => formatCheck(await runCheck(isolated.deps));
        // One way: an object says it is in the other book.
        await isolated.deps.db.updateTable('gifts').set({ book: 'test' }).where('code', '=', liveGift.body.code).execute();
        let result = await check();
        assert.equal(result.ok, false);
        assert.match(result.text, /FAIL {2}every object is in the book of its user, fund and accounts/);
        assert.match(result.text, /gift \d+ is in the test book, its fund in the live book/);
        await isolated.deps.db.updateTable('gifts').set({ book: 'live' }).where('code', '=', liveGift.body.code).execute();
        assert.equal((await check()).ok, true);
        // The other way: a posting moved onto the other book's account, past the database's own guard.
        const sandboxDeposits = await isolated.deps.db
          .selectFrom('ledger_accounts')
          .select('id')
          .where('fund_id', 'is', null)
          .where('kind', '=', 'deposits')
          .where('book', '=', 'test')
          .executeTakeFirstOrThrow();
        const livePosting = await isolated.deps.db
          .selectFrom('postings as p')
          .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
          .select('p.id')
          .where('a.fund_id', 'is', null)
          .where('a.kind', '=', 'deposits')
          .where('a.book', '=', 'live')
          .executeTakeFirstOrThrow();
        await withoutForeignKeys(isolated, (db) => sql`update postings set account_id = ${sandboxDeposits.id} where id = ${livePosting.id}`.execute(db));
        result = await check();
        assert.equal(result.ok, false);
        assert.match(result.text, /FAIL {2}no journal entry has postings in two books/);
        assert.match(result.text, /journal entry \d+ \(live\) has a posting on account \d+ of the test book/);
      } finally {
        await isolated.close();
      }
    });

    test('almoner check sums exactly past 64 bits and reports, never crashes, on data it cannot represent', async () => {
      const isolated = await openEnv(engine);
      try {
        const user = await makeUser(isolated.deps, { name: 'Huge' });
        await fund(isolated.deps, user, 1_000);
        const accounts = await isolated.deps.db.transaction().execute((trx) => lockFundAccounts(trx, user.fund_id));
        const contribution = await isolated.deps.db.selectFrom('contributions').select('id').where('user_id', '=', user.user_id).executeTakeFirstOrThrow();
        // An entry whose postings only balance as exact integers: each half sums past 2^63.
        const huge = 9_000_000_000_000_000_000n;
        await withoutForeignKeys(isolated, async (db) => {
          const entry = await sql<{
            id: number;
          }>`insert into journal_entries (memo, contribution_id, created_at, book) values ('corrupt', ${contribution.id}, '2026-01-01T00:00:00.000Z', 'live') returning id`.execute(
            db,
          );
          const entryId = entry.rows[0]?.id;
          // Waiting for its place: on SQLite named so by migration 060's trigger (off here on PostgreSQL,
          // where the entry waits by the txid its row was given, migration 063).
          if (engine === 'sqlite') await sql`insert into ledger_waiting (book, entry_id) values ('live', ${entryId}) on conflict do nothing`.execute(db);
          for (const [account, cents] of [
            [accounts.ids.portfolio, huge],
            [accounts.ids.portfolio, huge],
            [accounts.ids.reserved, -huge],
            [accounts.ids.reserved, -huge],
          ] as const) {
            await sql`insert into postings (entry_id, account_id, amount_cents, book) values (${entryId}, ${account}, ${sql.raw(String(cents))}, 'live')`.execute(db);
          }
          await sql`update ledger_accounts set balance_cents = ${sql.raw(String(huge))} where id = ${accounts.ids.pending_deposit}`.execute(db);
        });
        const { ok, text } = formatCheck(await runCheck(isolated.deps));
        assert.equal(ok, false);
        assert.match(text, /ok {4}every journal entry balances/, 'the entry balances exactly');
        assert.match(text, new RegExp(`fund ${user.fund_id} portfolio: balance 0 but its postings sum to 18000000000000000000`));
        assert.match(text, new RegExp(`fund ${user.fund_id} pending_deposit: balance 9000000000000000000 is beyond the exact range`));
        assert.match(text, /journal entry \d+ \(live, not yet in the log\): an amount beyond the exact range cannot be encoded/);
        assert.doesNotMatch(text, /could not be checked/);
      } finally {
        await isolated.close();
      }
    });
  });
}
