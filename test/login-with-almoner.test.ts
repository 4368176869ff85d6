// Login with Almoner (issue 21, ADR 16) over real HTTP on both engines: an app
// registered in the web app, a donor who signs in and consents, the app's
// relying party (openid-client) exchanging the code and calling the API with
// its token, scopes, the monthly limit, the compatible header, disconnecting,
// disabling, and the security rules of the flow.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, engines, fingerprint, fund, makeNonProfit, openEnv, runCli, type TestEnv } from './harness.ts';
import { api, authorizationUrl, client, exchange, freePort, HttpBrowser, REDIRECT_URI, relyingParty } from './oidc-rp.ts';
import { setAppEnabled } from '../src/modules/apps/index.ts';
import { setUserStatus } from '../src/modules/users/index.ts';

const EIN = '530196605';

for (const { name: engine } of engines()) {
  describe(`Login with Almoner (${engine})`, () => {
    let env: TestEnv;
    let base: string;
    let donor: HttpBrowser;
    let developer: HttpBrowser;
    let clientId: string;
    let secret: string;
    let donorIds: { user_id: number; fund_id: number };
    const notices: string[] = [];
    const original = { warn: console.warn, info: console.info };

    before(async () => {
      // The provider speaks through console.warn / console.info: every such line is a finding.
      console.warn = (...args: unknown[]) => void notices.push(args.join(' '));
      console.info = (...args: unknown[]) => void notices.push(args.join(' '));
      process.on('warning', (w) => notices.push(`process warning: ${w.message}`));
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      env = await openEnv(engine, { publicUrl: base, cookieSecure: false });
      await env.app.listen({ port, host: '127.0.0.1' });
      await makeNonProfit(env.deps, { ein: EIN, name: 'American National Red Cross', city: 'Washington', state: 'DC' });
      developer = new HttpBrowser(base);
      await developer.signUp('Dev Eloper', `dev-${engine}@example.org`);
      await developer.request('GET', '/settings/apps');
      const registered = await developer.request('POST', '/settings/apps', { name: 'Match My Gift', redirect_uris: `${REDIRECT_URI}\nhttps://match.example.org/cb`, logo_uri: '' });
      assert.equal(registered.status, 303);
      const page = await developer.request('GET', '/settings/apps');
      clientId = /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page.body)?.[1] ?? '';
      secret = /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page.body)?.[1] ?? '';
      assert.ok(clientId !== '' && secret !== '', 'the client id and the secret are shown once');
      assert.ok(!(await developer.request('GET', '/settings/apps')).body.includes(secret), 'the secret is not shown again');
      donor = new HttpBrowser(base);
      await donor.signUp('Dana Donor', `dana-${engine}@example.org`);
      donorIds = await accountOf(env.deps, `dana-${engine}@example.org`);
      await fund(env.deps, donorIds, 100_000);
    });

    after(async () => {
      console.warn = original.warn;
      console.info = original.info;
      await env?.close();
    });

    it('discovery names the flows, PKCE S256 and the scopes', async () => {
      const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      assert.equal(discovery.issuer, base);
      assert.deepEqual(discovery.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(discovery.response_types_supported, ['code']);
      for (const scope of ['openid', 'read', 'donate', 'gifts']) assert.ok((discovery.scopes_supported as string[]).includes(scope), scope);
      assert.ok(String(discovery.revocation_endpoint).startsWith(base));
      const jwks = (await (await fetch(String(discovery.jwks_uri))).json()) as { keys: Record<string, unknown>[] };
      assert.ok(jwks.keys.length >= 1 && jwks.keys.every((k) => k.d === undefined), 'public keys only');
    });

    it('a donor signs in, consents with a monthly limit; the app donates with its token and is held to the limit', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid profile email read donate offline_access', { prompt: 'consent' });
      const { callback } = await donor.authorize(a.url, { decision: 'allow', monthly_limit: '50' });
      assert.ok(callback !== undefined, 'the browser came back to the app');
      const tokens = await exchange(rp, callback, a);
      assert.ok(tokens.refresh_token !== undefined, 'offline_access gives a refresh token');
      const claims = tokens.claims();
      assert.equal(claims?.sub, String(donorIds.user_id));
      const info = await client.fetchUserInfo(rp, tokens.access_token, String(claims?.sub));
      assert.equal(info.email, `dana-${engine}@example.org`);

      const bearer = `Bearer ${tokens.access_token}`;
      const me = await api(base, 'GET', '/v1/users/me', bearer);
      assert.equal(me.status, 200);
      assert.equal(me.body.id, donorIds.user_id);
      const made = await api(base, 'POST', '/v1/donations', bearer, { amount: 30, ein: EIN });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const before = await fingerprint(env.deps);
      const over = await api(base, 'POST', '/v1/donations', bearer, { amount: 25, ein: EIN });
      assert.equal(over.status, 403);
      assert.equal(over.body.code, 'app_limit_exceeded');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing was written');
      // A donation that fails gives its share of the limit back.
      const unknown = await api(base, 'POST', '/v1/donations', bearer, { amount: 20, ein: '000000001' });
      assert.equal(unknown.status, 404);
      assert.equal((await api(base, 'POST', '/v1/donations', bearer, { amount: 20, ein: EIN })).status, 201);

      // Keys-only routes are closed to app tokens whatever their scopes.
      const keys = await api(base, 'POST', '/v1/api_keys', bearer, { name: 'stolen' });
      assert.equal(keys.status, 403);
      assert.equal(keys.body.code, 'insufficient_scope');

      const refreshed = await client.refreshTokenGrant(rp, String(tokens.refresh_token));
      assert.equal((await api(base, 'GET', '/v1/users/me/balance', `Bearer ${refreshed.access_token}`)).status, 200);
    });

    it('a read-only token reads and is refused a donation with 403 insufficient_scope', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      assert.ok(callback !== undefined);
      const tokens = await exchange(rp, callback, a);
      const bearer = `Bearer ${tokens.access_token}`;
      assert.equal((await api(base, 'GET', '/v1/donations', bearer)).status, 200);
      const before = await fingerprint(env.deps);
      const refused = await api(base, 'POST', '/v1/donations', bearer, { amount: 5, ein: EIN });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'insufficient_scope');
      assert.match(String(refused.challenge), /insufficient_scope.*scope="donate"/);
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    it('the compatible header `<client_id> <id_token>` acts for the donor, and a bad one is 401 invalid_token', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      const tokens = await exchange(rp, String(callback), a);
      const idToken = String(tokens.id_token);
      const me = await api(base, 'GET', '/v1/users/me', `${clientId} ${idToken}`);
      assert.equal(me.status, 200);
      assert.equal(me.body.id, donorIds.user_id);
      const tampered = `${idToken.slice(0, -4)}AAAA`;
      const bad = await api(base, 'GET', '/v1/users/me', `${clientId} ${tampered}`);
      assert.equal(bad.status, 401);
      assert.equal(bad.body.code, 'invalid_token');
      const otherApp = await api(base, 'GET', '/v1/users/me', `app_${'x'.repeat(24)} ${idToken}`);
      assert.equal(otherApp.status, 401, 'an id token is for the app it was issued to');
    });

    it('the app revokes its tokens at the revocation endpoint: the access token is refused at once, a revoked refresh token refreshes nothing', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read offline_access', { prompt: 'consent' });
      const tokens = await exchange(rp, String((await donor.authorize(a.url, { decision: 'allow' })).callback), a);
      const bearer = `Bearer ${tokens.access_token}`;
      assert.equal((await api(base, 'GET', '/v1/users/me/balance', bearer)).status, 200);
      await client.tokenRevocation(rp, tokens.access_token, { token_type_hint: 'access_token' });
      const refused = await api(base, 'GET', '/v1/users/me/balance', bearer);
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'invalid_token');
      const refresh = String(tokens.refresh_token);
      await client.tokenRevocation(rp, refresh, { token_type_hint: 'refresh_token' });
      await assert.rejects(client.refreshTokenGrant(rp, refresh), (error: { error?: string }) => error.error === 'invalid_grant');
    });

    it('the flow refuses: no PKCE, a redirect URI not registered exactly, a reused code (and revokes its tokens), a wrong state or nonce', async () => {
      const rp = await relyingParty(base, clientId, secret);
      // No code_challenge: the app is sent back with invalid_request.
      const noPkce = client.buildAuthorizationUrl(rp, { redirect_uri: REDIRECT_URI, scope: 'openid read', state: 's1' });
      const first = await donor.authorize(noPkce.href, { decision: 'allow' });
      assert.match(String(first.callback), /error=invalid_request/);
      assert.match(decodeURIComponent(String(first.callback)), /PKCE/);
      // A redirect URI that is not registered, even by a trailing part: an error page, no redirect.
      const wrong = await authorizationUrl(rp, 'openid read', { redirect_uri: `${REDIRECT_URI}/extra` });
      const stopped = await donor.authorize(wrong.url, { decision: 'allow' }, 'http://localhost:4999/callback/extra');
      assert.equal(stopped.callback, undefined);
      assert.equal(stopped.stopped?.status, 400);
      assert.match(String(stopped.stopped?.body), /redirect_uri/);

      const a = await authorizationUrl(rp, 'openid read');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      // The app's library checks state and nonce.
      await assert.rejects(client.authorizationCodeGrant(rp, new URL(String(callback)), { pkceCodeVerifier: a.verifier, expectedState: 'another', expectedNonce: a.nonce }));
      const tokens = await exchange(rp, String(callback), a);
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 200);
      await assert.rejects(exchange(rp, String(callback), a), (error: { error?: string }) => error.error === 'invalid_grant');
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 401, "a reused code's tokens are revoked");

      const b = await authorizationUrl(rp, 'openid read');
      const second = await donor.authorize(b.url, { decision: 'allow' });
      await assert.rejects(client.authorizationCodeGrant(rp, new URL(String(second.callback)), { pkceCodeVerifier: b.verifier, expectedState: b.state, expectedNonce: 'another' }));
    });

    it('a donor who denies sends the app back with access_denied', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read donate', { prompt: 'consent' });
      const { callback } = await donor.authorize(a.url, { decision: 'deny' });
      assert.match(String(callback), /error=access_denied/);
    });

    it("a suspended donor's tokens are refused; a disabled app's tokens and id tokens are refused", async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      const tokens = await exchange(rp, String(callback), a);
      await setUserStatus(env.deps, donorIds.user_id, 'suspended', 'test:suspend');
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 403);
      await setUserStatus(env.deps, donorIds.user_id, 'active', 'test:reinstate');
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 200);
      await setAppEnabled(env.deps, clientId, false, 'test:operator', 'abuse');
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 401);
      assert.equal((await api(base, 'GET', '/v1/users/me', `${clientId} ${String(tokens.id_token)}`)).status, 401);
      await setAppEnabled(env.deps, clientId, true, 'test:operator');
      assert.equal((await api(base, 'GET', '/v1/users/me', `${clientId} ${String(tokens.id_token)}`)).status, 200);
    });

    it('a donor sees the app in Connected apps and disconnects it: its next call is 401', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      const tokens = await exchange(rp, String(callback), a);
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 200);
      const page = await donor.request('GET', '/settings/apps');
      assert.match(page.body, /Match My Gift/);
      const action = /action="(\/settings\/apps\/connections\/\d+\/disconnect)"/.exec(page.body)?.[1];
      assert.ok(action !== undefined);
      assert.equal((await donor.request('POST', action, {})).status, 303);
      assert.equal((await api(base, 'GET', '/v1/users/me', `Bearer ${tokens.access_token}`)).status, 401);
      assert.equal((await api(base, 'GET', '/v1/users/me', `${clientId} ${String(tokens.id_token)}`)).status, 401);
      await assert.rejects(client.refreshTokenGrant(rp, 'x'.repeat(43)));
    });

    it("a sandbox app acts only in the donor's sandbox book: its donations never touch live money", async () => {
      const developer = new HttpBrowser(base);
      await developer.signUp('Sandy Dev', `sandy-${engine}@example.org`);
      await developer.request('GET', '/settings/apps');
      assert.equal((await developer.request('POST', '/settings/apps', { name: 'Sandbox Tester', redirect_uris: REDIRECT_URI, sandbox: '1' })).status, 303);
      const page = await developer.request('GET', '/settings/apps');
      const sandboxId = /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page.body)?.[1] ?? '';
      const sandboxSecret = /readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page.body)?.[1] ?? '';
      const rp = await relyingParty(base, sandboxId, sandboxSecret);
      const a = await authorizationUrl(rp, 'openid read donate');
      const consent = await donor.authorize(a.url, undefined);
      assert.match(String(consent.stopped?.body), /sandbox app/i, 'the consent page says so');
      const { callback } = await donor.authorize(a.url, { decision: 'allow' });
      const tokens = await exchange(rp, String(callback), a);
      const bearer = `Bearer ${tokens.access_token}`;
      const me = await api(base, 'GET', '/v1/users/me', bearer);
      assert.equal(me.status, 200);
      assert.notEqual(me.body.id, donorIds.user_id, "the donor's sandbox twin, not the donor");
      const live = await api(base, 'GET', `/v1/users/${donorIds.user_id}/donations`, bearer);
      assert.equal(live.status, 404, 'the live user is not found from the sandbox book');
      const balanceBefore = await api(base, 'GET', '/v1/users/me/balance', bearer);
      const made = await api(base, 'POST', '/v1/donations', bearer, { amount: 10, ein: EIN });
      assert.equal(made.status, 201);
      assert.equal(made.body.status, 'waiting_for_funds', 'the sandbox fund has no money; the live fund is not touched');
      const row = await env.deps.db.selectFrom('donations').select(['book', 'fund_id']).where('id', '=', Number(made.body.id)).executeTakeFirstOrThrow();
      assert.equal(row.book, 'test');
      assert.notEqual(row.fund_id, donorIds.fund_id);
      assert.equal(balanceBefore.status, 200);
    });

    it('operators list apps and disable one, audited (API and CLI)', async () => {
      const { createAdminToken } = await import('../src/modules/admin/index.ts');
      const token = await createAdminToken(env.deps, 'apps test', 'test:harness');
      const admin = (method: string, path: string, body?: unknown) =>
        fetch(new URL(path, base), {
          method,
          headers: { authorization: `Bearer ${token.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const listed = (await (await admin('GET', '/admin/v1/apps')).json()) as { data: { client_id: string; connections: number }[] };
      assert.ok(listed.data.some((a) => a.client_id === clientId));
      const disabled = await admin('POST', `/admin/v1/apps/${clientId}/disable`, { reason: 'phishing reports' });
      assert.equal(disabled.status, 200);
      assert.equal(((await disabled.json()) as { disabled_reason: string }).disabled_reason, 'phishing reports');
      const again = await admin('POST', `/admin/v1/apps/${clientId}/disable`, {});
      assert.equal(again.status, 409);
      assert.equal(((await again.json()) as { code: string }).code, 'app_unchanged');
      const unknown = await admin('POST', `/admin/v1/apps/app_${'0'.repeat(24)}/enable`, {});
      assert.equal(unknown.status, 404);
      // A disabled app cannot start a sign-in.
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const refused = await donor.authorize(a.url, { decision: 'allow' });
      assert.equal(refused.callback, undefined);
      assert.equal(refused.stopped?.status, 400);
      assert.equal((await admin('POST', `/admin/v1/apps/${clientId}/enable`, {})).status, 200);
      const audit = await env.deps.db.selectFrom('audit_log').select(['action', 'actor']).where('object_type', '=', 'app').execute();
      assert.deepEqual(
        audit.map((e) => e.action),
        ['app.disable', 'app.enable', 'app.disable', 'app.enable'],
      );
      const cli = await runCli(['apps', 'list'], env.deps.config.databaseUrl);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, new RegExp(`${clientId}  active`));
      const bad = await runCli(['apps', 'disable', 'nope'], env.deps.config.databaseUrl);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /CLIENT_ID/);
    });

    it("the owner renews an app's secret (the old one fails at once) and deletes an app (its donors disconnected, never enabled again)", async () => {
      await developer.request('GET', '/settings/apps');
      assert.equal((await developer.request('POST', '/settings/apps', { name: 'Campaign Site', redirect_uris: REDIRECT_URI, logo_uri: '' })).status, 303);
      const page = (await developer.request('GET', '/settings/apps')).body;
      const campaign = /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page)?.[1] ?? '';
      const oldSecret = /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page)?.[1] ?? '';
      const connect = async (s: string) => {
        const rp = await relyingParty(base, campaign, s);
        const a = await authorizationUrl(rp, 'openid read');
        return exchange(rp, String((await donor.authorize(a.url, { decision: 'allow' })).callback), a);
      };
      const tokens = await connect(oldSecret);
      const bearer = `Bearer ${tokens.access_token}`;

      const renewed = await developer.request('POST', `/settings/apps/${campaign}/secret`, {});
      assert.deepEqual([renewed.status, renewed.location], [303, `${base}/settings/apps?done=app_secret`]);
      const shown = (await developer.request('GET', '/settings/apps?done=app_secret')).body;
      assert.match(shown, /A new client secret\./);
      const newSecret = /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(shown)?.[1] ?? '';
      assert.ok(newSecret !== '' && newSecret !== oldSecret);
      await assert.rejects(
        connect(oldSecret),
        (error: { status?: number; cause?: unknown }) => error.status === 401 && /invalid_client/.test(JSON.stringify(error.cause)),
        'the old secret no longer works',
      );
      await connect(newSecret);
      assert.equal((await api(base, 'GET', '/v1/users/me', bearer)).status, 200, 'tokens already issued keep working');
      const stranger = new HttpBrowser(base);
      await stranger.signUp('Sam Stranger', `sam-${engine}@example.org`);
      await stranger.request('GET', '/settings/apps');
      assert.equal((await stranger.request('POST', `/settings/apps/${campaign}/secret`, {})).status, 404, "not another user's app");
      assert.equal((await stranger.request('POST', `/settings/apps/${campaign}/delete`, {})).status, 404);

      const deleted = await developer.request('POST', `/settings/apps/${campaign}/delete`, {});
      assert.deepEqual([deleted.status, deleted.location], [303, `${base}/settings/apps?done=app_deleted`]);
      const refused = await api(base, 'GET', '/v1/users/me', bearer);
      assert.deepEqual([refused.status, refused.body.code], [401, 'invalid_token']);
      assert.ok(!(await developer.request('GET', '/settings/apps')).body.includes(campaign), "gone from its owner's list");
      assert.ok(!(await donor.request('GET', '/settings/apps')).body.includes('Campaign Site'), "gone from the donor's connected apps");
      const { createAdminToken } = await import('../src/modules/admin/index.ts');
      const token = await createAdminToken(env.deps, 'apps delete test', 'test:harness');
      const enable = await fetch(new URL(`/admin/v1/apps/${campaign}/enable`, base), {
        method: 'POST',
        headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      assert.deepEqual([enable.status, ((await enable.json()) as { code: string }).code], [409, 'app_deleted']);
      const audit = await env.deps.db.selectFrom('audit_log').select(['action', 'actor', 'after']).where('action', '=', 'app.delete').execute();
      assert.equal(audit.length, 1);
      assert.match(String(audit[0]?.after), /"connections_ended":1/);
      const cli = await runCli(['apps', 'list'], env.deps.config.databaseUrl);
      assert.match(cli.stdout, new RegExp(`${campaign}  deleted`));
    });

    it('a rotated signing key signs from the next start; id tokens of the retired key still verify', async () => {
      const rp = await relyingParty(base, clientId, secret);
      const a = await authorizationUrl(rp, 'openid read');
      const tokens = await exchange(rp, String((await donor.authorize(a.url, { decision: 'allow' })).callback), a);
      const cli = await runCli(['apps', 'rotate-signing-key'], env.deps.config.databaseUrl);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /New signing key \S+; 1 older key\(s\) retired/);
      assert.equal((await api(base, 'GET', '/v1/users/me', `${clientId} ${String(tokens.id_token)}`)).status, 200);
      const keys = await env.deps.db.selectFrom('oidc_keys').select(['retired_at']).where('use', '=', 'signing').execute();
      assert.equal(keys.filter((k) => k.retired_at === null).length, 1);
    });

    it('the provider said nothing: no warning or notice', () => {
      assert.deepEqual(
        notices.filter((n) => /oidc-provider|warning/i.test(n)),
        [],
      );
    });
  });
}
