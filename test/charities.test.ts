// Charities' own people (docs/rules.md §18) on both engines, over the web
// app and the operator API: a person claims an organisation with an address
// at its web domain (or, without a website on file, the one they give), the
// link mailed there works only for the account that asked, an operator
// approves; the claimant gives bank details (checked, sealed, the other
// claimant told, ACH after the cooling-off); a run pays the organisation by
// ACH and the other by check, each claimant is told; the page lists the
// payments with their grants as the donors chose, and each remittance.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { randomBytes } from 'node:crypto';
import {
  engines,
  openEnv,
  fund,
  makeNonProfit,
  makeUser,
  call,
  fingerprint,
  accountOf,
  confirmInBrowser,
  TestClock,
  type TestEnv,
  TEST_ACH,
  assertLedgerBalanced,
} from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { forgetUser } from '../src/modules/privacy/index.ts';
import { NO_IRS_DETAILS } from '../src/modules/nonprofits/nonprofits.store.ts';
import { emailAtDomain, webDomain } from '../src/modules/charities/index.ts';
import { pdfText } from './pdf.ts';

const ACH = TEST_ACH;
const PAYMENTS = { ach: ACH, checkAccount: '000987654321', checkFirstNumber: 7001, checkStaleDays: 180, payeeCoolingOffDays: 7, payeeKey: randomBytes(32) };
const FOODBANK = '261544963';
const ARTS = '030219309';

test('the domain rule: the site, a name below it, or one above; never another', () => {
  assert.equal(webDomain('https://www.VTFoodbank.org/about'), 'vtfoodbank.org');
  assert.equal(webDomain('give.example.org'), 'give.example.org');
  for (const bad of ['', 'not a site', 'ftp://example.org', 'http://127.0.0.1', 'https://localhost']) assert.equal(webDomain(bad), null, bad);
  assert.ok(emailAtDomain('jo@vtfoodbank.org', 'vtfoodbank.org'));
  assert.ok(emailAtDomain('jo@mail.vtfoodbank.org', 'vtfoodbank.org'));
  assert.ok(emailAtDomain('jo@example.org', 'give.example.org'));
  for (const bad of ['jo@gmail.com', 'jo@evilvtfoodbank.org', 'jo@vtfoodbank.org.evil.com', 'vtfoodbank.org']) assert.ok(!emailAtDomain(bad, 'vtfoodbank.org'), bad);
});

for (const { name: engine } of engines()) {
  describe(`charities claim, are paid and see it, on ${engine}`, () => {
    let env: TestEnv;
    let operator: string;
    const clock = new TestClock('2026-11-20T15:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const checked = (step: string) => assertLedgerBalanced(env.deps, step);
    const mails = async (kind: string) =>
      (await env.deps.db.selectFrom('mail_outbox').select(['recipient', 'subject', 'text']).where('kind', '=', kind).orderBy('id').execute()).map((m) => ({ ...m }));
    const linkIn = (text: string) => /\/charities\/claims\/confirm\/[A-Za-z0-9_-]{43}/.exec(text)?.[0] as string;
    const people = new Map<string, WebClient>();
    const person = async (name: string, email: string) => {
      const browser = new WebClient(env.app);
      assert.equal((await browser.signUp(name, email)).status, 303);
      await confirmInBrowser(env.deps, browser, email);
      people.set(name, browser);
      return browser;
    };
    const claimed = async (browser: WebClient, ein: string, fields: Record<string, string>) => {
      await browser.get(`/charities/${ein}/claim`);
      return browser.post(`/charities/${ein}/claim`, fields);
    };
    /** Claims, follows the link, and has an operator approve: the person acts for the organisation. */
    const actsFor = async (browser: WebClient, ein: string, fields: Record<string, string>) => {
      assert.equal((await claimed(browser, ein, fields)).status, 303);
      const link = linkIn((await mails('charity_claim')).at(-1)?.text ?? '');
      await browser.get(link);
      assert.equal((await browser.post(link, {})).status, 303);
      const waiting = (await admin('GET', '/charity_claims')).body.items as Array<{ id: number; email: string }>;
      const mine = waiting.find((c) => c.email === fields.email);
      assert.ok(mine, 'the claim waits for an operator');
      assert.equal((await admin('POST', `/charity_claims/${mine.id}/approve`, { note: 'checked the staff page' })).status, 200);
      return mine.id;
    };

    before(async () => {
      env = await openEnv(engine, { payments: PAYMENTS, schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 }, { clock });
      operator = (await createAdminToken(env.deps, 'charities test', 'test')).token;
      await makeNonProfit(env.deps, { ein: FOODBANK, name: 'Vermont Foodbank', ...NO_IRS_DETAILS, foundation: '15', street: '1 Main St', zip: '05401' });
      await env.deps.db.updateTable('non_profits').set({ website: 'https://www.vtfoodbank.org' }).where('ein', '=', FOODBANK).execute();
      await makeNonProfit(env.deps, { ein: ARTS, name: 'Green Mountain Arts', ...NO_IRS_DETAILS, foundation: '15', street: '2 Elm St', zip: '05401' });
    });
    after(async () => env.close());

    test('a claim: the address must be at the domain; the link works once, for the account that asked; an operator decides once', async () => {
      const alice = await person('Alice Abbott', 'alice@home.example');
      const bob = await person('Bob Brown', 'bob@home.example');
      const page = await alice.get(`/charities/${FOODBANK}/claim`);
      assert.equal(page.status, 200);
      assert.match(textOf(page.body), /It must be at vtfoodbank\.org/);
      const before = await fingerprint(env.deps);
      for (const [fields, status, message] of [
        [{ email: 'alice@gmail.com' }, 422, /must be an address at vtfoodbank\.org/],
        [{ email: 'not an address' }, 422, /must be an email address/],
        [{ email: '' }, 422, /is required/],
      ] as const) {
        const refused = await claimed(alice, FOODBANK, fields);
        assert.equal(refused.status, status);
        assert.match(textOf(refused.body), message);
      }
      assert.equal((await claimed(alice, '999999999', { email: 'alice@vtfoodbank.org' })).status, 404);
      assert.deepEqual(await fingerprint(env.deps), before, 'a refused claim writes nothing');

      assert.equal((await claimed(alice, FOODBANK, { email: 'Alice@VTFoodbank.org' })).location, `/charities/${FOODBANK}/claim?done=claim_sent`);
      const [first] = await mails('charity_claim');
      assert.equal(first?.recipient, 'alice@vtfoodbank.org');
      assert.ok(linkIn(first?.text ?? ''), 'the message carries the link');
      // Asking again at once sends nothing; ten minutes later a new link replaces the first.
      const sentOnce = await fingerprint(env.deps);
      const soon = await claimed(alice, FOODBANK, { email: 'alice@vtfoodbank.org' });
      assert.equal(soon.status, 409);
      assert.match(textOf(soon.body), /a link went to alice@vtfoodbank\.org a moment ago/i);
      assert.deepEqual(await fingerprint(env.deps), sentOnce);
      clock.advance(11 * 60_000);
      assert.equal((await claimed(alice, FOODBANK, { email: 'alice@vtfoodbank.org' })).status, 303);
      const sent = (await mails('charity_claim'))[1];
      const link = linkIn(sent?.text ?? '');
      assert.equal((await alice.get(linkIn(first?.text ?? ''))).status, 404, 'the first link no longer works');
      // Not yet an operator's to decide, and nothing to manage.
      const unconfirmed = (await admin('GET', '/charity_claims?status=unconfirmed')).body.items[0];
      assert.deepEqual((await admin('POST', `/charity_claims/${unconfirmed.id}/approve`, { note: 'too soon' })).body.code, 'claim_not_confirmed');
      const manage = await alice.get(`/charities/${FOODBANK}/manage`);
      assert.equal(manage.status, 403);
      assert.match(textOf(manage.body), /you do not act for Vermont Foodbank/i);
      // Another account, or a made-up token, gets nowhere.
      assert.equal((await bob.get(link)).status, 404);
      assert.equal((await bob.post(link, {})).status, 404);
      assert.equal((await alice.get('/charities/claims/confirm/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status, 404);
      assert.equal((await admin('GET', '/charity_claims')).body.items.length, 0, 'still unconfirmed');

      const confirm = await alice.get(link);
      assert.match(textOf(confirm.body), /You followed the link sent to alice@vtfoodbank\.org/);
      assert.equal((await alice.post(link, {})).location, `/charities/${FOODBANK}/claim?done=claim_confirmed`);
      assert.equal((await alice.post(link, {})).status, 404, 'the link works once');
      assert.equal((await claimed(alice, FOODBANK, { email: 'alice@vtfoodbank.org' })).status, 409, 'one live claim per person and organisation');
      const [waiting] = (await admin('GET', '/charity_claims')).body.items;
      assert.deepEqual(
        { ...waiting, id: 0, created_at: '', confirmed_at: '' },
        {
          id: 0,
          status: 'pending',
          ein: FOODBANK,
          non_profit: 'Vermont Foodbank',
          person: { user_id: (await accountOf(env.deps, 'alice@home.example')).user_id, name: 'Alice Abbott' },
          email: 'alice@vtfoodbank.org',
          domain: 'vtfoodbank.org',
          website_on_file: true,
          created_at: '',
          confirmed_at: '',
        },
      );
      for (const [body, code] of [
        [{ note: '' }, 'validation_failed'],
        [{}, 'validation_failed'],
      ] as const) {
        const res = await admin('POST', `/charity_claims/${waiting.id}/approve`, body);
        assert.deepEqual([res.status, res.body.code], [422, code]);
      }
      assert.equal((await admin('POST', '/charity_claims/999999/approve', { note: 'x' })).body.code, 'claim_not_found');
      const approved = await admin('POST', `/charity_claims/${waiting.id}/approve`, { note: 'on the staff page' });
      assert.deepEqual([approved.status, approved.body.status], [200, 'approved']);
      assert.equal((await admin('POST', `/charity_claims/${waiting.id}/reject`, { note: 'second thoughts' })).body.code, 'claim_decided');
      assert.deepEqual(
        (await mails('charity_claim')).map((m) => [m.recipient, m.subject]),
        [
          ['alice@vtfoodbank.org', 'Confirm that you act for Vermont Foodbank'],
          ['alice@vtfoodbank.org', 'Confirm that you act for Vermont Foodbank'],
          ['alice@vtfoodbank.org', 'You now act for Vermont Foodbank on Almoner'],
        ],
      );
      const audit = await env.deps.db.selectFrom('audit_log').select('action').where('object_type', '=', 'charity_claim').orderBy('id').execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['charity_claim.started', 'charity_claim.started', 'charity_claim.confirmed', 'charity_claim.approved'],
      );
      assert.equal((await alice.get(`/charities/${FOODBANK}/manage`)).status, 200);
      // Her dashboard is her door back to it.
      assert.match(
        (await alice.get('/dashboard')).body,
        new RegExp(`<h2 id="organisations">Organisations you act for</h2>[\\s\\S]*href="/charities/${FOODBANK}/manage">Manage Vermont Foodbank</a>`),
      );
    });

    test('a person may have five claims waiting for their links; the sixth is refused and sends nothing', async () => {
      const bob = people.get('Bob Brown') as WebClient;
      for (let i = 0; i < 6; i++) {
        await makeNonProfit(env.deps, { ein: String(770_000_100 + i), name: `Example Trust ${i}`, ...NO_IRS_DETAILS });
        await env.deps.db
          .updateTable('non_profits')
          .set({ website: `https://example${i}.org` })
          .where('ein', '=', String(770_000_100 + i))
          .execute();
      }
      for (let i = 0; i < 5; i++) assert.equal((await claimed(bob, String(770_000_100 + i), { email: `bob@example${i}.org` })).status, 303);
      const before = await fingerprint(env.deps);
      const sixth = await claimed(bob, '770000105', { email: 'bob@example5.org' });
      assert.equal(sixth.status, 409);
      assert.match(textOf(sixth.body), /you have 5 claims waiting for their links/i);
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('an organisation without a website: the claimant names it, the operator sees that it is theirs to check', async () => {
      const carol = await person('Carol Cole', 'carol@home.example');
      const before = await fingerprint(env.deps);
      const missing = await claimed(carol, ARTS, { email: 'carol@greenmountainarts.org', website: '' });
      assert.equal(missing.status, 422);
      assert.match(textOf(missing.body), /website must be the organisation's web address/);
      assert.equal((await claimed(carol, ARTS, { email: 'carol@gmail.com', website: 'greenmountainarts.org' })).status, 422);
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await claimed(carol, ARTS, { email: 'carol@greenmountainarts.org', website: 'https://greenmountainarts.org' })).status, 303);
      const link = linkIn((await mails('charity_claim')).at(-1)?.text ?? '');
      await carol.get(link);
      await carol.post(link, {});
      const [waiting] = (await admin('GET', '/charity_claims')).body.items;
      assert.deepEqual([waiting.domain, waiting.website_on_file], ['greenmountainarts.org', false]);
      assert.equal((await admin('POST', `/charity_claims/${waiting.id}/approve`, { note: 'called them' })).status, 200);
      // A second person at the food bank, approved too: they are told of the first one's changes.
      await actsFor(await person('Dan Dunn', 'dan@home.example'), FOODBANK, { email: 'dan@vtfoodbank.org' });
    });

    test("bank details from the organisation's page: checked, sealed, masked; the other claimant told; an outsider refused", async () => {
      const alice = people.get('Alice Abbott') as WebClient;
      const bob = people.get('Bob Brown') as WebClient;
      // The organisation's public page is a way back for the one who acts for it; others are offered a claim.
      const pagePath = (await alice.get(`/charities/${FOODBANK}`)).location as string;
      const publicPage = textOf((await alice.get(pagePath)).body);
      assert.match(publicPage, /Manage Vermont Foodbank/);
      assert.doesNotMatch(publicPage, /Claim this organisation/);
      assert.match(textOf((await bob.get(pagePath)).body), /Claim this organisation/);
      await alice.get(`/charities/${FOODBANK}/manage`);
      const before = await fingerprint(env.deps);
      const bad = await alice.post(`/charities/${FOODBANK}/bank-details`, { holder: 'Vermont Foodbank', routing: '091000018', account: '12345678', account_type: 'checking' });
      assert.equal(bad.status, 422);
      assert.match(textOf(bad.body), /routing must be a 9-digit routing number whose check digit is right/);
      assert.doesNotMatch(bad.body, /12345678/, 'the account number is not sent back');
      assert.equal((await alice.post(`/charities/${FOODBANK}/bank-details`, { holder: '', routing: '091000019', account: '12345678', account_type: 'checking' })).status, 422);
      assert.equal((await bob.post(`/charities/${FOODBANK}/bank-details`, { holder: 'Bob', routing: '091000019', account: '99999999', account_type: 'checking' })).status, 403);
      assert.equal((await bob.get(`/charities/${FOODBANK}/manage`)).status, 403);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing refused was written');
      // A platform whose operator has not set PAYEE_DATA_KEY tells the organisation plainly that it cannot be
      // saved now, never the setting; the operator is told, by the log (naming it) and a metric.
      const alicesAccount = await accountOf(env.deps, 'alice@home.example');
      const logged: string[] = [];
      const log = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
      const unkeyed = { ...env.deps, log, config: { ...env.deps.config, payments: { ...env.deps.config.payments, payeeKey: undefined } } };
      const { setOwnBankDetails } = await import('../src/modules/payments/index.ts');
      const problems = async () =>
        (await env.deps.metrics.registry.getSingleMetricAsString('almoner_configuration_problems_total')).match(/problem="payee_key_not_configured"} (\d+)/)?.[1];
      const counted = Number((await problems()) ?? 0);
      await assert.rejects(
        setOwnBankDetails(unkeyed, { user_id: alicesAccount.user_id, name: 'Alice Abbott' }, FOODBANK, {
          holder: 'Vermont Foodbank',
          routing: '091000019',
          account: '12345678',
          account_type: 'checking',
        }),
        (e: Error & { code?: string }) =>
          e.code === 'bank_details_unavailable' && /cannot be saved now/.test(e.message) && /operator has been told/.test(e.message) && !/PAYEE_DATA_KEY/.test(e.message),
      );
      assert.match(logged.join(''), /PAYEE_DATA_KEY/, "the operator's log names the setting");
      assert.equal(Number(await problems()), counted + 1, 'and the metric counts it');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');

      const saved = await alice.post(`/charities/${FOODBANK}/bank-details`, {
        holder: 'Vermont Foodbank',
        routing: '091000019',
        account: '0001234-5678',
        account_type: 'checking',
      });
      assert.equal(saved.location, `/charities/${FOODBANK}/manage?done=bank_details_saved`);
      const page = textOf((await alice.get(saved.location as string)).body);
      assert.match(page, /••••5678 \(checking\), routing number 091000019/);
      assert.match(page, /from 2026-11-27; checks until then/);
      assert.doesNotMatch(page, /12345678/);
      const stored = await env.deps.db.selectFrom('payee_accounts').selectAll().executeTakeFirstOrThrow();
      assert.ok(!stored.account_sealed.includes('12345678'), 'sealed at rest');
      assert.equal(stored.created_by, `user:${(await accountOf(env.deps, 'alice@home.example')).user_id}`);
      assert.deepEqual(
        (await mails('bank_details_changed')).map((m) => [m.recipient, m.subject]),
        [['dan@vtfoodbank.org', 'The bank details of Vermont Foodbank were changed']],
        'the other claimant is told, not the one who made the change',
      );
      assert.match((await mails('bank_details_changed'))[0]?.text ?? '', /Alice Abbott set new bank details for Vermont Foodbank: account ••••5678/);
    });

    test('a run pays the claimed organisation by ACH after the cooling-off and the other by check; claimants are told; the page and remittances show what donors chose', async () => {
      const alice = people.get('Alice Abbott') as WebClient;
      const carol = people.get('Carol Cole') as WebClient;
      const donor = await makeUser(env.deps, { name: 'Erin Ellis' });
      await fund(env.deps, donor, 1_000_00);
      for (const [ein, amount, choices] of [
        [FOODBANK, 40, { share: 'anonymous', designation: 'School lunches' }],
        [FOODBANK, 60, { dedication: 'In honour of Grace' }],
        [ARTS, 25, {}],
      ] as const) {
        assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein, amount, ...choices } })).status, 201);
      }
      assert.equal((await admin('POST', '/donations/batch', { event: 'approve', status: 'scheduled' })).body.done.length, 3);
      clock.set('2026-11-28T15:00:00.000Z');
      const opened = await admin('POST', '/payment_runs', { pay_date: '2026-11-30' });
      assert.equal(opened.status, 201);
      const payments = opened.body.run.payments as Array<{ id: number; ein: string; method: string; amount: string; account: string | null }>;
      assert.deepEqual(
        payments.map((p) => [p.ein, p.method, p.amount, p.account]),
        [
          [FOODBANK, 'ach', '100.00', '••••5678'],
          [ARTS, 'check', '25.00', null],
        ],
      );
      assert.equal((await alice.get(`/charities/${FOODBANK}/payments/${payments[0]?.id}/remittance.pdf`)).status, 404, 'not before the run is sent');
      await checked('the run opened');
      assert.equal((await admin('POST', `/payment_runs/${opened.body.run.id}/submit`, {})).status, 200);
      await checked('the run submitted');
      assert.deepEqual(
        (await mails('payment_sent')).map((m) => [m.recipient, m.subject]),
        [
          ['alice@vtfoodbank.org', 'Vermont Foodbank: a payment of $100.00 is on its way'],
          ['dan@vtfoodbank.org', 'Vermont Foodbank: a payment of $100.00 is on its way'],
          ['carol@greenmountainarts.org', 'Green Mountain Arts: a payment of $25.00 is on its way'],
        ],
      );

      const page = textOf((await alice.get(`/charities/${FOODBANK}/manage`)).body);
      assert.match(page, /Payment \d+: \$100\.00, 2026-11-30 By direct deposit · Sent/);
      assert.match(page, /\$40\.00 An anonymous donor School lunches/);
      assert.match(page, /\$60\.00 Erin Ellis In honour of Grace/);
      assert.match(page, /in force since 2026-11-27/);
      assert.doesNotMatch(page, /Green Mountain Arts/, "another organisation's payments are not here");
      const pdf = await alice.get(`/charities/${FOODBANK}/payments/${payments[0]?.id}/remittance.pdf`);
      assert.deepEqual([pdf.status, pdf.headers['content-type']], [200, 'application/pdf']);
      const pdfBody = await env.app.inject({ method: 'GET', url: `/charities/${FOODBANK}/payments/${payments[0]?.id}/remittance.pdf`, headers: { cookie: alice.cookieHeader() } });
      const letter = pdfText(pdfBody.rawPayload);
      assert.match(letter, /An anonymous donor/);
      assert.match(letter, /For: School lunches/);
      // Another organisation's payment, through this one's page or the other's: not Alice's to read.
      assert.equal((await alice.get(`/charities/${FOODBANK}/payments/${payments[1]?.id}/remittance.pdf`)).status, 404);
      assert.equal((await alice.get(`/charities/${ARTS}/payments/${payments[1]?.id}/remittance.pdf`)).status, 403);
      assert.match(textOf((await carol.get(`/charities/${ARTS}/manage`)).body), /Check number 7001 · Sent/);
    });

    test("the bank's paid-checks file cashes the check once; a file with any bad row is refused whole", async () => {
      const arts = (await env.deps.db.selectFrom('payments').select(['id', 'check_number']).where('method', '=', 'check').executeTakeFirstOrThrow()) as {
        id: number;
        check_number: number;
      };
      assert.equal(Number(arts.check_number), 7001);
      const before = await fingerprint(env.deps);
      for (const [file, reason] of [
        ['check_number,amount\n7001,25.00\n', /the header lacks paid_date/],
        ['check_number,amount,paid_date\n', /no check is listed/],
        ['check_number,amount,paid_date\n7001,24.00,2026-11-28\n', /check 7001 was 2500 cents, the bank paid 2400/],
        ['check_number,amount,paid_date\n7001,25.00,2026-11-28\n9999,5.00,2026-11-28\n', /check 9999 is no check of the live book/],
        ['check_number,amount,paid_date\n7001,25.00,2026-12-01\n', /paid_date \\"2026-12-01\\" is not a day \(YYYY-MM-DD\) up to today/],
        ['check_number,amount,paid_date\nseven,25.00,2026-11-28\n', /is not a check number/],
        ['check_number,amount,paid_date\n7001,"25.00\n', /.+/],
      ] as const) {
        const res = await admin('POST', '/payments/checks_paid', { file });
        assert.deepEqual([res.status, res.body.code], [422, 'paid_checks_malformed'], file);
        assert.match(JSON.stringify(res.body.errors), reason, file);
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'a refused file records nothing');
      const file = 'Paid_Date,Check_Number,Amount,Payee\n2026-11-28,7001,$25.00,Green Mountain Arts\n';
      const paid = await admin('POST', '/payments/checks_paid', { file });
      assert.equal(paid.status, 200);
      assert.deepEqual(paid.body.items, [{ payment_id: Number(arts.id), check_number: 7001, recorded: true, status: 'cashed' }]);
      const grant = await env.deps.db
        .selectFrom('payment_grants as g')
        .innerJoin('donations as d', 'd.id', 'g.donation_id')
        .select('d.status')
        .where('g.payment_id', '=', Number(arts.id))
        .execute();
      assert.deepEqual(
        grant.map((g) => g.status),
        ['completed'],
      );
      assert.deepEqual((await admin('POST', '/payments/checks_paid', { file })).body.items, [
        { payment_id: Number(arts.id), check_number: 7001, recorded: false, status: 'cashed' },
      ]);
      await checked('a paid-checks file');
    });

    test('forgetting a claimant ends their claims; the organisation keeps its other people', async () => {
      const alice = await accountOf(env.deps, 'alice@home.example');
      await forgetUser(env.deps, alice.user_id, 'test');
      assert.equal((await env.deps.db.selectFrom('charity_claims').select('id').where('user_id', '=', alice.user_id).execute()).length, 0, 'none of hers is left');
      const left = await env.deps.db.selectFrom('charity_claims').select(['email']).where('status', '=', 'approved').orderBy('id').execute();
      assert.deepEqual(
        left.map((c) => c.email),
        ['carol@greenmountainarts.org', 'dan@vtfoodbank.org'],
      );
      await checked('a claimant forgotten');
    });
  });
}
