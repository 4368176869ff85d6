// A charity's people (docs/rules.md §18), the security review's smaller findings, on both engines:
// claim links to one address are limited whichever accounts ask for them, and bank details changed
// by an organisation's only claimant are told to the operators (mail and metric).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { engines, openEnv, makeNonProfit, call, fingerprint, confirmInBrowser, scrapeMetrics, TEST_ACH, type TestEnv } from './harness.ts';
import { WebClient } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { NO_IRS_DETAILS } from '../src/modules/nonprofits/nonprofits.store.ts';
import { CLAIM_MAILS_PER_ADDRESS_PER_HOUR } from '../src/modules/charities/index.ts';

const FOODBANK = '261544963';
const ARTS = '030219309';
const PAYMENTS = { ach: TEST_ACH, checkAccount: '000987654321', checkFirstNumber: 7001, checkStaleDays: 180, payeeCoolingOffDays: 7, payeeKey: randomBytes(32) };
const OPERATORS = 'operators@sponsor.example';

for (const { name: engine } of engines()) {
  describe(`charity notices and limits (${engine})`, () => {
    let env: TestEnv;
    let operator: string;
    let people = 0;
    const problemOf = (body: string) => /data-problem="([a-z_]+)"/.exec(body)?.[1];
    const person = async () => {
      const browser = new WebClient(env.app);
      const email = `person-${(people += 1)}-${engine}@home.example`;
      assert.equal((await browser.signUp(`Person ${people}`, email)).status, 303);
      await confirmInBrowser(env.deps, browser, email);
      return browser;
    };
    const claim = async (browser: WebClient, ein: string, email: string) => {
      await browser.get(`/charities/${ein}/claim`);
      return browser.post(`/charities/${ein}/claim`, { email });
    };
    const mailsTo = async (recipient: string, kind: string) =>
      env.deps.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', recipient).where('kind', '=', kind).orderBy('id').execute();
    /** Claims, follows the link and is approved: the browser's person acts for the organisation. */
    const actsFor = async (browser: WebClient, ein: string, email: string) => {
      assert.equal((await claim(browser, ein, email)).status, 303);
      const link = /\/charities\/claims\/confirm\/[A-Za-z0-9_-]{43}/.exec((await mailsTo(email, 'charity_claim')).at(-1)?.text ?? '')?.[0] as string;
      await browser.get(link);
      assert.equal((await browser.post(link, {})).status, 303);
      const waiting = (await call(env.app, 'GET', '/admin/v1/charity_claims', { headers: { authorization: `Bearer ${operator}` } })).body.items as Array<{
        id: number;
        email: string;
      }>;
      const mine = waiting.find((c) => c.email === email) as { id: number };
      assert.equal(
        (await call(env.app, 'POST', `/admin/v1/charity_claims/${mine.id}/approve`, { headers: { authorization: `Bearer ${operator}` }, body: { note: 'ok' } })).status,
        200,
      );
    };
    const unseen = async () => Number(/^almoner_payee_changes_unseen_total (\d+)/m.exec((await scrapeMetrics(env.app, env.deps)).body)?.[1] ?? 'NaN');

    before(async () => {
      env = await openEnv(engine, { payments: PAYMENTS, operatorEmail: OPERATORS, schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 });
      operator = (await createAdminToken(env.deps, 'notices test', 'test')).token;
      for (const [ein, name, site] of [
        [FOODBANK, 'Vermont Foodbank', 'https://www.vtfoodbank.org'],
        [ARTS, 'Arts Council', 'https://arts.example.org'],
      ] as const) {
        await makeNonProfit(env.deps, { ein, name, ...NO_IRS_DETAILS, foundation: '15', street: '1 Main St', zip: '05401' });
        await env.deps.db.updateTable('non_profits').set({ website: site }).where('ein', '=', ein).execute();
      }
    });
    after(async () => env.close());

    test(`one address receives at most ${CLAIM_MAILS_PER_ADDRESS_PER_HOUR} claim links an hour, whichever accounts ask`, async () => {
      const target = 'director@vtfoodbank.org';
      for (let i = 0; i < CLAIM_MAILS_PER_ADDRESS_PER_HOUR; i++) assert.equal((await claim(await person(), FOODBANK, target)).status, 303, `claim ${i + 1}`);
      const next = await person();
      await next.get(`/charities/${FOODBANK}/claim`);
      const before = await fingerprint(env.deps);
      const refused = await next.post(`/charities/${FOODBANK}/claim`, { email: target });
      assert.deepEqual([refused.status, problemOf(refused.body)], [429, 'claim_mail_limit']);
      assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After says when');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      assert.equal((await mailsTo(target, 'charity_claim')).length, CLAIM_MAILS_PER_ADDRESS_PER_HOUR);
      // Another address of the same organisation is not held back.
      assert.equal((await claim(next, FOODBANK, 'treasurer@vtfoodbank.org')).status, 303);
    });

    test("bank details changed by an organisation's only claimant are told to the operators; with a second claimant, to them", async () => {
      const only = await person();
      await actsFor(only, ARTS, 'finance@arts.example.org');
      const before = await unseen();
      await only.get(`/charities/${ARTS}/manage`);
      const changed = await only.post(`/charities/${ARTS}/bank-details`, { holder: 'Arts Council', routing: '091000019', account: '12345678', account_type: 'checking' });
      assert.equal(changed.status, 303, changed.body.slice(0, 300));
      const told = await mailsTo(OPERATORS, 'bank_details_unseen');
      assert.equal(told.length, 1, 'the operators are mailed');
      assert.match(told[0]?.subject ?? '', /Bank details of Arts Council changed by its only claimant/);
      assert.match(told[0]?.text ?? '', /••••5678/);
      assert.ok(!(told[0]?.text ?? '').includes('12345678'), 'the account number stays masked');
      assert.equal(await unseen(), before + 1, 'and the metric counts it');
      // A second claimant: they are told, the operators are not.
      const second = await person();
      await actsFor(second, ARTS, 'treasurer@arts.example.org');
      await second.get(`/charities/${ARTS}/manage`);
      assert.equal(
        (await second.post(`/charities/${ARTS}/bank-details`, { holder: 'Arts Council', routing: '091000019', account: '87654321', account_type: 'checking' })).status,
        303,
      );
      assert.equal((await mailsTo(OPERATORS, 'bank_details_unseen')).length, 1, 'no second notice to the operators');
      assert.equal((await mailsTo('finance@arts.example.org', 'bank_details_changed')).length, 1, 'the other claimant is told');
      assert.equal(await unseen(), before + 1);
    });
  });
}
