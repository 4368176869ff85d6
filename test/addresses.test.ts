// An address is proven before anything follows it (docs/rules.md §15), on both engines, over the
// web app: someone who signs up with another person's address sees none of the gifts sent there,
// cannot take up an invitation to it nor start a charity's claim, and a successor plan naming it
// invites the address instead of adding the account; the link works once, for its own account,
// for 48 hours; an address change waits for its link; an account made before is asked at its
// next sign-in. Every refusal changes nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeNonProfit, makeUser, fund, call, fingerprint, accountOf, confirmationTokenFor, confirmInBrowser, TestClock, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { acceptInvitation } from '../src/modules/members/api.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import { CONFIRMATION_RESEND_MS, CONFIRMATION_TTL_MS } from '../src/modules/accounts/index.ts';

const EIN = '261544963';

for (const { name: engine } of engines()) {
  describe(`addresses are proven before anything follows them (${engine})`, () => {
    let env: TestEnv;
    const clock = new TestClock('2026-11-28T12:00:00.000Z');
    const problemOf = (body: string) => /data-problem="([a-z_]+)"/.exec(body)?.[1];
    const mailsTo = async (email: string, kind: string) =>
      Number(
        (
          await env.deps.db
            .selectFrom('mail_outbox')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('recipient', '=', email)
            .where('kind', '=', kind)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const signedUp = async (name: string, email: string) => {
      const browser = new WebClient(env.app);
      assert.equal((await browser.signUp(name, email)).status, 303);
      return { browser, ...(await accountOf(env.deps, email)) };
    };

    before(async () => {
      env = await openEnv(engine, { schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 }, { clock });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
    });
    after(async () => env.close());

    test('someone who signs up with another address sees no gift sent there and takes up no invitation to it, until the link is followed', async () => {
      const giver = await makeUser(env.deps);
      await fund(env.deps, giver, 100_000);
      const gift = await call(env.app, 'POST', '/v1/gifts', { key: giver.key, body: { name: 'Robin', amount: 40, email: 'robin@example.org' } });
      assert.equal(gift.status, 201, JSON.stringify(gift.body));
      const invited = await call(env.app, 'POST', '/v1/fund/members', { key: giver.key, body: { email: 'robin@example.org', role: 'advisor' } });
      assert.equal(invited.status, 201);
      const squatter = await signedUp('Not Robin', 'robin@example.org');
      const dashboard = await squatter.browser.get('/dashboard');
      assert.doesNotMatch(textOf(dashboard.body), /Gifts for you/, 'no gift shown to an unproven address');
      assert.ok(!dashboard.body.includes(gift.body.code), "the gift's code is not on the page");
      assert.match(textOf(dashboard.body), /Confirm robin@example\.org with the link we mailed to it/);
      // The invitation's link, used by the account of the address, before it is proven.
      const mail = await env.deps.db
        .selectFrom('mail_outbox')
        .select('text')
        .where('recipient', '=', 'robin@example.org')
        .where('kind', '=', 'fund_invitation')
        .executeTakeFirstOrThrow();
      const join = /\/join\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[0] as string;
      await squatter.browser.get(join);
      const before = await fingerprint(env.deps);
      const refused = await squatter.browser.post(join, {});
      assert.deepEqual([refused.status, problemOf(refused.body)], [403, 'address_unconfirmed']);
      await assert.rejects(acceptInvitation(env.deps, squatter.user_id, join.split('/').at(-1) as string), { code: 'address_unconfirmed' });
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      // The real Robin follows the link (it was mailed to the address): now it is theirs.
      await confirmInBrowser(env.deps, squatter.browser, 'robin@example.org');
      assert.match(textOf((await squatter.browser.get('/dashboard')).body), /Gifts for you[\s\S]*\$40\.00/);
      assert.equal((await squatter.browser.post(join, {})).status, 303, 'the invitation is taken up once the address is proven');
    });

    test('bad links: used twice, by another account, expired or replaced, unknown; nothing changes', async () => {
      const ana = await signedUp('Ana Link', 'ana.link@example.org');
      const ben = await signedUp('Ben Link', 'ben.link@example.org');
      const anaToken = await confirmationTokenFor(env.deps, 'ana.link@example.org');
      const tryLink = async (browser: WebClient, token: string) => {
        await browser.get('/settings/address');
        return browser.post(`/account/confirm/${token}`, {});
      };
      // Another account opens Ana's link.
      let before = await fingerprint(env.deps);
      const other = await tryLink(ben.browser, anaToken);
      assert.deepEqual([other.status, problemOf(other.body)], [403, 'confirmation_other_account']);
      const unknown = await tryLink(ben.browser, 'A'.repeat(43));
      assert.deepEqual([unknown.status, problemOf(unknown.body)], [404, 'confirmation_invalid']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      // Ana uses it, then again.
      assert.equal((await tryLink(ana.browser, anaToken)).status, 303);
      before = await fingerprint(env.deps);
      const again = await tryLink(ana.browser, anaToken);
      assert.deepEqual([again.status, problemOf(again.body)], [409, 'confirmation_used']);
      // Ben's link, past 48 hours; then a new one replaces an old one.
      const benToken = await confirmationTokenFor(env.deps, 'ben.link@example.org');
      clock.advance(CONFIRMATION_TTL_MS + 1000);
      const expired = await tryLink(ben.browser, benToken);
      assert.deepEqual([expired.status, problemOf(expired.body)], [409, 'confirmation_expired']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      await ben.browser.get('/settings/address');
      assert.equal((await ben.browser.post('/account/confirm', {})).status, 303, 'sent again');
      const fresh = await confirmationTokenFor(env.deps, 'ben.link@example.org');
      assert.notEqual(fresh, benToken);
      await ben.browser.get('/settings/address');
      assert.equal((await ben.browser.post('/account/confirm', {})).status, 303, 'and again: the newer replaces it');
      const replaced = await tryLink(ben.browser, fresh);
      assert.deepEqual([replaced.status, problemOf(replaced.body)], [409, 'confirmation_expired']);
      assert.equal((await tryLink(ben.browser, await confirmationTokenFor(env.deps, 'ben.link@example.org'))).status, 303);
    });

    test("an address change waits for its link; another account's address is refused", async () => {
      const cy = await signedUp('Cy Change', 'cy.old@example.org');
      await confirmInBrowser(env.deps, cy.browser, 'cy.old@example.org');
      await signedUp('Dee Holder', 'dee.holds@example.org');
      const change = async (fields: Record<string, string>) => {
        await cy.browser.get('/settings/address');
        return cy.browser.post('/settings/address', fields);
      };
      const before = await fingerprint(env.deps);
      const taken = await change({ email: 'Dee.Holds@example.org', password: 'correct horse battery' });
      assert.deepEqual([taken.status, problemOf(taken.body)], [409, 'email_taken']);
      const wrong = await change({ email: 'cy.new@example.org', password: 'not my password' });
      assert.deepEqual([wrong.status, problemOf(wrong.body)], [422, 'validation_failed']);
      const same = await change({ email: 'CY.OLD@example.org', password: 'correct horse battery' });
      assert.deepEqual([same.status, problemOf(same.body)], [422, 'validation_failed']);
      const bad = await change({ email: 'not an address', password: 'correct horse battery' });
      assert.equal(bad.status, 422);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      assert.equal((await change({ email: 'cy.new@example.org', password: 'correct horse battery' })).status, 303);
      assert.equal(await mailsTo('cy.old@example.org', 'address_changing'), 1, 'the old address is told');
      assert.equal((await accountOf(env.deps, 'cy.old@example.org')).user_id, cy.user_id, 'the old address is still the one to sign in with');
      await confirmInBrowser(env.deps, cy.browser, 'cy.new@example.org');
      assert.equal((await accountOf(env.deps, 'cy.new@example.org')).user_id, cy.user_id, 'the new address is the account’s now');
      const signIn = await new WebClient(env.app).signIn('cy.new@example.org');
      assert.equal(signIn.status, 303);
    });

    test('an account made before is asked at its next sign-in, at most every 15 minutes', async () => {
      const old = await signedUp('Old Account', 'old.account@example.org');
      // As an account made before confirmation existed: no link, not proven.
      await env.deps.db.deleteFrom('address_confirmations').where('user_id', '=', old.user_id).execute();
      await env.deps.db.deleteFrom('mail_outbox').where('recipient', '=', 'old.account@example.org').execute();
      assert.equal((await new WebClient(env.app).signIn('old.account@example.org')).status, 303);
      assert.equal(await mailsTo('old.account@example.org', 'address_confirmation'), 1, 'a link at sign-in');
      assert.equal((await new WebClient(env.app).signIn('old.account@example.org')).status, 303);
      assert.equal(await mailsTo('old.account@example.org', 'address_confirmation'), 1, 'not again at once');
      clock.advance(CONFIRMATION_RESEND_MS + 1000);
      assert.equal((await new WebClient(env.app).signIn('old.account@example.org')).status, 303);
      assert.equal(await mailsTo('old.account@example.org', 'address_confirmation'), 2, 'again after 15 minutes');
    });

    test("a charity's claim starts only from a proven address", async () => {
      const eve = await signedUp('Eve Claim', 'eve.claim@home.example');
      await env.deps.db.updateTable('non_profits').set({ website: 'https://www.vtfoodbank.org' }).where('ein', '=', EIN).execute();
      await eve.browser.get(`/charities/${EIN}/claim`);
      const before = await fingerprint(env.deps);
      const refused = await eve.browser.post(`/charities/${EIN}/claim`, { email: 'eve@vtfoodbank.org', person: 'Eve Claim', website: '' });
      assert.deepEqual([refused.status, problemOf(refused.body)], [403, 'address_unconfirmed']);
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
    });

    test('a successor plan naming an unproven address invites the address instead of adding the account', async () => {
      const holder = await signedUp('Hana Holder', 'hana.holder@example.org');
      await confirmInBrowser(env.deps, holder.browser, 'hana.holder@example.org');
      const heir = await signedUp('Not Yet Heir', 'heir@example.org');
      const holderKey = (await createKeyForOwner(env.deps, holder.user_id, 'plan', 'live')).key;
      assert.equal((await call(env.app, 'PUT', '/v1/fund/successor_plan', { key: holderKey, body: { successors: [{ email: 'heir@example.org' }] } })).status, 200);
      const [first, second] = [(await createAdminToken(env.deps, 'first', 'test')).token, (await createAdminToken(env.deps, 'second', 'test')).token];
      const admin = (token: string, url: string, body?: unknown) =>
        call(env.app, 'POST', `/admin/v1${url}`, { headers: { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) });
      const recorded = await admin(first, '/deaths', { user_id: holder.user_id, document_reference: 'certificate 2026-0042' });
      assert.equal(recorded.status, 201, JSON.stringify(recorded.body));
      assert.equal((await admin(second, `/deaths/${recorded.body.id}/approve`)).status, 200);
      const rows = await env.deps.db
        .selectFrom('fund_members')
        .select(['user_id', 'email', 'status', 'role'])
        .where('fund_id', '=', holder.fund_id)
        .where('status', '!=', 'removed')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.user_id, r.email, r.status, r.role]),
        [[null, 'heir@example.org', 'invited', 'organizer']],
        'the address is invited; the unproven account is no member',
      );
      assert.ok(!rows.some((r) => r.user_id === heir.user_id));
    });
  });
}
