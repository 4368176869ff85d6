// The operator console: the admin API's authentication, and every operator
// command refusing bad input (unknown ids, wrong state, bad amounts) with a
// clear message and a non-zero exit, changing nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, runCli, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

for (const { name: engine } of engines()) {
  describe(`operators on ${engine}`, () => {
    let env: TestEnv;
    let token: string;
    let user: TestUser;
    let scheduledId: number;
    let contributionId: number;

    const cli = (...args: string[]) => runCli(args, env.platform.deps.config.databaseUrl);
    const admin = (method: string, url: string, body?: unknown, auth = `Bearer ${token}`) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: auth }, ...(body === undefined ? {} : { body }) });

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      token = (await createAdminToken(env.deps, 'ops', 'test')).token;
      user = await makeUser(env.deps);
      await fund(env.deps, user, 10_000);
      scheduledId = (await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { amount: 20, ein: '261544963' } })).body.id;
      contributionId = (await admin('POST', '/contributions', { user_id: user.user_id, type: 'check_payment', units: '10', valuation: '1', currency: 'USD' })).body.id;
    });
    after(async () => env.close());

    test('the admin API takes operator tokens only', async () => {
      for (const [auth, code] of [
        ['', 'unauthenticated'],
        [`Bearer ${user.key}`, 'invalid_api_key'],
        ['Bearer alm_admin_nope', 'invalid_api_key'],
        [token, 'unauthenticated'],
      ] as const) {
        const res = await admin('GET', '/users', undefined, auth);
        assert.equal(res.status, 401, auth);
        assert.equal(res.body.code, code, auth);
      }
      const ok = await admin('GET', '/users');
      assert.equal(ok.status, 200);
      assert.ok(ok.body.items.some((u: { id: number }) => u.id === user.user_id));
      const asUser = await call(env.app, 'GET', '/admin/v1/users', { key: user.key });
      assert.equal(asUser.status, 401, 'a user key opens nothing under /admin/v1');
    });

    test('the admin API refuses bad input with a problem and changes nothing', async () => {
      const before = await fingerprint(env.deps);
      const cases: Array<[string, string, unknown, number, string]> = [
        ['POST', '/donations/999999/approve', undefined, 404, 'donation_not_found'],
        ['POST', `/donations/${scheduledId}/pay`, undefined, 409, 'invalid_transition'],
        ['POST', `/donations/${scheduledId}/reject`, {}, 422, 'validation_failed'],
        ['POST', '/donations/abc/approve', undefined, 400, 'invalid_parameter'],
        ['POST', '/donations/batch', { event: 'pay' }, 422, 'validation_failed'],
        ['POST', '/donations/batch', { event: 'explode', status: 'approved' }, 422, 'validation_failed'],
        ['POST', '/contributions', { user_id: 999999, type: 'check_payment', units: '1', valuation: '1', currency: 'USD' }, 404, 'user_not_found'],
        ['POST', '/contributions', { user_id: user.user_id, type: 'cash', units: '1', valuation: '1', currency: 'USD' }, 422, 'validation_failed'],
        ['POST', '/contributions', { user_id: user.user_id, type: 'check_payment', units: '1.123456789', valuation: '1', currency: 'USD' }, 422, 'validation_failed'],
        ['POST', '/contributions', { user_id: user.user_id, type: 'check_payment', units: '0', valuation: '1', currency: 'USD' }, 422, 'validation_failed'],
        ['POST', '/contributions', { user_id: user.user_id, type: 'check_payment', units: '-1', valuation: '1', currency: 'USD' }, 422, 'validation_failed'],
        ['POST', '/contributions', { user_id: user.user_id, type: 'check_payment', units: '1', valuation: '1', currency: 'usd dollars' }, 422, 'validation_failed'],
        ['POST', `/contributions/${contributionId}/advance`, { status: 'waiting_for_funds' }, 422, 'validation_failed'],
        ['POST', '/contributions/999999/advance', { status: 'success' }, 404, 'contribution_not_found'],
        ['POST', `/users/${user.user_id}/portfolio`, { move: 'invest', amount: 10.005 }, 422, 'amount_invalid'],
        ['POST', `/users/${user.user_id}/portfolio`, { move: 'invest', amount: 0 }, 422, 'validation_failed'],
        ['POST', `/users/${user.user_id}/portfolio`, { move: 'liquidate', amount: 1 }, 422, 'insufficient_funds'],
        ['POST', '/users/999999/portfolio', { move: 'invest', amount: 1 }, 404, 'user_not_found'],
        ['POST', '/users/999999/suspend', undefined, 404, 'user_not_found'],
        ['POST', `/users/${user.user_id}/reactivate`, undefined, 409, 'invalid_transition'],
        ['POST', '/users', { name: '' }, 422, 'validation_failed'],
        ['POST', '/users', { name: 'X', slug: 'bad slug' }, 422, 'validation_failed'],
      ];
      for (const [method, url, body, status, code] of cases) {
        const res = await admin(method, url, body);
        assert.equal(res.status, status, `${method} ${url} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, code, `${method} ${url}`);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('CLI operator commands refuse bad input: a clear message, a non-zero exit, nothing changed', async () => {
      const before = await fingerprint(env.deps);
      const cases: Array<[string[], number, RegExp]> = [
        [['donations', 'approve', '999999'], 1, /donation 999999: skipped \(donation_not_found\)/],
        [['donations', 'pay', String(scheduledId)], 1, /skipped \(invalid_transition\)/],
        [['donations', 'approve'], 2, /give at least one donation id/],
        [['donations', 'approve', 'abc'], 2, /a donation id must be a positive whole number/],
        [['donations', 'reject', String(scheduledId)], 2, /--reason is required/],
        [['donations', 'explode', '1'], 2, /unknown command: donations explode/],
        [
          ['contributions', 'record', '--user', '999999', '--type', 'check_payment', '--units', '1', '--valuation', '1', '--currency', 'USD'],
          1,
          /no user 999999 \(user_not_found\)/,
        ],
        [['contributions', 'record', '--user', String(user.user_id), '--type', 'cash', '--units', '1', '--valuation', '1', '--currency', 'USD'], 2, /--type must be one of/],
        [
          ['contributions', 'record', '--user', String(user.user_id), '--type', 'check_payment', '--units', '1.123456789', '--valuation', '1', '--currency', 'USD'],
          1,
          /units: must be a positive decimal with at most 8 places/,
        ],
        [['contributions', 'record', '--user', String(user.user_id), '--type', 'check_payment', '--valuation', '1', '--currency', 'USD'], 2, /--units is required/],
        [['contributions', 'advance', String(contributionId), '--to', 'bogus'], 2, /--to must be pending, success or failed/],
        [['contributions', 'advance', '999999', '--to', 'success'], 1, /no contribution 999999/],
        [['portfolio', 'invest', '--user', String(user.user_id), '--amount', '10.005'], 2, /--amount must be dollars with at most 2 decimals/],
        [['portfolio', 'invest', '--user', String(user.user_id), '--amount', '-5'], 2, /--amount/],
        [['portfolio', 'liquidate', '--user', String(user.user_id), '--amount', '5'], 1, /insufficient_funds/],
        [['users', 'suspend', '999999'], 1, /no user 999999/],
        [['users', 'reactivate', String(user.user_id)], 1, /already active \(invalid_transition\)/],
        [['users', 'statement', 'x'], 2, /the user id must be a positive whole number/],
        [['scheduler', 'run', '--date', '2026-02-30'], 2, /--date must be YYYY-MM-DD/],
        [['admin', 'token', 'create'], 2, /--name is required/],
        [['donations', 'approve', '1', '--bogus'], 2, /Unknown option '--bogus'/],
      ];
      for (const [args, code, message] of cases) {
        const res = await cli(...args);
        assert.equal(res.code, code, `${args.join(' ')}: ${res.stdout}${res.stderr}`);
        assert.match(res.stderr, message, args.join(' '));
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('CLI operator commands do their work, audited', async () => {
      const approve = await cli('donations', 'approve', String(scheduledId));
      assert.equal(approve.code, 0, approve.stderr);
      assert.match(approve.stdout, new RegExp(`approve: 1 done \\(${scheduledId}\\)`));
      const payAll = await cli('donations', 'pay-all-approved');
      assert.equal(payAll.code, 0, payAll.stderr);
      assert.match(payAll.stdout, /pay: 1 done/);
      const statement = await cli('users', 'statement', String(user.user_id));
      assert.match(statement.stdout, /reserved\s+-20 {2}donation pay/);
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['actor', 'action'])
        .where('object_id', '=', scheduledId)
        .where('object_type', '=', 'donation')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action),
        ['donation.approve', 'donation.pay'],
      );
      assert.match(audit[0]?.actor ?? '', /^cli:/);
    });

    test('every CLI action is audited, as the operator ALMONER_OPERATOR names (else the account running it): users create, admin token create', async () => {
      const url = env.platform.deps.config.databaseUrl;
      const made = await runCli(['users', 'create', '--name', 'Audited Person'], url, { ALMONER_OPERATOR: 'alice' });
      assert.equal(made.code, 0, made.stderr);
      const userId = Number(/Created user (\d+)/.exec(made.stdout)?.[1]);
      const token = await runCli(['admin', 'token', 'create', '--name', 'night shift'], url);
      assert.equal(token.code, 0, token.stderr);
      const tokenId = Number(/Operator token (\d+)/.exec(token.stdout)?.[1]);
      const entries = await env.deps.db
        .selectFrom('audit_log')
        .select(['actor', 'action', 'object_type', 'object_id', 'after'])
        .where('book', '=', 'live')
        .orderBy('id', 'desc')
        .limit(5)
        .execute();
      const created = entries.find((e) => e.action === 'user.create' && e.object_id === userId);
      assert.equal(created?.actor, 'operator:alice');
      const minted = entries.find((e) => e.action === 'admin_token.create' && e.object_id === tokenId);
      assert.match(minted?.actor ?? '', /^cli:/);
      assert.deepEqual(
        JSON.parse(minted?.after ?? 'null'),
        { name: 'night shift', operator: 'night shift', expires_at: null },
        'a token belongs to a person: by default one of its name',
      );
      const before = await fingerprint(env.deps);
      const refused = await runCli(['admin', 'token', 'create', '--name', 'x'], url, { ALMONER_OPERATOR: 'not a name!' });
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /ALMONER_OPERATOR is a name/);
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('operator tokens: made with an expiry, listed with their state and last use, revoked at once (audited), expired ones refused', async () => {
      const url = env.platform.deps.config.databaseUrl;
      const made = await runCli(['admin', 'token', 'create', '--name', 'weekend', '--days', '2'], url, { ALMONER_OPERATOR: 'bob' });
      assert.equal(made.code, 0, made.stderr);
      const weekend = /(alm_admin_\w+)/.exec(made.stdout)?.[1] ?? '';
      const weekendId = Number(/Operator token (\d+)/.exec(made.stdout)?.[1]);
      assert.match(made.stdout, /It works until 20\d\d-/);
      const bearer = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
      assert.equal((await call(env.app, 'GET', '/admin/v1/users', bearer(weekend))).status, 200);
      const listed = await call(env.app, 'GET', '/admin/v1/tokens', bearer(token));
      const mine = listed.body.items.find((t: { id: number }) => t.id === weekendId);
      assert.equal(mine.state, 'active');
      assert.notEqual(mine.last_used_at, null, 'its use was noted');
      assert.ok(!JSON.stringify(listed.body).includes('alm_admin_'), 'never a token');
      const cliList = await runCli(['admin', 'token', 'list'], url);
      assert.match(cliList.stdout, new RegExp(`${weekendId}\\s+active\\s+\\.\\.\\.\\w{4}\\s+weekend`));
      // Revoked over HTTP: it stops at once; a second revoke is 404.
      assert.equal((await call(env.app, 'POST', `/admin/v1/tokens/${weekendId}/revoke`, bearer(token))).status, 200);
      assert.equal((await call(env.app, 'GET', '/admin/v1/users', bearer(weekend))).status, 401);
      const again = await call(env.app, 'POST', `/admin/v1/tokens/${weekendId}/revoke`, bearer(token));
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'admin_token_not_found');
      const audit = await env.deps.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('object_type', '=', 'admin_token')
        .where('object_id', '=', weekendId)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => [a.action, a.actor]),
        [
          ['admin_token.create', 'operator:bob'],
          ['admin_token.revoke', 'admin:ops'],
        ],
      );
      // An expired token is refused like an unknown one, and listed as expired.
      const old = await createAdminToken(env.deps, 'old', 'test', 1);
      await env.deps.db.updateTable('admin_tokens').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', old.id).execute();
      assert.equal((await call(env.app, 'GET', '/admin/v1/users', bearer(old.token))).status, 401);
      assert.equal((await call(env.app, 'GET', '/admin/v1/tokens', bearer(token))).body.items.find((t: { id: number }) => t.id === old.id).state, 'expired');
      const bad = await runCli(['admin', 'token', 'create', '--name', 'x', '--days', '0'], url);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--days must be a whole number from 1 to 3650/);
    });

    test("a suspended user's keys stop working at once; reactivated, they work again", async () => {
      assert.equal((await admin('POST', `/users/${user.user_id}/suspend`)).status, 200);
      const res = await call(env.app, 'GET', '/v1/users/me', { key: user.key });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'forbidden');
      assert.equal((await admin('POST', `/users/${user.user_id}/reactivate`)).status, 200);
      assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: user.key })).status, 200);
    });
  });
}
