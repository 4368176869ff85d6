// Giving at a charity's checkout (rules §24, issue 59) over real HTTP on both engines: a checkout
// provider registered as an app signs a donor in with Login with Almoner (openid-client, PKCE,
// the `dafpay` scope), reads who is giving and the funds they may grant from, grants twice with
// one Idempotency-Key (one grant), reads its status, refreshes its token (rotated: the used one
// is refused), and is refused everything else: other routes, a fund the donor only requests
// from, another app's grant. Each refusal leaves the database as it was.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, confirmAddressOf, engines, fingerprint, fund, makeNonProfit, makeUser, openEnv, assertLedgerBalanced, type TestEnv, type TestUser } from './harness.ts';
import { api, authorizationUrl, client, exchange, freePort, HttpBrowser, REDIRECT_URI, relyingParty } from './oidc-rp.ts';
import { acceptInvitation } from '../src/modules/members/api.ts';
import { addendaText } from '../src/modules/payments/payments.files.ts';

const EIN = '530196605';

for (const { name: engine } of engines()) {
  describe(`giving at a checkout (${engine})`, () => {
    let env: TestEnv;
    let base: string;
    let donor: HttpBrowser;
    let dana: { user_id: number; fund_id: number };
    let email: string;
    let clientId: string;
    let secret: string;
    let advised: TestUser;
    let family: TestUser;

    /** The donor joins `holder`'s fund with `role`, by the invitation the holder sends (rules §20). */
    async function join(holder: TestUser, role: 'advisor' | 'family') {
      const invited = await call(env.app, 'POST', '/v1/fund/members', { key: holder.key, body: { email, role } });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      const text = String(
        (
          await env.deps.db
            .selectFrom('mail_outbox')
            .select('text')
            .where('recipient', '=', email)
            .where('kind', '=', 'fund_invitation')
            .orderBy('id', 'desc')
            .executeTakeFirstOrThrow()
        ).text,
      );
      await acceptInvitation(env.deps, dana.user_id, /\/join\/([A-Za-z0-9_-]+)/.exec(text)?.[1] ?? '');
    }

    /** A provider's app registered by a developer in the web app: its client id and secret. */
    async function registerProvider(name: string): Promise<{ clientId: string; secret: string }> {
      const developer = new HttpBrowser(base);
      await developer.signUp(`${name} Dev`, `${name.toLowerCase().replace(/\W/g, '')}-${engine}@example.org`);
      await developer.request('GET', '/settings/apps');
      assert.equal((await developer.request('POST', '/settings/apps', { name, redirect_uris: REDIRECT_URI, logo_uri: '' })).status, 303);
      const page = await developer.request('GET', '/settings/apps');
      return {
        clientId: /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page.body)?.[1] ?? '',
        secret: /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page.body)?.[1] ?? '',
      };
    }

    /** The donor signs in at the provider's popup and allows it; the provider's tokens. */
    async function signIn(provider: { clientId: string; secret: string }, scope: string, consent: Record<string, string> = { decision: 'allow' }) {
      const rp = await relyingParty(base, provider.clientId, provider.secret);
      const a = await authorizationUrl(rp, scope, { prompt: 'consent' });
      const { callback, stopped } = await donor.authorize(a.url, consent);
      assert.ok(callback !== undefined, `the browser came back to the provider, not ${stopped?.status} ${stopped?.body.slice(0, 3000)}`);
      return { rp, tokens: await exchange(rp, callback, a) };
    }

    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      env = await openEnv(engine, { publicUrl: base, cookieSecure: false });
      await env.app.listen({ port, host: '127.0.0.1' });
      await makeNonProfit(env.deps, { ein: EIN, name: 'American National Red Cross', city: 'Washington', state: 'DC' });
      ({ clientId, secret } = await registerProvider('Checkout Co'));
      donor = new HttpBrowser(base);
      email = `dana-${engine}@example.org`;
      await donor.signUp('Dana Donor', email);
      dana = await accountOf(env.deps, email);
      await confirmAddressOf(env.deps, dana.user_id, email);
      await fund(env.deps, dana, 123_456);
      advised = await makeUser(env.deps, { name: 'Hal Holder' });
      await fund(env.deps, advised, 50_000);
      family = await makeUser(env.deps, { name: 'Fay Family' });
      await fund(env.deps, family, 70_000);
      await join(advised, 'advisor');
      await join(family, 'family');
    });

    after(async () => env?.close());

    it('a provider signs the donor in, lists their funds, grants twice with one key (one grant), reads it, refreshes its token', async () => {
      // Asked with other scopes of the API, the provider is sent back with invalid_scope and no code.
      const greedy = await relyingParty(base, clientId, secret);
      const asked = await authorizationUrl(greedy, 'openid dafpay read donate', { prompt: 'consent' });
      const back = new URL(String((await donor.authorize(asked.url, { decision: 'allow' })).callback));
      assert.deepEqual([back.searchParams.get('error'), back.searchParams.get('code')], ['invalid_scope', null]);
      assert.match(String(back.searchParams.get('error_description')), /without read, donate/);

      const { rp, tokens } = await signIn({ clientId, secret }, 'openid profile email offline_access dafpay');
      assert.ok(tokens.refresh_token !== undefined, 'offline_access gives a refresh token');
      const bearer = `Bearer ${tokens.access_token}`;

      const who = await api(base, 'GET', '/v1/dafpay/donor', bearer);
      assert.deepEqual(who.body, { id: dana.user_id, name: 'Dana Donor', email });

      // The funds they advise or organise, with whole dollars each may grant: not the one they only request from.
      const funds = await api(base, 'GET', '/v1/dafpay/funds', bearer);
      assert.equal(funds.status, 200, JSON.stringify(funds.body));
      const listed = (funds.body.data as Array<Record<string, unknown>>).map((f) => [f.id, f.role, f.available_to_grant, (f.holder as { name: string }).name]);
      assert.deepEqual(listed, [
        [dana.fund_id, 'organizer', 1234, 'Dana Donor'],
        [advised.fund_id, 'advisor', 500, 'Hal Holder'],
      ]);

      // A grant from the fund they advise, not the one they act on; the same key again is the same grant.
      const body = { fund_id: advised.fund_id, ein: '53-0196605', amount: 120, tracking_id: 'chk-7f3a9c20-5b1e-4d8e-9a61-0c2f4e8b7d13', share: 'name_and_email' };
      const key = { 'idempotency-key': `grant-${engine}-1` };
      const first = await api(base, 'POST', '/v1/dafpay/grants', bearer, body, key);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal(first.headers.get('location'), `/v1/dafpay/grants/${String(first.body.id)}`);
      const again = await api(base, 'POST', '/v1/dafpay/grants', bearer, body, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body, 'one grant');
      const { id, created_at: _at, ...grant } = first.body;
      assert.deepEqual(grant, {
        fund_id: advised.fund_id,
        amount: 120,
        status: 'scheduled',
        ein: EIN,
        non_profit: { name: 'American National Red Cross' },
        tracking_id: body.tracking_id,
        share: 'name_and_email',
        designation: null,
        paid_at: null,
        voided_at: null,
      });
      const made = await env.deps.db.selectFrom('donations').selectAll().where('id', '=', Number(id)).executeTakeFirstOrThrow();
      assert.deepEqual(
        [made.fund_id, made.user_id, made.actor_id, made.amount_cents, made.visibility, made.tracking_id],
        [advised.fund_id, advised.user_id, dana.user_id, 12_000, 'private', body.tracking_id],
        "the advised fund's private donation, made by the donor",
      );
      assert.equal((await api(base, 'GET', `/v1/dafpay/grants/${String(id)}`, bearer)).body.status, 'scheduled');
      const after = (await api(base, 'GET', '/v1/dafpay/funds', bearer)).body.data as Array<Record<string, unknown>>;
      assert.equal(after.find((f) => f.id === advised.fund_id)?.available_to_grant, 380, 'what the grant holds is no longer available');
      await assertLedgerBalanced(env.deps);

      // The token grants and nothing else.
      const before = await fingerprint(env.deps);
      for (const [method, path, payload] of [
        ['GET', '/v1/users/me', undefined],
        ['GET', '/v1/donations', undefined],
        ['POST', '/v1/donations', { amount: 10, ein: EIN }],
      ] as const) {
        const refused = await api(base, method, path, bearer, payload);
        assert.deepEqual([refused.status, refused.body.code], [403, 'insufficient_scope'], `${method} ${path}`);
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing written');

      // Refresh tokens rotate: the new pair works, the used refresh token is refused.
      const refreshed = await client.refreshTokenGrant(rp, String(tokens.refresh_token));
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      assert.equal((await api(base, 'GET', `/v1/dafpay/grants/${String(id)}`, `Bearer ${refreshed.access_token}`)).status, 200);
      await assert.rejects(client.refreshTokenGrant(rp, String(tokens.refresh_token)), (e: { cause?: { error?: string } }) => e.cause?.error === 'invalid_grant');
    });

    it('bad grants are refused with their code and write nothing', async () => {
      const { tokens } = await signIn({ clientId, secret }, 'openid dafpay');
      const bearer = `Bearer ${tokens.access_token}`;
      const stranger = await makeUser(env.deps);
      const good = { fund_id: dana.fund_id, ein: EIN, amount: 25 };
      const cases: Array<[string, unknown, number, string]> = [
        ['a fund they only request from (family)', { ...good, fund_id: family.fund_id }, 403, 'role_forbidden'],
        ['a fund they are no member of', { ...good, fund_id: stranger.fund_id }, 404, 'fund_not_found'],
        ['an unknown organisation', { ...good, ein: '000000001' }, 404, 'non_profit_not_found'],
        ['cents', { ...good, amount: 25.5 }, 422, 'amount_invalid'],
        ['below the least grant', { ...good, amount: 9 }, 422, 'amount_invalid'],
        ['a tracking id with a space', { ...good, tracking_id: 'two words' }, 422, 'validation_failed'],
        ['a tracking id of 65 characters', { ...good, tracking_id: 'a'.repeat(65) }, 422, 'validation_failed'],
        ['no fund', { ein: EIN, amount: 25 }, 422, 'validation_failed'],
        ['an unknown field', { ...good, visibility: 'public' }, 422, 'unknown_field'],
      ];
      for (const [label, payload, status, code] of cases) {
        const before = await fingerprint(env.deps);
        const refused = await api(base, 'POST', '/v1/dafpay/grants', bearer, payload);
        assert.deepEqual([refused.status, refused.body.code], [status, code], `${label}: ${JSON.stringify(refused.body)}`);
        assert.deepEqual(await fingerprint(env.deps), before, `${label}: nothing written`);
      }
      // A token without the scope may not grant; another provider reads none of this one's grants.
      const other = await registerProvider('Other Checkout');
      const { tokens: otherTokens } = await signIn(other, 'openid read donate');
      const noScope = await api(base, 'POST', '/v1/dafpay/grants', `Bearer ${otherTokens.access_token}`, good);
      assert.deepEqual([noScope.status, noScope.body.code], [403, 'insufficient_scope']);
      const made = await api(base, 'POST', '/v1/dafpay/grants', bearer, good);
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const { tokens: otherGrantTokens } = await signIn(other, 'openid dafpay');
      const unseen = await api(base, 'GET', `/v1/dafpay/grants/${String(made.body.id)}`, `Bearer ${otherGrantTokens.access_token}`);
      assert.deepEqual([unseen.status, unseen.body.code], [404, 'grant_not_found']);
    });

    it('the monthly limit the donor set caps what each fund may grant, and a grant past it is refused', async () => {
      // A provider of its own: a connection's limit counts what that app gave this month.
      const limited = await registerProvider('Limited Checkout');
      const { tokens } = await signIn(limited, 'openid dafpay', { decision: 'allow', monthly_limit: '40' });
      const bearer = `Bearer ${tokens.access_token}`;
      const funds = (await api(base, 'GET', '/v1/dafpay/funds', bearer)).body.data as Array<Record<string, unknown>>;
      assert.deepEqual(
        funds.map((f) => f.available_to_grant),
        [40, 40],
        'within the limit left this month',
      );
      const before = await fingerprint(env.deps);
      const over = await api(base, 'POST', '/v1/dafpay/grants', bearer, { fund_id: dana.fund_id, ein: EIN, amount: 41 });
      assert.deepEqual([over.status, over.body.code], [403, 'app_limit_exceeded']);
      assert.deepEqual(await fingerprint(env.deps), before);
    });
  });
}

describe('a checkout grant on the ACH addenda', () => {
  it('tracking ids come before the donation ids, within 80 characters', () => {
    assert.equal(addendaText([41, 42], [null, null]), 'GRANTS 2 DONATIONS 41 42');
    assert.equal(addendaText([41, 42], ['chk-1', null]), 'GRANTS 2 TRACKING chk-1 DONATIONS 41 42');
    const long = addendaText([1, 2, 3], ['a'.repeat(40), 'b'.repeat(40), null]);
    assert.equal(long.length, 80);
    assert.ok(long.startsWith(`GRANTS 3 TRACKING ${'a'.repeat(40)} b`));
  });
});
