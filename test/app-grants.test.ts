// What a donor grants an app holds (ADR 16), over real HTTP on both engines,
// as the second security review tried it: every path that moves money on an
// app's token counts against its monthly limit, parallel requests included; a
// new consent never widens earlier tokens nor drops the limit; an id token acts
// only while its grant lives, with its own scopes; refresh tokens rotate; HEAD
// and OPTIONS are held to a route's scope; the consent page names the site the
// flow returns to; discovery advertises the configured issuer and only what answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, engines, fingerprint, fund, makeNonProfit, openEnv, type TestEnv } from './harness.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { api, authorizationUrl, client, exchange, freePort, HttpBrowser, REDIRECT_URI, relyingParty } from './oidc-rp.ts';

const EIN = '530196605';
const OTHER_REDIRECT = 'https://match.example.org/cb';

for (const { name: engine } of engines()) {
  describe(`What a donor grants an app holds (${engine})`, () => {
    let env: TestEnv;
    let base: string;
    let clientId: string;
    let secret: string;
    let serial = 0;

    /** A donor with a browser, signed up and funded with $1,000. */
    async function newDonor() {
      serial += 1;
      const browser = new HttpBrowser(base);
      const email = `donor${serial}-${engine}@example.org`;
      await browser.signUp(`Donor ${serial}`, email);
      const ids = await accountOf(env.deps, email);
      await fund(env.deps, ids, 100_000);
      return { browser, ids, email };
    }

    /** The app's tokens after the donor allows `scope` (and the limit, if given). */
    async function connect(browser: HttpBrowser, scope: string, consent: Record<string, string> = {}) {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, scope, { prompt: 'consent' });
      const { callback } = await browser.authorize(a.url, { decision: 'allow', ...consent });
      assert.ok(callback !== undefined, 'the browser came back to the app');
      return { rp, tokens: await exchange(rp, callback, a) };
    }

    before(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      env = await openEnv(engine, { publicUrl: base, cookieSecure: false });
      await env.app.listen({ port, host: '127.0.0.1' });
      await makeNonProfit(env.deps, { ein: EIN, name: 'American National Red Cross', city: 'Washington', state: 'DC' });
      const developer = new HttpBrowser(base);
      await developer.signUp('Dev Eloper', `dev-grants-${engine}@example.org`);
      await developer.request('GET', '/settings/apps');
      await developer.request('POST', '/settings/apps', { name: 'Match My Gift', redirect_uris: `${REDIRECT_URI}\n${OTHER_REDIRECT}`, logo_uri: '' });
      const page = await developer.request('GET', '/settings/apps');
      clientId = /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page.body)?.[1] ?? '';
      secret = /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page.body)?.[1] ?? '';
      assert.ok(clientId !== '' && secret !== '');
    });

    after(async () => {
      await env?.close();
    });

    it('a gift counts against the monthly limit: $500 past a $30 limit is 403 and writes nothing', async () => {
      const { browser } = await newDonor();
      const { tokens } = await connect(browser, 'openid read donate gifts', { monthly_limit: '30' });
      const bearer = `Bearer ${tokens.access_token}`;
      const before = await fingerprint(env.deps);
      const big = await api(base, 'POST', '/v1/gifts', bearer, { name: 'Dev', amount: 500 });
      assert.equal(big.status, 403);
      assert.equal(big.body.code, 'app_limit_exceeded');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
      assert.equal((await api(base, 'POST', '/v1/gifts', bearer, { name: 'Dev', amount: 18 })).status, 201);
      const over = await api(base, 'POST', '/v1/donations', bearer, { amount: 15, ein: EIN });
      assert.equal(over.status, 403, 'the gift and the donation share one limit');
      assert.equal((await api(base, 'POST', '/v1/donations', bearer, { amount: 12, ein: EIN })).status, 201);
      const page = await browser.request('GET', '/settings/apps');
      assert.match(page.body, /Monthly limit \$30\.00; given this month \$30\.00/);
    });

    it('parallel donations and gifts of one app never pass its limit together', async () => {
      const { browser } = await newDonor();
      const { tokens } = await connect(browser, 'openid read donate gifts', { monthly_limit: '40' });
      const bearer = `Bearer ${tokens.access_token}`;
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, () => api(base, 'POST', '/v1/gifts', bearer, { name: 'Dev', amount: 18 })),
        ...Array.from({ length: 4 }, () => api(base, 'POST', '/v1/donations', bearer, { amount: 10, ein: EIN })),
      ]);
      const made = answers.filter((a) => a.status === 201);
      const moved = answers.reduce((sum, a, i) => sum + (a.status === 201 ? (i < 4 ? 1_800 : 1_000) : 0), 0);
      assert.ok(moved <= 4_000, `moved ${moved} cents past a $40 limit`);
      assert.ok(made.length >= 2, 'what fits is made');
      assert.ok(
        answers.every((a) => a.status === 201 || (a.status === 403 && a.body.code === 'app_limit_exceeded')),
        JSON.stringify(answers.map((a) => a.status)),
      );
      assert.deepEqual(
        (await runCheck(env.deps)).flatMap((c) => c.failures),
        [],
        'almoner check: no app moved more than it was counted for',
      );
    });

    it("a gift's claim on the recipient's app token counts against that app's limit", async () => {
      const giver = await newDonor();
      const recipient = await newDonor();
      const { tokens: giverTokens } = await connect(giver.browser, 'openid read gifts');
      const gift = await api(base, 'POST', '/v1/gifts', `Bearer ${giverTokens.access_token}`, { name: 'Recipient', amount: 25 });
      assert.equal(gift.status, 201);
      const { tokens } = await connect(recipient.browser, 'openid read gifts', { monthly_limit: '20' });
      const before = await fingerprint(env.deps);
      const refused = await api(base, 'POST', `/v1/gifts/${String(gift.body.code)}/claim`, `Bearer ${tokens.access_token}`, { ein: EIN });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'app_limit_exceeded');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
      const again = await connect(recipient.browser, 'openid read gifts', { monthly_limit: '30' });
      const claimed = await api(base, 'POST', `/v1/gifts/${String(gift.body.code)}/claim`, `Bearer ${again.tokens.access_token}`, { ein: EIN });
      assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
      const donation = await env.deps.db
        .selectFrom('donations')
        .select(['app_connection_id', 'amount_cents'])
        .where('id', '=', Number(claimed.body.donation_id ?? 0))
        .executeTakeFirst();
      const connection = await env.deps.db
        .selectFrom('app_connections')
        .select('id')
        .where('user_id', '=', recipient.ids.user_id)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (donation !== undefined) assert.equal(donation.app_connection_id, connection.id);
      const spending = await env.deps.db.selectFrom('app_spending').select('spent_cents').where('connection_id', '=', connection.id).executeTakeFirstOrThrow();
      assert.equal(Number(spending.spent_cents), 2_500);
    });

    it('asking again for less neither drops the limit nor the scopes the old token holds; the page shows both', async () => {
      const { browser, ids } = await newDonor();
      const { tokens } = await connect(browser, 'openid read donate', { monthly_limit: '25' });
      const bearer = `Bearer ${tokens.access_token}`;
      assert.equal((await api(base, 'POST', '/v1/donations', bearer, { amount: 25, ein: EIN })).status, 201);
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read', { prompt: 'consent' });
      const page = (await browser.authorize(a.url, undefined)).stopped;
      assert.equal(page?.status, 200);
      assert.match(String(page?.body), /Make and cancel donations from your fund/, 'the page says the app keeps donate');
      assert.match(String(page?.body), /name="monthly_limit"[^>]*value="25.00"/, 'with the limit set before');
      // The donor allows without touching the limit (a form without the field, as the reviewer's page had).
      const { callback } = await browser.authorize(a.url, { decision: 'allow' });
      await exchange(rp, String(callback), a);
      const before = await fingerprint(env.deps);
      const refused = await api(base, 'POST', '/v1/donations', bearer, { amount: 50, ein: EIN });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'app_limit_exceeded');
      assert.deepEqual(await fingerprint(env.deps), before);
      const connection = await env.deps.db
        .selectFrom('app_connections')
        .select('monthly_limit_cents')
        .where('user_id', '=', ids.user_id)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(connection.monthly_limit_cents), 2_500);
    });

    it('a new consent that adds a scope does not widen what an earlier id token may do', async () => {
      const { browser } = await newDonor();
      const { tokens } = await connect(browser, 'openid read');
      const compatible = `${clientId} ${String(tokens.id_token)}`;
      assert.equal((await api(base, 'GET', '/v1/users/me', compatible)).status, 200);
      const wider = await connect(browser, 'openid read donate');
      const refused = await api(base, 'POST', '/v1/donations', compatible, { amount: 10, ein: EIN });
      assert.equal(refused.status, 403, 'the old id token was issued for read only');
      assert.equal(refused.body.code, 'insufficient_scope');
      assert.equal((await api(base, 'POST', '/v1/donations', `${clientId} ${String(wider.tokens.id_token)}`, { amount: 10, ein: EIN })).status, 201);
    });

    it('an id token acts only while its grant lives: not after a replayed code, a revoked refresh token, or a disconnect and reconnect', async () => {
      const { browser } = await newDonor();
      // A replayed code revokes the grant: its id token with it.
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read', { prompt: 'consent' });
      const { callback } = await browser.authorize(a.url, { decision: 'allow' });
      const tokens = await exchange(rp, String(callback), a);
      const compatible = `${clientId} ${String(tokens.id_token)}`;
      assert.equal((await api(base, 'GET', '/v1/users/me', compatible)).status, 200);
      await assert.rejects(exchange(rp, String(callback), a));
      const replayed = await api(base, 'GET', '/v1/users/me', compatible);
      assert.equal(replayed.status, 401);
      assert.equal(replayed.body.code, 'invalid_token');

      // The app revokes its access and refresh tokens: the grant ends, and its id token.
      const second = await connect(browser, 'openid read offline_access');
      const secondId = `${clientId} ${String(second.tokens.id_token)}`;
      assert.equal((await api(base, 'GET', '/v1/users/me', secondId)).status, 200);
      await client.tokenRevocation(second.rp, second.tokens.access_token, { token_type_hint: 'access_token' });
      await client.tokenRevocation(second.rp, String(second.tokens.refresh_token), { token_type_hint: 'refresh_token' });
      assert.equal((await api(base, 'GET', '/v1/users/me', secondId)).status, 401);

      // Disconnect, then connect again: the id token from before stays dead.
      const third = await connect(browser, 'openid read');
      const thirdId = `${clientId} ${String(third.tokens.id_token)}`;
      const page = await browser.request('GET', '/settings/apps');
      const action = /action="(\/settings\/apps\/connections\/\d+\/disconnect)"/.exec(page.body)?.[1];
      assert.equal((await browser.request('POST', String(action), {})).status, 303);
      const fourth = await connect(browser, 'openid read');
      assert.equal((await api(base, 'GET', '/v1/users/me', `${clientId} ${String(fourth.tokens.id_token)}`)).status, 200);
      assert.equal((await api(base, 'GET', '/v1/users/me', thirdId)).status, 401, 'a token from before the disconnect does not come back');
    });

    it('refresh tokens rotate: each refresh gives a new one, and the used one refreshes nothing more', async () => {
      const { browser } = await newDonor();
      const { rp, tokens } = await connect(browser, 'openid read offline_access');
      const first = String(tokens.refresh_token);
      const refreshed = await client.refreshTokenGrant(rp, first);
      assert.ok(refreshed.refresh_token !== undefined && refreshed.refresh_token !== first, 'a new refresh token');
      await assert.rejects(client.refreshTokenGrant(rp, first), (error: { error?: string }) => error.error === 'invalid_grant');
    });

    it('HEAD and OPTIONS are held to the scope of the route: a read-only token cannot count keys or webhooks', async () => {
      const { browser } = await newDonor();
      const { tokens } = await connect(browser, 'openid read');
      const bearer = `Bearer ${tokens.access_token}`;
      for (const path of ['/v1/api_keys', '/v1/webhook_endpoints', '/public/api/v1/api_keys']) {
        assert.equal((await api(base, 'GET', path, bearer)).status, 403, `GET ${path}`);
        const head = await fetch(new URL(path, base), { method: 'HEAD', headers: { authorization: bearer } });
        assert.equal(head.status, 403, `HEAD ${path}`);
        // No route answers OPTIONS: refused before anything is read, with nothing of the account in it.
        const options = await fetch(new URL(path, base), { method: 'OPTIONS', headers: { authorization: bearer } });
        assert.ok([403, 404, 405].includes(options.status), `OPTIONS ${path}: ${options.status}`);
        assert.doesNotMatch(await options.text(), /alm_|whsec_/);
      }
      const head = await fetch(new URL('/v1/donations', base), { method: 'HEAD', headers: { authorization: bearer } });
      assert.equal(head.status, 200, 'a read route answers HEAD to a read token');
    });

    it('the consent page names the site this flow returns to, not the first registered one', async () => {
      const { browser } = await newDonor();
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read', { redirect_uri: OTHER_REDIRECT });
      const page = (await browser.authorize(a.url, undefined, OTHER_REDIRECT)).stopped;
      assert.equal(page?.status, 200);
      assert.match(String(page?.body), /<strong>match\.example\.org<\/strong>/);
      assert.doesNotMatch(String(page?.body), /<strong>localhost:4999<\/strong>/);
    });

    it('discovery names the configured issuer whatever the Host header, and advertises only endpoints that answer', async () => {
      const discovery = (await (
        await fetch(`${base}/.well-known/openid-configuration`, { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } })
      ).json()) as Record<string, unknown>;
      assert.equal(discovery.issuer, base);
      assert.equal(discovery.pushed_authorization_request_endpoint, undefined);
      const endpoints = Object.entries(discovery).filter(([key, value]) => key !== 'issuer' && typeof value === 'string' && /^https?:/.test(value));
      assert.ok(endpoints.length >= 5);
      for (const [key, value] of endpoints) {
        assert.ok(String(value).startsWith(`${base}/`), `${key}: ${String(value)}`);
        const answer = await fetch(String(value), { method: key === 'token_endpoint' || key === 'revocation_endpoint' ? 'POST' : 'GET' });
        assert.notEqual(answer.status, 404, `${key} answers`);
      }
    });
  });
}
