// A person's data on both engines: an operator exports all of it, or forgets
// the person; the books still add up and the person is gone from every surface.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertLedgerBalanced, balancesOf, call, engines, fund, fundSandbox, makeNonProfit, makeUser, openEnv, runCli } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { addAccount, signIn } from '../src/modules/accounts/index.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import { connectApp } from './app-tokens.ts';

for (const { name: engine } of engines()) {
  test(`export, then forget a person: personal data gone, amounts kept, check holds (${engine})`, async () => {
    const env = await openEnv(engine);
    try {
      const { deps, app } = env;
      await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const user = await makeUser(deps, { name: 'Margaret Hamilton', slug: 'margaret', city: 'Cambridge' });
      await deps.db.transaction().execute((trx) => addAccount(deps, user.user_id, 'margaret@example.org', 'a long enough password', trx));
      await fund(deps, user, 20_000);
      const donation = await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '261544963', amount: 25, note: 'For Apollo', private_memo: 'tax 2026' } });
      const gift = await call(app, 'POST', '/v1/gifts', { key: user.key, body: { name: 'Grace', email: 'grace@example.org', amount: 30, message: 'Happy birthday' } });
      const testKey = (await createKeyForOwner(deps, user.user_id, 'sandbox', 'test')).key;
      await fundSandbox(app, testKey, 50);
      assert.deepEqual([donation.status, gift.status], [201, 201]);
      const connected = await connectApp(deps, user.user_id, { scopes: ['read', 'donate'] });
      const bearer = { authorization: `Bearer ${connected.accessToken}` };
      assert.equal((await call(app, 'GET', '/v1/users/me', { headers: bearer })).status, 200);
      const operator = (await createAdminToken(deps, 'privacy', 'test')).token;
      const admin = (method: string, url: string) => call(app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` } });

      const exported = await admin('GET', `/users/${user.user_id}/export`);
      assert.equal(exported.status, 200);
      const data = exported.body;
      assert.deepEqual(
        data.users.map((u: { name: string; book: string }) => [u.name, u.book]),
        [
          ['Margaret Hamilton', 'live'],
          ['Margaret Hamilton', 'test'],
        ],
        'the person and their sandbox twin',
      );
      assert.equal(data.account[0].email, 'margaret@example.org');
      assert.equal(data.donations.find((d: { id: number }) => d.id === donation.body.id).private_memo, 'tax 2026');
      assert.equal(data.gifts_given[0].message, 'Happy birthday');
      assert.ok(data.journal.length >= 4 && data.contributions.length === 2 && data.api_keys.length === 2);
      assert.deepEqual(
        data.app_connections.map((c: { client_id: string; scopes: string }) => [c.client_id, c.scopes]),
        [[connected.clientId, 'read donate']],
      );
      assert.equal(data.apps[0].client_id, connected.clientId, 'the app they registered');
      assert.ok(!JSON.stringify(data).includes('password_hash') && !JSON.stringify(data).includes('key_hash'));

      const balances = await balancesOf(deps, user.fund_id);
      assert.equal((await admin('POST', `/users/${user.user_id}/forget`)).status, 200);
      // Gone from every surface.
      assert.equal((await call(app, 'GET', '/v1/users/me', { key: user.key })).status, 401);
      assert.equal((await call(app, 'GET', '/v1/users/me', { key: testKey })).status, 401);
      const appCall = await call(app, 'GET', '/v1/users/me', { headers: bearer });
      assert.deepEqual([appCall.status, appCall.body.code], [401, 'invalid_token'], 'the apps they connected lose their tokens');
      await assert.rejects(signIn(deps, { email: 'margaret@example.org', password: 'a long enough password', ip: '127.0.0.1' }));
      assert.equal((await app.inject({ method: 'GET', url: '/margaret' })).statusCode, 404);
      const after = await runCli(['users', 'export', String(user.user_id)], env.platform.deps.config.databaseUrl);
      assert.equal(after.code, 1);
      assert.match(after.stderr, /user_deleted/);
      const rows = await deps.db.selectFrom('users').select(['name', 'city', 'slug']).where('id', '=', user.user_id).executeTakeFirstOrThrow();
      assert.deepEqual(rows, { name: 'Deleted user', city: '', slug: `deleted-${user.user_id}` });
      const d = await deps.db.selectFrom('donations').select(['note', 'private_memo', 'amount_cents']).where('id', '=', donation.body.id).executeTakeFirstOrThrow();
      assert.deepEqual(d, { note: null, private_memo: null, amount_cents: 2_500 });
      const g = await deps.db.selectFrom('gifts').select(['name', 'email', 'message', 'amount_cents']).where('code', '=', gift.body.code).executeTakeFirstOrThrow();
      assert.deepEqual(g, { name: 'Deleted', email: null, message: null, amount_cents: 3_000 });
      const audit = await deps.db.selectFrom('audit_log').select(['action', 'after']).where('object_type', '=', 'user').where('object_id', '=', user.user_id).execute();
      assert.ok(audit.some((a) => a.action === 'user.forget'));
      assert.ok(!JSON.stringify(audit).includes('Margaret') && !JSON.stringify(audit).includes('margaret'));
      // The books: every amount is where it was.
      assert.equal(await balancesOf(deps, user.fund_id), balances);
      await assertLedgerBalanced(deps);
      // Forgotten for good: no reactivation, no second forget.
      assert.equal((await admin('POST', `/users/${user.user_id}/reactivate`)).body.code, 'user_deleted');
      assert.equal((await admin('POST', `/users/${user.user_id}/forget`)).status, 409);
      const unconfirmed = await runCli(['users', 'forget', String(user.user_id)], env.platform.deps.config.databaseUrl);
      assert.equal(unconfirmed.code, 2);
      assert.match(unconfirmed.stderr, /add --yes to confirm/);
    } finally {
      await env.close();
    }
  });
}
