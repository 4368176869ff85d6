// What an outside review tried as an attacker would, each on both engines:
// redirects after sign-in, control characters, a throttle raced by parallel
// requests, JSON nested to blow the stack, amounts that round when parsed,
// contributions beyond any exact sum, errors raised before routing, and a
// public profile showing donations that did not happen.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, accountOf, fund, makeNonProfit, call, fingerprint, assertLedgerBalanced, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { applyDonationEvent } from '../src/modules/donations/index.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';
import { createAdminToken } from '../src/modules/admin/admin.service.ts';
import { SIGN_IN_FAILURES_PER_EMAIL } from '../src/modules/accounts/accounts.ts';
import { CONTRIBUTION_MAX_CENTS, FUND_MAX_CENTS } from '../src/shared/money.ts';

const EIN = '261544963';
const PASSWORD = 'correct horse battery';

for (const { name: engine } of engines()) {
  describe(`attacks on ${engine}`, () => {
    let env: TestEnv;
    let seq = 0;
    const email = () => `person${++seq}-${engine}@example.org`;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
    });
    after(async () => env.close());

    /** A signed-out browser of an account that exists, on the sign-in page. */
    async function signedOut(): Promise<{ browser: WebClient; address: string }> {
      const browser = new WebClient(env.app);
      const address = email();
      await browser.signUp('Sam Signin', address);
      await browser.get('/dashboard');
      await browser.post('/signout', {});
      await browser.get('/signin');
      return { browser, address };
    }

    test('after sign-in only a same-origin path survives `next`, judged as a browser parses it', async () => {
      const hostile = [
        '/\t/evil.com',
        '/\n/evil.com',
        '//evil.com',
        '/\\evil.com',
        '/\\/evil.com',
        'https://evil.com/',
        '/\u3000/evil.com',
        '/\u200b/evil.com',
        'javascript:alert(1)',
        ' /dashboard',
      ];
      for (const next of hostile) {
        const page = await new WebClient(env.app).get(`/signin?next=${encodeURIComponent(next)}`);
        assert.equal(page.status, 200, JSON.stringify(next));
        assert.match(page.body, /name="next" value="\/dashboard"/, `the form carries the dashboard, not ${JSON.stringify(next)}`);
        const { browser, address } = await signedOut();
        const res = await browser.post('/signin', { email: address, password: PASSWORD, next });
        assert.equal(res.status, 303, JSON.stringify(next));
        assert.equal(res.location, '/dashboard', JSON.stringify(next));
      }
      const { browser, address } = await signedOut();
      const res = await browser.post('/signin', { email: address, password: PASSWORD, next: '/charities?query=food#top' });
      assert.equal(res.location, '/charities?query=food#top', 'a path of the site survives');
    });

    test('control characters in `next` never make a 500: the dashboard instead', async () => {
      for (const bad of ['\n', '\r\n', '\0', '\v', '\f', '\x1f', '\x7f', '\u3000', '\u2028']) {
        const next = `/dash${bad}board`;
        const page = await new WebClient(env.app).get(`/signin?next=${encodeURIComponent(next)}`);
        assert.equal(page.status, 200, JSON.stringify(bad));
        const { browser, address } = await signedOut();
        const res = await browser.post('/signin', { email: address, password: PASSWORD, next });
        assert.equal(res.status, 303, JSON.stringify(bad));
        assert.equal(res.location, '/dashboard');
      }
    });

    test('parallel sign-ins: no more wrong passwords are evaluated than the throttle allows', async () => {
      const { browser, address } = await signedOut();
      const attempts = [...Array.from({ length: 19 }, (_, i) => `wrong password ${i}`), PASSWORD];
      const results = await Promise.all(attempts.map((password) => browser.post('/signin', { email: address, password })));
      const statuses = results.map((r) => r.status);
      const evaluated = statuses.filter((s) => s === 401 || s === 303).length;
      assert.ok(evaluated <= SIGN_IN_FAILURES_PER_EMAIL, `at most ${SIGN_IN_FAILURES_PER_EMAIL} evaluated: ${statuses.join(',')}`);
      assert.equal(statuses.filter((s) => s === 429).length, attempts.length - evaluated, 'the rest are throttled');
      for (const r of results.filter((x) => x.status === 429)) assert.ok(Number(r.headers['retry-after']) > 0);
      const failures = await env.deps.db
        .selectFrom('sign_in_failures')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('email', '=', address)
        .executeTakeFirstOrThrow();
      assert.ok(Number(failures.n) <= SIGN_IN_FAILURES_PER_EMAIL);
    });

    test('JSON nested past the limit is 400 invalid_json, never a 5xx, and changes nothing', async () => {
      const user = await makeUser(env.deps);
      const before = await fingerprint(env.deps);
      for (const body of [
        `${'['.repeat(21_000)}"\\u0000"${']'.repeat(21_000)}`,
        `{"amount":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`,
        '['.repeat(100_000).slice(0, 60_000),
      ]) {
        const res = await call(env.app, 'POST', '/v1/donations', { key: user.key, body });
        assert.equal(res.status, 400);
        assert.equal(res.body.code, 'invalid_json');
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('an amount is judged by its text as sent: nothing rounds into a valid amount', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 100_000);
      const before = await fingerprint(env.deps);
      for (const [url, text] of [
        ['/v1/donations', `{"amount":10.009999999999999999,"ein":"${EIN}"}`],
        ['/v1/donations', `{"amount":10.0000000000000001,"ein":"${EIN}"}`],
        ['/v1/gifts', '{"name":"Ada","amount":17.999999999999999999}'],
        ['/v1/gifts', '{"name":"Ada","amount":18.000000000000000001}'],
        ['/v1/scheduled_donations', `{"amount":25.0000000000000000001,"ein":"${EIN}","frequency":"Monthly"}`],
      ] as const) {
        const res = await call(env.app, 'POST', url, { key: user.key, body: text });
        assert.equal(res.status, 422, text);
        assert.equal(res.body.code, 'amount_invalid', text);
        assert.deepEqual(
          res.body.errors.map((e: { field: string }) => e.field),
          ['amount'],
        );
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      // The same numbers written plainly are fine.
      assert.equal((await call(env.app, 'POST', '/v1/gifts', { key: user.key, body: '{"name":"Ada","amount":18.00}' })).status, 201);
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: user.key, body: `{"amount":1e1,"ein":"${EIN}"}` })).status, 201);
    });

    test('on the web forms too, an amount that would round is refused', async () => {
      const browser = new WebClient(env.app);
      const address = email();
      await browser.signUp('Form Filler', address);
      await fund(env.deps, await accountOf(env.deps, address), 100_000);
      await browser.get('/dashboard');
      const before = await fingerprint(env.deps);
      for (const [url, fields] of [
        ['/dashboard/gifts', { name: 'Ada', amount: '17.999999999999999999' }],
        ['/dashboard/donations', { ein: EIN, amount: '10.0000000000000001' }],
        ['/dashboard/donations', { ein: EIN, amount: '10.009999999999999999' }],
      ] as const) {
        const res = await browser.post(url, fields);
        assert.equal(res.status, 422, `${url} ${fields.amount}`);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('contributions and funds have bounds that keep every sum exact; beyond them 422, and nothing breaks', async () => {
      const operator = (await createAdminToken(env.deps, 'bounds', 'test')).token;
      const auth = { authorization: `Bearer ${operator}` };
      const user = await makeUser(env.deps);
      const before = await fingerprint(env.deps);
      for (const [units, valuation] of [
        ['999999999999', '999999999999'],
        ['900000000000', '100'],
        ['1000000000.01', '1'],
      ]) {
        const res = await call(env.app, 'POST', '/admin/v1/contributions', {
          headers: auth,
          body: { user_id: user.user_id, type: 'stock_payment', units, valuation, currency: 'AAPL', status: 'success' },
        });
        assert.equal(res.status, 422, `${units} x ${valuation}`);
        assert.equal(res.body.code, 'amount_invalid');
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      // A fund fills to its bound, and not a cent past it.
      const max = String(CONTRIBUTION_MAX_CENTS / 100);
      for (let i = 0; i < FUND_MAX_CENTS / CONTRIBUTION_MAX_CENTS; i++) {
        await recordContribution(env.deps, {
          user_id: user.user_id,
          fund_id: user.fund_id,
          type: 'wire_payment',
          units: max,
          valuation: '1',
          currency: 'USD',
          frequency: 'OneTime',
          status: 'success',
        });
      }
      const full = await fingerprint(env.deps);
      const over = await call(env.app, 'POST', '/admin/v1/contributions', {
        headers: auth,
        body: { user_id: user.user_id, type: 'wire_payment', units: '0.01', valuation: '1', currency: 'USD', status: 'pending' },
      });
      assert.equal(over.status, 422);
      assert.equal(over.body.code, 'amount_invalid');
      assert.deepEqual(await fingerprint(env.deps), full);
      // Everything that reads the fund still works, exactly.
      const balance = await call(env.app, 'GET', '/v1/users/me/balance', { key: user.key });
      assert.equal(balance.status, 200);
      assert.equal(balance.body.available_balance, FUND_MAX_CENTS / 100);
      const gift = await call(env.app, 'POST', '/v1/gifts', { key: user.key, body: { name: 'A', amount: 10_000_000 } });
      assert.equal(gift.status, 201);
      // The gift cannot take a full fund past its bound either.
      const other = await makeUser(env.deps);
      await fund(env.deps, other, 10_000);
      const small = await call(env.app, 'POST', '/v1/gifts', { key: other.key, body: { name: 'B', amount: 18 } });
      const accepted = await call(env.app, 'POST', `/v1/gifts/${small.body.code}/accept`, { key: user.key });
      assert.equal(accepted.status, 422);
      assert.equal(accepted.body.code, 'amount_invalid');
      assert.equal((await call(env.app, 'GET', `/admin/v1/users/${user.user_id}/statement`, { headers: auth })).status, 200);
      await assertLedgerBalanced(env.deps);
    });

    test('errors raised before routing (a path too long, a query string too large) are problem+json with a request id', async () => {
      const user = await makeUser(env.deps);
      await env.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(env.app.server.address() as { port: number }).port}`;
      for (const [url, status, code] of [
        [`/v1/gifts/${'a'.repeat(600)}`, 414, 'uri_too_long'],
        [`/v1/users/${'b'.repeat(600)}/donations`, 414, 'uri_too_long'],
        [`/v1/non_profits?query=${'c'.repeat(20_000)}`, 431, 'headers_too_large'],
      ] as const) {
        const res = await fetch(`${base}${url}`, { headers: { 'x-api-key': user.key } });
        assert.equal(res.status, status, url.slice(0, 30));
        assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
        const body = (await res.json()) as { code: string; request_id: string; status: number };
        assert.equal(body.code, code);
        assert.equal(body.status, status);
        assert.match(body.request_id, /^[0-9A-Z]{26}$/);
        assert.equal(res.headers.get('x-request-id'), body.request_id);
      }
    });

    test('others never see a donation that did not happen, on the API or the web profile', async () => {
      const ada = await makeUser(env.deps, { name: 'Ada Public', slug: `ada-${engine}` });
      await fund(env.deps, ada, 100_000);
      const kept = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 10, ein: EIN, note: 'This one happened' } });
      const cancelled = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 11, ein: EIN, note: 'Changed my mind' } });
      const rejected = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 12, ein: EIN, note: 'Refused by the platform' } });
      assert.equal((await call(env.app, 'DELETE', `/v1/donations/${cancelled.body.id}`, { key: ada.key })).status, 200);
      await applyDonationEvent(env.deps, 'live', rejected.body.id, 'reject', { actor: 'test', reason: 'test' });
      const viewer = await makeUser(env.deps);
      const list = await call(env.app, 'GET', `/v1/users/${ada.user_id}/donations`, { key: viewer.key });
      assert.deepEqual(
        list.body.items.map((d: { id: number }) => d.id),
        [kept.body.id],
      );
      assert.equal(list.body.meta.count, 1, 'the count agrees');
      for (const id of [cancelled.body.id, rejected.body.id]) {
        const one = await call(env.app, 'GET', `/v1/users/${ada.user_id}/donations/${id}`, { key: viewer.key });
        assert.equal(one.status, 404);
        assert.equal(one.body.code, 'donation_not_found');
      }
      const own = await call(env.app, 'GET', `/v1/users/${ada.user_id}/donations`, { key: ada.key });
      assert.equal(own.body.meta.count, 3, 'the owner still sees all three');
      const page = textOf((await new WebClient(env.app).get(`/ada-${engine}`)).body);
      assert.ok(page.includes('This one happened'));
      assert.ok(!page.includes('Changed my mind') && !page.includes('Not completed'), 'no cancelled donation on the profile');
      assert.ok(!page.includes('Refused by the platform'), 'no rejected donation on the profile');
      await assertLedgerBalanced(env.deps);
    });
  });
}
