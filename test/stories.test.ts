// Stories: each flow of rules §7 end to end, users through the public API
// and operators through /admin/v1, with the journal after each step asserted
// as a table. The database is kept (test-results/stories.sqlite, schema
// `stories`) for `almoner check` in CI.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, makeNonProfit, call, journalSince, balancesOf, assertLedgerBalanced, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/admin.service.ts';
import { checkpoint } from '../src/modules/ledger/index.ts';
import { runScheduler } from '../src/modules/scheduled/scheduled.service.ts';
import { viewGift } from '../src/modules/gifts/index.ts';

for (const { name: engine } of engines()) {
  describe(`stories on ${engine}`, () => {
    let env: TestEnv;
    let op: string;
    let ada: TestUser;
    let grace: TestUser;
    let entry = 0;
    const clock = new TestClock('2026-01-31T09:00:00.000Z');

    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${op}` }, ...(body === undefined ? {} : { body }) });
    /** The journal lines written since the last step. */
    const step = async () => {
      const { text, last } = await journalSince(env.deps, entry);
      entry = last;
      return text;
    };
    const lines = (...rows: string[]) => rows.join('\n');

    before(async () => {
      env = await openEnv(engine, {}, { clock, keepAs: 'stories' });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      await makeNonProfit(env.deps, { ein: '030179298', name: 'Middlebury College' });
      op = (await createAdminToken(env.deps, 'story operator', 'test')).token;
      ada = await makeUser(env.deps, { name: 'Ada', slug: 'ada' });
      grace = await makeUser(env.deps, { name: 'Grace', slug: 'grace' });
    });
    after(async () => env.close());

    test('a contribution clears, the waiting donation is promoted, approved, mailed as a check, and the check voided', async () => {
      const d = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 100, ein: '261544963' } });
      assert.equal(d.body.status, 'waiting_for_funds');
      assert.equal(await step(), '');

      const c = await admin('POST', '/contributions', { user_id: ada.user_id, type: 'check_payment', units: '150', valuation: '1', currency: 'USD' });
      assert.equal(c.status, 201);
      assert.equal(await step(), lines('deposits                    -150.00  contribution pending', 'ada.pending_deposit          150.00  contribution pending'));
      assert.equal(await balancesOf(env.deps, ada.fund_id), 'pending_deposit 150.00 | available 0.00 | reserved 0.00 | portfolio 0.00');

      assert.equal((await admin('POST', `/contributions/${c.body.id}/advance`, { status: 'success' })).status, 200);
      assert.equal(
        await step(),
        lines(
          'ada.pending_deposit         -150.00  contribution success',
          'ada.available                150.00  contribution success',
          'ada.available               -100.00  donation scheduled: hold',
          'ada.reserved                 100.00  donation scheduled: hold',
        ),
      );
      assert.equal((await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: ada.key })).body.status, 'scheduled');

      assert.deepEqual((await admin('POST', `/donations/${d.body.id}/approve`)).body, { id: d.body.id, status: 'approved' });
      assert.equal(await step(), '');

      clock.advance(86_400_000);
      assert.equal((await admin('POST', `/donations/${d.body.id}/mail_check`)).body.status, 'check_mailed');
      assert.equal(await step(), lines('ada.reserved                -100.00  donation mail check', 'grants_paid                  100.00  donation mail check'));
      const mailed = await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: ada.key });
      assert.equal(mailed.body.mailed_at, '2026-02-01T09:00:00.000Z');

      assert.equal((await admin('POST', `/donations/${d.body.id}/void_check`)).body.status, 'not_completed');
      assert.equal(await step(), lines('grants_paid                 -100.00  donation void check', 'ada.available                100.00  donation void check'));
      assert.equal(await balancesOf(env.deps, ada.fund_id), 'pending_deposit 0.00 | available 150.00 | reserved 0.00 | portfolio 0.00');

      const audit = await admin('GET', `/audit?object_type=donation&object_id=${d.body.id}`);
      assert.deepEqual(
        audit.body.items.map((a: { action: string; actor: string }) => `${a.actor} ${a.action}`),
        ['admin:story operator donation.void_check', 'admin:story operator donation.mail_check', 'admin:story operator donation.approve'],
      );
      assert.deepEqual(audit.body.items[0].before, { status: 'check_mailed' });
      const events = await call(env.app, 'GET', '/v1/events', { key: ada.key });
      assert.deepEqual(
        events.body.items.filter((e: { object_type: string }) => e.object_type === 'donation').map((e: { data: { status: string } }) => e.data.status),
        ['not_completed', 'check_mailed', 'approved', 'scheduled', 'waiting_for_funds'],
      );
    });

    test("a gift is claimed to a non-profit: the hold becomes a donation from the giver's fund", async () => {
      await admin('POST', '/contributions', { user_id: grace.user_id, type: 'wire_payment', units: '500', valuation: '1', currency: 'USD', status: 'success' });
      await step();
      const g = await call(env.app, 'POST', '/v1/gifts', { key: grace.key, body: { name: 'Ada', amount: 50, message: 'For you' } });
      assert.equal(await step(), lines('grace.available              -50.00  gift created: hold', 'grace.reserved                50.00  gift created: hold'));
      const own = await call(env.app, 'POST', `/v1/gifts/${g.body.code}/claim`, { key: grace.key, body: { ein: '261544963' } });
      assert.equal(own.status, 403, 'the giver cannot claim their own gift');
      const claimed = await call(env.app, 'POST', `/v1/gifts/${g.body.code}/claim`, { key: ada.key, body: { ein: '26-1544963' } });
      assert.equal(claimed.status, 200);
      assert.equal(claimed.body.status, 'claimed');
      assert.equal(claimed.body.claimed, true);
      assert.equal(claimed.body.seen, true);
      assert.equal(claimed.body.ein, '261544963');
      assert.equal(
        await step(),
        lines(
          'grace.reserved               -50.00  gift claimed: hold released',
          'grace.available               50.00  gift claimed: hold released',
          'grace.available              -50.00  donation scheduled from a gift: hold',
          'grace.reserved                50.00  donation scheduled from a gift: hold',
        ),
      );
      const donations = await call(env.app, 'GET', '/v1/donations', { key: grace.key });
      assert.equal(donations.body.items[0].note, 'Gift to Ada');
      assert.equal(donations.body.items[0].status, 'scheduled');
      assert.equal(donations.body.items[0].amount, 50);
      const again = await call(env.app, 'POST', `/v1/gifts/${g.body.code}/deny`, { key: ada.key });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'invalid_transition');
    });

    test('the first view of a gift by anyone but its giver sets seen', async () => {
      const g = await call(env.app, 'POST', '/v1/gifts', { key: grace.key, body: { name: 'Ada', amount: 18 } });
      await step();
      assert.equal((await viewGift(env.deps, { user_id: grace.user_id, book: 'live' }, g.body.code)).seen, false, 'the giver looking does not count');
      assert.equal((await viewGift(env.deps, { user_id: null, book: 'live' }, g.body.code)).seen, true, 'an anonymous visitor of the gift page');
      assert.equal((await call(env.app, 'GET', `/v1/gifts/${g.body.code}`, { key: grace.key })).body.seen, true);
      await call(env.app, 'POST', `/v1/gifts/${g.body.code}/deny`, { key: ada.key });
      await step();
    });

    test('a gift is denied: the money goes back to the giver', async () => {
      const g = await call(env.app, 'POST', '/v1/gifts', { key: grace.key, body: { name: 'Ada', amount: 20 } });
      await step();
      const denied = await call(env.app, 'POST', `/v1/gifts/${g.body.code}/deny`, { key: ada.key });
      assert.equal(denied.body.status, 'denied');
      assert.equal(denied.body.claimed, false);
      assert.equal(await step(), lines('grace.reserved               -20.00  gift denied: hold released', 'grace.available               20.00  gift denied: hold released'));
    });

    test("a gift is accepted into the recipient's fund", async () => {
      const g = await call(env.app, 'POST', '/v1/gifts', { key: grace.key, body: { name: 'Ada', amount: 30 } });
      await step();
      const accepted = await call(env.app, 'POST', `/v1/gifts/${g.body.code}/accept`, { key: ada.key });
      assert.equal(accepted.body.status, 'accepted');
      assert.equal(accepted.body.claimed, true);
      assert.equal(await step(), lines('grace.reserved               -30.00  gift accepted', 'ada.available                 30.00  gift accepted'));
      assert.equal(await balancesOf(env.deps, ada.fund_id), 'pending_deposit 0.00 | available 180.00 | reserved 0.00 | portfolio 0.00');
    });

    test('an operator invests and liquidates: portfolio_balance is real', async () => {
      assert.equal((await admin('POST', `/users/${ada.user_id}/portfolio`, { move: 'invest', amount: 80 })).status, 200);
      const audit = await env.deps.db.selectFrom('audit_log').select('id').where('action', '=', 'portfolio.invest').executeTakeFirstOrThrow();
      assert.equal(
        await step(),
        lines(`ada.available                -80.00  portfolio invest (audit ${audit.id})`, `ada.portfolio                 80.00  portfolio invest (audit ${audit.id})`),
      );
      const balance = await call(env.app, 'GET', '/v1/users/me/balance', { key: ada.key });
      assert.deepEqual(balance.body, { amount: 180, pending_deposit_balance: 0, portfolio_balance: 80, available_balance: 100 });
      const tooMuch = await admin('POST', `/users/${ada.user_id}/portfolio`, { move: 'liquidate', amount: 80.01 });
      assert.equal(tooMuch.status, 422);
      assert.equal(tooMuch.body.code, 'insufficient_funds');
      await admin('POST', `/users/${ada.user_id}/portfolio`, { move: 'liquidate', amount: 30 });
      await step();
      assert.equal(await balancesOf(env.deps, ada.fund_id), 'pending_deposit 0.00 | available 130.00 | reserved 0.00 | portfolio 50.00');
    });

    test('a recurring donation, month over month, made once per date however often the scheduler runs', async () => {
      const s = await call(env.app, 'POST', '/v1/scheduled_donations', { key: ada.key, body: { ein: '030179298', amount: 60, frequency: 'Monthly', next_date: '2026-02-01' } });
      assert.equal(s.status, 201);
      assert.equal(s.body.next_date, '2026-02-01');
      await step();
      assert.deepEqual(await runScheduler(env.deps, '2026-01-31'), { created: 0 });
      assert.deepEqual(await runScheduler(env.deps, '2026-02-01'), { created: 1 });
      assert.deepEqual(await runScheduler(env.deps, '2026-02-01'), { created: 0 });
      assert.equal(await step(), lines('ada.available                -60.00  donation scheduled: hold', 'ada.reserved                  60.00  donation scheduled: hold'));
      // Two months later, in one run: March's and April's. April finds too little available and waits.
      assert.deepEqual(await runScheduler(env.deps, '2026-04-15'), { created: 2 });
      assert.equal(await step(), lines('ada.available                -60.00  donation scheduled: hold', 'ada.reserved                  60.00  donation scheduled: hold'));
      const made = await env.deps.db
        .selectFrom('donations')
        .select(['status', 'scheduled_for', 'scheduled_donation_id'])
        .where('scheduled_donation_id', '=', s.body.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        made.map((d) => `${d.scheduled_for} ${d.status}`),
        ['2026-02-01 scheduled', '2026-03-01 scheduled', '2026-04-01 waiting_for_funds'],
      );
      const listed = await call(env.app, 'GET', '/v1/donations', { key: ada.key });
      assert.equal(listed.body.items[0].scheduled_donation_id, s.body.id);
      const got = await call(env.app, 'GET', `/v1/scheduled_donations/${s.body.id}`, { key: ada.key });
      assert.equal(got.body.next_date, '2026-05-01');
      assert.equal((await call(env.app, 'DELETE', `/v1/scheduled_donations/${s.body.id}`, { key: ada.key })).status, 200);
      assert.deepEqual(await runScheduler(env.deps, '2026-06-15'), { created: 0 });
      assert.equal((await call(env.app, 'GET', `/v1/scheduled_donations/${s.body.id}`, { key: grace.key })).status, 404);
    });

    test('almoner check passes on what the stories leave behind, their journal in a signed log', async () => {
      // The log takes every entry the stories made, in two checkpoints (CI checks this database again).
      const first = await checkpoint(env.deps, 'live', { force: true });
      const second = await checkpoint(env.deps, 'live', { force: true });
      assert.ok(first !== undefined && second?.size === first.size, 'nothing new, no second checkpoint');
      const journal = await env.deps.db
        .selectFrom('journal_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('book', '=', 'live')
        .executeTakeFirstOrThrow();
      assert.equal(first.size, Number(journal.n));
      await assertLedgerBalanced(env.deps);
      const check = await admin('GET', '/check');
      assert.equal(check.status, 200);
      assert.equal(check.body.ok, true);
    });
  });
}
