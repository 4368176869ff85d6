// The web app over HTTP (inject), on every engine: accounts and sessions,
// CSRF, keys, the dashboard's forms, public pages, gifts, and escaping.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, accountOf, fund, makeNonProfit, makeUser, call, fingerprint, assertLedgerBalanced, TestClock, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { setUserStatus } from '../src/modules/users/index.ts';

const EIN = '261544963';
const OTHER_EIN = '135562308';
const INELIGIBLE_EIN = '990000001';
const XSS = '<script>alert(1)</script><img src=x onerror=alert(2)>';

async function userIdOf(env: TestEnv, email: string): Promise<number> {
  const row = await env.deps.db.selectFrom('accounts').select('user_id').where('email', '=', email).executeTakeFirstOrThrow();
  return row.user_id;
}

for (const { name: engine } of engines()) {
  describe(`web app (${engine})`, () => {
    let env: TestEnv;
    const clock = new TestClock('2026-11-22T12:00:00.000Z');
    let seq = 0;
    const email = () => `donor${++seq}@example.org`;

    before(async () => {
      env = await openEnv(engine, {}, { clock });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Khan Academy', city: 'Mountain View', state: 'CA' });
      await makeNonProfit(env.deps, { ein: OTHER_EIN, name: 'Khan Family Food Shelf', city: 'Burlington', state: 'VT' });
      await makeNonProfit(env.deps, { ein: INELIGIBLE_EIN, name: 'Closed Charity of Vermont', eligible: 0 });
    });
    after(async () => env.close());

    /** A signed-up donor whose fund holds `cents`, on the dashboard. */
    async function donor(name: string, cents: number) {
      const browser = new WebClient(env.app);
      const address = email();
      await browser.signUp(name, address);
      const f = await accountOf(env.deps, address);
      await fund(env.deps, f, cents);
      await browser.get('/dashboard');
      return { browser, address, f };
    }

    test('sign up opens a fund and a session in a cookie that scripts cannot read', async () => {
      const b = new WebClient(env.app);
      const address = email();
      const r = await b.signUp('Ada Lovelace', address);
      assert.equal(r.status, 303);
      assert.equal(r.location, '/dashboard?done=welcome');
      const cookie = ([] as string[]).concat(r.headers['set-cookie'] as string[]).find((c) => c.startsWith('almoner_session='));
      assert.ok(cookie, 'a session cookie is set');
      assert.match(cookie, /; HttpOnly/);
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /; SameSite=Lax/);
      const account = await env.deps.db.selectFrom('accounts').selectAll().where('email', '=', address).executeTakeFirstOrThrow();
      assert.match(account.password_hash, /^scrypt\$\d+\$8\$\d+\$[\w-]+\$[\w-]+$/);
      assert.ok(!account.password_hash.includes('correct horse'), 'never the password itself');
      const session = await env.deps.db.selectFrom('web_sessions').selectAll().where('user_id', '=', account.user_id).executeTakeFirstOrThrow();
      assert.notEqual(session.id_hash, b.cookies.get('almoner_session'), 'only the hash of the cookie is stored');
      const dash = await b.get('/dashboard?done=welcome');
      assert.equal(dash.status, 200);
      const text = textOf(dash.body);
      for (const figure of ['Total', 'Available to give', 'Pending deposits', 'Invested']) assert.ok(text.includes(figure), figure);
      assert.ok(text.includes('Welcome to Almoner'));
      assert.ok(text.includes('Hello, Ada Lovelace'));
    });

    test('sign-up mistakes are shown beside their fields and change nothing', async () => {
      const taken = email();
      await new WebClient(env.app).signUp('First', taken);
      const cases: Array<[Record<string, string>, number, string[]]> = [
        [{ name: '', email: 'x@example.org', password: 'long enough pass' }, 422, ['name is required']],
        [{ name: 'X', email: 'not-an-email', password: 'long enough pass' }, 422, ['email must be an email address']],
        [{ name: 'X', email: 'y@example.org', password: 'short' }, 422, ['password must be at least 10 characters']],
        [{ name: 'X', email: 'y@example.org', password: 'p'.repeat(201) }, 422, ['password must be at most 200 characters']],
        [{ name: 'N'.repeat(201), email: 'y@example.org', password: 'long enough pass' }, 422, ['name must be at most 200 characters']],
        [{ name: '', email: '', password: '' }, 422, ['name is required', 'email must be an email address', 'password must be at least']],
        [{ name: 'Second', email: taken.toUpperCase(), password: 'long enough pass' }, 409, ['An account with this email exists']],
      ];
      for (const [fields, status, messages] of cases) {
        const b = new WebClient(env.app);
        await b.get('/signup');
        const before = await fingerprint(env.deps);
        const r = await b.post('/signup', fields);
        assert.equal(r.status, status, JSON.stringify(fields));
        const text = textOf(r.body);
        for (const m of messages) assert.ok(text.includes(m), `${m} in: ${text.slice(0, 300)}`);
        assert.ok(!r.body.includes('long enough pass'), 'the password is never echoed');
        assert.deepEqual(await fingerprint(env.deps), before, 'nothing was created');
        assert.equal(b.cookies.has('almoner_session'), false);
      }
    });

    test('sign in, sign out, and a session id planted before sign-in is worthless after it', async () => {
      const address = email();
      const owner = new WebClient(env.app);
      await owner.signUp('Planter', address);
      const planted = owner.cookies.get('almoner_session')!;
      // The attacker's own valid session cookie is planted in the victim's browser.
      const victim = new WebClient(env.app);
      victim.cookies.set('almoner_session', planted);
      const victimAddress = email();
      await new WebClient(env.app).signUp('Victim', victimAddress);
      const wrong = await victim.signIn(victimAddress, 'not the password');
      assert.equal(wrong.status, 401);
      assert.ok(textOf(wrong.body).includes('The email or the password is wrong'));
      const ok = await victim.signIn(victimAddress);
      assert.equal(ok.status, 303);
      assert.equal(ok.location, '/dashboard');
      const now = victim.cookies.get('almoner_session')!;
      assert.notEqual(now, planted, 'a new session id on sign-in');
      assert.ok(textOf((await victim.get('/dashboard')).body).includes('Hello, Victim'));
      const attacker = new WebClient(env.app);
      attacker.cookies.set('almoner_session', planted);
      const attackerView = await attacker.get('/dashboard');
      assert.equal(attackerView.status, 303, 'the planted session was ended when the victim signed in over it');
      // Signing out ends the session on the server, not only in the browser.
      const out = await victim.post('/signout', {});
      assert.equal(out.status, 303);
      const replay = new WebClient(env.app);
      replay.cookies.set('almoner_session', now);
      assert.equal((await replay.get('/dashboard')).status, 303);
    });

    test('signing in goes back to the page that asked, but never to another site', async () => {
      const address = email();
      await new WebClient(env.app).signUp('Next', address);
      const b = new WebClient(env.app);
      const asked = await b.get('/settings/keys');
      assert.equal(asked.status, 303);
      assert.equal(asked.location, '/signin?next=%2Fsettings%2Fkeys');
      await b.get(asked.location!);
      assert.equal((await b.post('/signin', { email: address, password: 'correct horse battery', next: '/settings/keys' })).location, '/settings/keys');
      for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
        const c = new WebClient(env.app);
        await c.get('/signin');
        assert.equal((await c.post('/signin', { email: address, password: 'correct horse battery', next })).location, '/dashboard', next);
      }
    });

    test('failed sign-ins are throttled per account, even with the right password, until the window passes', async () => {
      const address = email();
      await new WebClient(env.app).signUp('Throttled', address);
      const b = new WebClient(env.app);
      for (let i = 0; i < 5; i++) assert.equal((await b.signIn(address, `wrong password ${i}`)).status, 401);
      const refused = await b.signIn(address);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.ok(textOf(refused.body).includes('Too many failed sign-ins'));
      assert.equal(b.cookies.has('almoner_session'), false);
      clock.set(new Date(clock.now().getTime() + 15 * 60_000 + 1000).toISOString());
      assert.equal((await b.signIn(address)).status, 303);
    });

    test('a suspended user is signed out at once and cannot sign in; a session ends when its time is up', async () => {
      const address = email();
      const b = new WebClient(env.app);
      await b.signUp('Suspended Soon', address);
      assert.equal((await b.get('/dashboard')).status, 200);
      const userId = await userIdOf(env, address);
      await setUserStatus(env.deps, userId, 'suspended', 'operator:test');
      assert.equal((await b.get('/dashboard')).status, 303, 'the open session stops working on the next request');
      const refused = await b.signIn(address);
      assert.equal(refused.status, 403);
      assert.ok(textOf(refused.body).includes('This account is suspended'));
      await setUserStatus(env.deps, userId, 'active', 'operator:test');
      assert.equal((await b.signIn(address)).status, 303);
      assert.equal((await b.get('/dashboard')).status, 200);
      const sessions = () => env.deps.db.selectFrom('web_sessions').select('id_hash').where('user_id', '=', userId).execute();
      const stale = (await sessions()).length;
      assert.ok(stale >= 2, 'the sign-up session and this one');
      clock.set(new Date(clock.now().getTime() + env.deps.config.sessionTtlHours * 3_600_000 + 1000).toISOString());
      const expired = await b.get('/dashboard');
      assert.equal(expired.status, 303, 'expired');
      assert.equal(b.cookies.has('almoner_session'), false, 'and the browser is told to forget it');
      assert.equal((await b.signIn(address)).status, 303);
      assert.equal((await sessions()).length, 1, 'expired sessions are deleted when their user signs in');
    });

    test('sign-ups are limited per address; the refused one creates nothing', async () => {
      // Windows are whole minutes: a clock held mid-minute keeps all three sign-ups in one.
      const limited = await openEnv(engine, { signUpsPerMinute: 2 }, { clock: new TestClock('2026-11-22T12:00:30.000Z') });
      try {
        for (let i = 0; i < 2; i++) assert.equal((await new WebClient(limited.app).signUp(`Quick ${i}`, `quick${i}@example.org`)).status, 303);
        const b = new WebClient(limited.app);
        await b.get('/signup');
        const before = await fingerprint(limited.deps);
        const refused = await b.post('/signup', { name: 'Third', email: 'quick3@example.org', password: 'long enough pass' });
        assert.equal(refused.status, 429);
        assert.ok(Number(refused.headers['retry-after']) > 0);
        assert.match(refused.body, /<html/);
        assert.deepEqual(await fingerprint(limited.deps), before);
      } finally {
        await limited.close();
      }
    });

    test('a signed-out visitor cannot reach the dashboard or settings, or act there', async () => {
      const b = new WebClient(env.app);
      for (const path of ['/dashboard', '/settings/keys', '/settings/profile', '/settings/keys/1']) {
        const r = await b.get(path);
        assert.equal(r.status, 303, path);
        assert.equal(r.location, `/signin?next=${encodeURIComponent(path)}`);
      }
      await b.get('/signin');
      const before = await fingerprint(env.deps);
      for (const path of ['/dashboard/donations', '/dashboard/gifts', '/settings/keys', '/dashboard/donations/1/cancel', '/settings/keys/1/revoke']) {
        const r = await b.post(path, { ein: EIN, amount: '20', name: 'x' });
        assert.equal(r.status, 303, path);
        assert.equal(r.location, '/signin');
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('forms without the CSRF token, with a wrong one, from another origin or not as a form are refused', async () => {
      const address = email();
      const b = new WebClient(env.app);
      await b.signUp('Csrf', address);
      await fund(env.deps, await accountOf(env.deps, address), 100_00);
      await b.get('/dashboard');
      const fields = { ein: EIN, amount: '20' };
      const before = await fingerprint(env.deps);
      const cases: Array<[string, () => Promise<{ status: number; body: string }>, number]> = [
        ['no token', () => b.post('/dashboard/donations', fields, { csrf: false }), 403],
        ['a wrong token', () => b.post('/dashboard/donations', fields, { csrf: 'A'.repeat(43) }), 403],
        ['the anonymous token instead of the session one', () => b.post('/dashboard/donations', fields, { csrf: b.cookies.get('almoner_csrf') ?? 'none' }), 403],
        ['another origin', () => b.post('/dashboard/donations', fields, { headers: { origin: 'https://evil.example' } }), 403],
        ['an opaque origin', () => b.post('/dashboard/donations', fields, { headers: { origin: 'null' } }), 403],
        ['JSON', () => b.request('POST', '/dashboard/donations', { body: JSON.stringify({ ...fields, _csrf: b.csrf }), headers: { 'content-type': 'application/json' } }), 415],
        ['text/plain', () => b.request('POST', '/dashboard/donations', { body: `_csrf=${b.csrf}&ein=${EIN}&amount=20`, headers: { 'content-type': 'text/plain' } }), 415],
        ['sign out without a token', () => b.post('/signout', {}, { csrf: false }), 403],
        ['key revoke without a token', () => b.post('/settings/keys/1/revoke', {}, { csrf: false }), 403],
      ];
      for (const [label, send, status] of cases) {
        const r = await send();
        assert.equal(r.status, status, label);
        assert.match(r.body, /<html/, `${label}: an HTML page`);
      }
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing changed');
      const anonymous = new WebClient(env.app);
      await anonymous.get('/signup');
      const r = await anonymous.post('/signup', { name: 'X', email: email(), password: 'long enough pass' }, { csrf: false });
      assert.equal(r.status, 403, 'sign-up forms carry a token too');
      assert.equal((await b.post('/dashboard/donations', fields)).status, 303, 'the same form with its token works');
    });

    test("API keys: created with a name and shown once, listed by their last 4, revoked at once; another user's key is out of reach", async () => {
      const b = new WebClient(env.app);
      const address = email();
      await b.signUp('Keys', address);
      await b.get('/settings/keys');
      const posted = await b.post('/settings/keys', { name: 'Budget sheet', mode: 'live' });
      assert.equal(posted.status, 303, 'redirected, so reloading the page never makes a second key');
      assert.ok(!posted.body.includes('alm_live_') && !posted.location?.includes('alm_'), 'the key is not in the redirect');
      const created = await b.get(posted.location!);
      assert.equal(created.headers['cache-control'], 'no-store');
      const key = /id="new-key" class="key" readonly value="(alm_live_[0-9A-Za-z]{40})"/.exec(created.body)?.[1];
      assert.ok(key, 'the new key is on the page');
      const me = await call(env.app, 'GET', '/v1/users/me', { key });
      assert.equal(me.status, 200);
      assert.equal(me.body.id, await userIdOf(env, address));
      const list = await b.get('/settings/keys');
      assert.ok(!list.body.includes(key), 'shown only once');
      assert.ok(textOf(list.body).includes(`…${key.slice(-4)}`));
      assert.ok(textOf(list.body).includes('Budget sheet'));
      const id = Number(/data-key="(\d+)"/.exec(list.body)?.[1]);
      assert.ok(textOf((await b.get(`/settings/keys/${id}`)).body).includes('Budget sheet'));

      // Another user cannot see or revoke it.
      const other = new WebClient(env.app);
      await other.signUp('Other', email());
      assert.equal((await other.get(`/settings/keys/${id}`)).status, 404);
      await other.get('/settings/keys');
      const before = await fingerprint(env.deps);
      assert.equal((await other.post(`/settings/keys/${id}/revoke`, {})).status, 404);
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await call(env.app, 'GET', '/v1/users/me', { key })).status, 200, 'still works');

      const empty = await b.post('/settings/keys', { name: '  ' });
      assert.equal(empty.status, 422);
      assert.ok(textOf(empty.body).includes('name is required'));

      const revoked = await b.post(`/settings/keys/${id}/revoke`, {});
      assert.equal(revoked.status, 303);
      const after = await call(env.app, 'GET', '/v1/users/me', { key });
      assert.equal(after.status, 401);
      assert.equal(after.body.code, 'invalid_api_key');
      assert.equal((await b.get(`/settings/keys/${id}`)).status, 404);
    });

    test('a donation whose check was voided reads "Payment returned", not "Cancelled"', async () => {
      const { browser: b, f } = await donor('Returner', 50_00);
      assert.equal((await b.post('/dashboard/donations', { ein: '26-1544963', amount: '20', visibility: 'public' })).status, 303);
      const d = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', f.user_id).executeTakeFirstOrThrow();
      const { token } = await createAdminToken(env.deps, 'payments desk', 'test');
      for (const event of ['approve', 'mail_check', 'void_check']) {
        const moved = await env.app.inject({ method: 'POST', url: `/admin/v1/donations/${d.id}/${event}`, headers: { authorization: `Bearer ${token}` } });
        assert.equal(moved.statusCode, 200, `${event}: ${moved.body}`);
      }
      const row = new RegExp(`<tr data-donation="${d.id}">([\\s\\S]*?)</tr>`).exec((await b.get('/dashboard')).body)?.[1] ?? '';
      assert.ok(row.includes('Payment returned') && !row.includes('Cancelled'), row);
    });

    test('donating from the dashboard, choosing among matches by name, and cancelling exactly when allowed', async () => {
      const { browser: b, f } = await donor('Giver', 50_00);
      const r = await b.post('/dashboard/donations', { ein: '26-1544963', amount: '$25.50', note: 'For the videos', visibility: 'public' });
      assert.equal(r.status, 303);
      assert.equal(r.location, '/dashboard?done=donation_created#donations');
      const d = await env.deps.db.selectFrom('donations').selectAll().where('user_id', '=', f.user_id).executeTakeFirstOrThrow();
      assert.equal(d.amount_cents, 2550);
      assert.equal(d.status, 'scheduled');
      assert.equal(d.note, 'For the videos');

      const ambiguous = await b.post('/dashboard/donations', { ein: 'khan', amount: '10' });
      assert.equal(ambiguous.status, 200);
      assert.ok(textOf(ambiguous.body).includes('Which non-profit did you mean?'));
      assert.match(ambiguous.body, new RegExp(`type="radio" name="ein" value="${EIN}"`));
      assert.match(ambiguous.body, new RegExp(`type="radio" name="ein" value="${OTHER_EIN}"`));

      // More than the fund holds: asked first (nothing recorded), saying until when it would wait; then recorded, waiting for funds.
      const unchanged = await fingerprint(env.deps);
      const asked = await b.post('/dashboard/donations', { ein: OTHER_EIN, amount: '30' });
      assert.equal(asked.status, 200);
      assert.match(
        textOf(asked.body),
        /Your fund has \$\d+\.\d\d available to give; this donation is \$30\.00\. It would wait, holding nothing, and go once \$5\.50 more has arrived \( ?add money \)\. Donate anyway, or change the amount\./,
      );
      assert.match(asked.body, /<input type="hidden" name="wait" value="yes">/);
      assert.match(asked.body, /<button type="submit">Donate when the money is there<\/button>/);
      assert.deepEqual(await fingerprint(env.deps), unchanged, 'nothing recorded before the donor says yes');
      assert.equal((await b.post('/dashboard/donations', { ein: OTHER_EIN, amount: '30', wait: 'yes' })).location, '/dashboard?done=donation_waiting#donations');

      const dash = await b.get('/dashboard');
      const rows = [...dash.body.matchAll(/<tr data-donation="(\d+)">([\s\S]*?)<\/tr>/g)];
      assert.equal(rows.length, 2);
      for (const [, , row] of rows) assert.match(row!, /\/cancel"/, 'scheduled and waiting donations can be cancelled');
      const cancelled = await b.post(`/dashboard/donations/${d.id}/cancel`, {});
      assert.equal(cancelled.location, '/dashboard?done=donation_cancelled#donations');
      const after = await b.get('/dashboard');
      const row = new RegExp(`<tr data-donation="${d.id}">([\\s\\S]*?)</tr>`).exec(after.body)?.[1] ?? '';
      assert.ok(row.includes('Cancelled') && !row.includes('Payment returned'), 'a cancelled donation says so');
      assert.ok(!row.includes('/cancel'), 'no cancel button once it cannot be cancelled');
      // The waiting donation was promoted by the released hold.
      const waiting = await env.deps.db.selectFrom('donations').select('status').where('user_id', '=', f.user_id).where('amount_cents', '=', 3000).executeTakeFirstOrThrow();
      assert.equal(waiting.status, 'scheduled');
      const again = await b.post(`/dashboard/donations/${d.id}/cancel`, {});
      assert.equal(again.status, 409);
      assert.ok(textOf(again.body).includes('This donation was already cancelled'), 'says it was cancelled already');
      await assertLedgerBalanced(env.deps);
    });

    test('bad donation, gift and recurring forms are refused with their field errors, and nothing changes', async () => {
      const { browser: b } = await donor('Careful', 100_00);
      const cases: Array<[string, Record<string, string>, number, string]> = [
        ['/dashboard/donations', { ein: EIN, amount: '9.99' }, 422, 'amount must be at least $10'],
        ['/dashboard/donations', { ein: EIN, amount: '10.005' }, 422, 'amount must be an amount in dollars'],
        ['/dashboard/donations', { ein: EIN, amount: '-20' }, 422, 'amount must be an amount in dollars'],
        ['/dashboard/donations', { ein: EIN, amount: '1e309' }, 422, 'amount must be an amount in dollars'],
        ['/dashboard/donations', { ein: EIN, amount: 'NaN' }, 422, 'amount must be an amount in dollars'],
        ['/dashboard/donations', { ein: EIN, amount: '' }, 422, 'amount is required'],
        ['/dashboard/donations', { ein: '', amount: '20' }, 422, 'ein is required'],
        ['/dashboard/donations', { ein: 'zzqxv nothing', amount: '20' }, 422, 'matches no non-profit'],
        ['/dashboard/donations', { ein: '999999999', amount: '20' }, 404, 'No non-profit with EIN 999999999'],
        ['/dashboard/donations', { ein: INELIGIBLE_EIN, amount: '20' }, 422, 'cannot receive donations'],
        ['/dashboard/donations', { ein: EIN, amount: '20', note: 'n'.repeat(1001) }, 422, 'note must be at most 1000 characters'],
        ['/dashboard/donations', { ein: EIN, amount: '20', note: 'a\u0000b' }, 422, 'note must not contain the NUL character'],
        ['/dashboard/donations', { ein: EIN, amount: '20', visibility: 'everyone' }, 422, 'visibility must be one of public, private'],
        ['/dashboard/gifts', { name: 'Bo', amount: '17.99' }, 422, 'amount must be at least $18'],
        ['/dashboard/gifts', { name: '', amount: '20' }, 422, 'name is required'],
        ['/dashboard/gifts', { name: 'Bo', amount: '20', email: 'nope' }, 422, 'email must be an email address'],
        ['/dashboard/gifts', { name: 'Bo', amount: '1000' }, 422, 'Not have enough available money'],
        ['/dashboard/scheduled', { ein: '12', amount: '20', frequency: 'Monthly' }, 422, 'ein must be 9 digits'],
        ['/dashboard/scheduled', { ein: EIN, amount: '20', frequency: 'Hourly' }, 422, 'frequency must be one of'],
        ['/dashboard/scheduled', { ein: EIN, amount: '20', frequency: 'Monthly', next_date: '2020-01-01' }, 422, 'next date must be today or later'],
        ['/dashboard/scheduled', { ein: EIN, amount: '20', frequency: 'Monthly', next_date: 'soon' }, 422, 'next date must be a date'],
      ];
      for (const [path, fields, status, message] of cases) {
        const before = await fingerprint(env.deps);
        const r = await b.post(path, fields);
        assert.equal(r.status, status, `${path} ${JSON.stringify(fields)}`);
        assert.ok(textOf(r.body).toLowerCase().includes(message.toLowerCase()), `${message} in ${textOf(r.body).slice(0, 400)}`);
        assert.deepEqual(await fingerprint(env.deps), before, `${path} ${JSON.stringify(fields)} changed nothing`);
      }
      const ok = await b.post('/dashboard/scheduled', { ein: EIN, amount: '20', frequency: 'Monthly' });
      assert.equal(ok.location, '/dashboard?done=schedule_created#recurring');
      const dash = await b.get('/dashboard');
      assert.ok(textOf(dash.body).includes('Khan Academy $20.00 Monthly'));
      const id = /action="\/dashboard\/scheduled\/(\d+)\/cancel"/.exec(dash.body)?.[1];
      assert.equal((await b.post(`/dashboard/scheduled/${id}/cancel`, {})).location, '/dashboard?done=schedule_cancelled#recurring');
      assert.equal((await env.deps.db.selectFrom('scheduled_donations').select('status').where('id', '=', Number(id)).executeTakeFirstOrThrow()).status, 'cancelled');
    });

    test('a gift made on the web is seen, then claimed for a non-profit by another signed-in user; the giver cannot act on it', async () => {
      const { browser: giver, f: g } = await donor('Grace', 100_00);
      assert.equal((await giver.post('/dashboard/gifts', { name: 'Bo', amount: '40', message: 'Happy birthday!' })).location, '/dashboard?done=gift_created#gifts');
      const dash = await giver.get('/dashboard');
      const url = /readonly value="(https:\/\/almoner\.test\/gifts\/[0-9a-f-]{36})"/.exec(dash.body)?.[1];
      assert.ok(url, 'the share link is on the dashboard');
      const path = new URL(url).pathname;

      const own = await giver.get(path);
      assert.ok(textOf(own.body).includes('You sent this gift'));
      const giftRow = () => env.deps.db.selectFrom('gifts').selectAll().where('user_id', '=', g.user_id).executeTakeFirstOrThrow();
      assert.equal((await giftRow()).seen, 0, 'the giver looking does not count');
      assert.equal((await giver.post(`${path}/accept`, {})).status, 403);

      const anonymous = new WebClient(env.app);
      const seen = await anonymous.get(path);
      assert.equal(seen.status, 200);
      assert.ok(textOf(seen.body).includes('Grace sent Bo a gift of $40.00'));
      assert.ok(textOf(seen.body).includes('Happy birthday!'));
      assert.ok(textOf(seen.body).includes('sign in'));
      assert.equal((await giftRow()).seen, 1);

      const bo = new WebClient(env.app);
      await bo.signUp('Bo', email());
      await bo.get(path);
      // A name that matches several: the page offers them, and nothing happens yet.
      const ambiguous = await bo.post(`${path}/claim`, { ein: 'Khan' });
      assert.equal(ambiguous.status, 200);
      assert.ok(textOf(ambiguous.body).includes('Which non-profit did you mean?'));
      assert.ok(ambiguous.body.includes(`value="${EIN}"`) && ambiguous.body.includes(`value="${OTHER_EIN}"`), 'both matches offered');
      assert.equal((await giftRow()).status, 'new');
      // Nothing typed names no non-profit (not the directory's biggest).
      const empty = await bo.post(`${path}/claim`, { ein: '' });
      assert.equal(empty.status, 422);
      assert.ok(textOf(empty.body).includes('No non-profit matches that name or EIN'));
      assert.equal((await giftRow()).status, 'new');
      const claimed = await bo.post(`${path}/claim`, { ein: 'Khan Academy' });
      assert.equal(claimed.status, 303);
      const done = await bo.get(claimed.location!);
      assert.ok(textOf(done.body).includes('This gift has been sent to a non-profit'));
      const row = await giftRow();
      assert.equal(row.status, 'claimed');
      assert.equal(row.ein, EIN);
      assert.equal((await bo.post(`${path}/deny`, {})).status, 409, 'once only');
      assert.equal((await bo.get('/gifts/00000000-0000-0000-0000-000000000000')).status, 404);
      await assertLedgerBalanced(env.deps);
    });

    test('profiles at /<slug> show public donations only, and hidden profiles only to their owner', async () => {
      const { browser: b, f } = await donor('Pat Public', 100_00);
      await b.post('/dashboard/donations', { ein: EIN, amount: '10', note: 'Shown to all' });
      await b.post('/dashboard/donations', { ein: OTHER_EIN, amount: '11', note: 'Secret', visibility: 'private' });
      const slug = (await env.deps.db.selectFrom('users').select('slug').where('id', '=', f.user_id).executeTakeFirstOrThrow()).slug;
      const visitor = new WebClient(env.app);
      const page = await visitor.get(`/${slug.toUpperCase()}`);
      assert.equal(page.status, 200);
      const text = textOf(page.body);
      assert.ok(text.includes('Pat Public'));
      assert.ok(text.includes('Shown to all'));
      assert.ok(!text.includes('Secret') && !text.includes('Family Food'), 'private donations stay private');
      assert.ok(!text.includes('$10'), 'no amounts on a public page');

      await b.get('/settings/profile');
      const saved = await b.post('/settings/profile', { name: 'Pat Hidden', slug: 'pat-hidden', fund_name: 'Pat Fund', avatar_url: '', cause_ids: ['2', '5'] });
      assert.equal(saved.location, '/settings/profile?done=profile_saved');
      assert.equal((await visitor.get('/pat-hidden')).status, 404, 'hidden: not found for others');
      const mine = await b.get('/pat-hidden');
      assert.equal(mine.status, 200);
      assert.ok(textOf(mine.body).includes('Only you can see this page'));
      assert.ok(textOf(mine.body).includes('Education'));
      const api = await call(env.app, 'GET', '/v1/users/pat-hidden', { key: (await makeUser(env.deps)).key });
      assert.equal(api.status, 404, 'the API agrees');
      assert.equal((await visitor.get('/no-such-person')).status, 404);
    });

    test("profile settings refuse bad values and others' addresses, and change nothing", async () => {
      const first = new WebClient(env.app);
      await first.signUp('Taken Name', email());
      const takenSlug = (await env.deps.db.selectFrom('users').select('slug').where('name', '=', 'Taken Name').executeTakeFirstOrThrow()).slug;
      const b = new WebClient(env.app);
      await b.signUp('Editor', email());
      await b.get('/settings/profile');
      const good = { name: 'Editor', slug: 'editor-x', fund_name: 'Fund', avatar_url: '' };
      const cases: Array<[Record<string, string | string[]>, number, string]> = [
        [{ ...good, slug: 'dashboard' }, 422, 'slug is reserved'],
        [{ ...good, slug: '12345' }, 422, 'slug must not be all digits'],
        [{ ...good, slug: 'Has Spaces!' }, 422, 'slug must be 1 to 60 lower-case letters'],
        [{ ...good, slug: takenSlug }, 409, 'belongs to someone else'],
        [{ ...good, name: '' }, 422, 'name is required'],
        [{ ...good, avatar_url: 'javascript:alert(1)' }, 422, 'avatar url must start with https://'],
        [{ ...good, avatar_url: 'not a url' }, 422, 'avatar url must be a web address'],
        [{ ...good, cause_ids: ['999'] }, 422, 'has no cause 999'],
        [{ ...good, cause_ids: ['x'] }, 422, 'cause ids has a value that is not a number'],
      ];
      for (const [fields, status, message] of cases) {
        const before = await fingerprint(env.deps);
        const r = await b.post('/settings/profile', fields);
        assert.equal(r.status, status, JSON.stringify(fields));
        assert.ok(textOf(r.body).toLowerCase().includes(message.toLowerCase()), `${message} in ${textOf(r.body).slice(0, 300)}`);
        assert.deepEqual(await fingerprint(env.deps), before);
      }
    });

    test('HTML in a name, a note, a gift and a key name is shown as text on every page', async () => {
      const { browser: b, address } = await donor(XSS, 100_00);
      await b.post('/dashboard/donations', { ein: EIN, amount: '10', note: XSS });
      await b.post('/dashboard/gifts', { name: XSS, amount: '20', message: XSS });
      await b.get('/settings/keys');
      const keys = await b.get((await b.post('/settings/keys', { name: XSS })).location!);
      const dash = await b.get('/dashboard');
      const gift = /readonly value="https:\/\/almoner\.test(\/gifts\/[0-9a-f-]{36})"/.exec(dash.body)?.[1];
      const slug = (
        await env.deps.db
          .selectFrom('users')
          .select('slug')
          .where('id', '=', await userIdOf(env, address))
          .executeTakeFirstOrThrow()
      ).slug;
      const pages = [dash, keys, await new WebClient(env.app).get(`/${slug}`), await new WebClient(env.app).get(gift!)];
      for (const page of pages) {
        assert.equal(page.status, 200);
        assert.ok(!page.body.includes('<script>alert'), 'no script tag from user text');
        assert.ok(!page.body.includes('<img src=x'), 'no element from user text');
        assert.ok(page.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the text is shown, escaped');
      }
      // A bad sign-in keeps the email typed, escaped.
      const c = new WebClient(env.app);
      const r = await c.signIn(`"><script>alert(3)</script>@x.org`, 'whatever password');
      assert.ok(!r.body.includes('<script>alert(3)'));
    });

    test('public pages: the directory, a non-profit at its public_path, suggestions; headers on every page', async () => {
      const b = new WebClient(env.app);
      const search = await b.get('/charities?query=khan');
      assert.equal(search.status, 200);
      assert.ok(textOf(search.body).includes('Khan Academy'));
      const path = /href="(\/charities\/261544963-[a-z0-9-]+)"/.exec(search.body)?.[1];
      assert.ok(path);
      const page = await b.get(path);
      assert.equal(page.status, 200);
      assert.ok(textOf(page.body).includes('Sign in to donate'));
      assert.equal((await b.get('/charities/261544963-wrong-slug')).status, 301);
      assert.equal((await b.get('/charities/261544963-wrong-slug')).location, path);
      assert.equal((await b.get('/charities/000000000-nobody')).status, 404);
      const closed = await b.get((await b.get(`/charities/${INELIGIBLE_EIN}`)).location!);
      assert.ok(textOf(closed.body).includes('cannot receive donations'));
      const suggest = await b.get('/charities/suggest?q=kha');
      assert.equal(suggest.status, 200);
      const items = JSON.parse(suggest.body) as Array<{ ein: string; name: string }>;
      assert.ok(items.some((i) => i.ein === EIN && i.name === 'Khan Academy'));
      const signedIn = new WebClient(env.app);
      await signedIn.signUp('Donor', email());
      const withForm = await signedIn.get(path);
      assert.match(withForm.body, /action="\/dashboard\/donations"/);
      assert.match(withForm.body, new RegExp(`name="ein"[^>]*value="${EIN}"`));
      for (const url of ['/', '/signin', '/signup', '/charities', path, '/dashboard', '/no-such-page']) {
        const r = await signedIn.get(url);
        assert.match(String(r.headers['content-security-policy']), /default-src 'none'; script-src 'self'/, url);
        assert.equal(r.headers['x-frame-options'], 'DENY');
        assert.equal(r.headers['x-content-type-options'], 'nosniff');
      }
      const css = await b.get('/static/app.css');
      assert.equal(css.status, 200);
      assert.match(String(css.headers['content-type']), /text\/css/);
      assert.equal((await b.get('/static/nope.js')).status, 404);
      // The API still answers with problems on its own paths.
      const apiMissing = await call(env.app, 'GET', '/v1/nothing-here');
      assert.equal(apiMissing.body.code, 'not_found');
    });
  });
}
