// The sandbox: test keys act for a hidden twin with its own fund; deposits
// clear and donations approve and complete by themselves after the
// configured delays; the caller can move any of their objects; live keys
// cannot use any of it, and live lists never show sandbox objects.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, makeNonProfit, call, fingerprint, assertLedgerBalanced, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { runSandboxClock } from '../src/modules/sandbox/sandbox.service.ts';

for (const { name: engine } of engines()) {
  describe(`sandbox on ${engine}`, () => {
    let env: TestEnv;
    let live: TestUser;
    let testKey: string;
    const clock = new TestClock('2026-03-01T12:00:00.000Z');

    before(async () => {
      env = await openEnv(engine, { sandboxClearDelayMs: 5_000, sandboxApproveDelayMs: 10_000, sandboxCompleteDelayMs: 20_000 }, { clock });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      live = await makeUser(env.deps, { name: 'Live Person', slug: 'live' });
      const created = await call(env.app, 'POST', '/v1/api_keys', { key: live.key, body: { name: 'sandbox', mode: 'test' } });
      assert.equal(created.status, 201);
      assert.match(created.body.key, /^alm_test_[0-9A-Za-z]{40}$/);
      testKey = created.body.key;
    });
    after(async () => env.close());

    test('a test key acts for a hidden sandbox twin with its own fund', async () => {
      const me = await call(env.app, 'GET', '/v1/users/me', { key: testKey });
      assert.equal(me.body.slug, 'live-sandbox');
      assert.equal(me.body.visible, false);
      assert.notEqual(me.body.id, live.user_id);
      assert.equal((await call(env.app, 'GET', `/v1/users/${me.body.id}`, { key: live.key })).status, 404);
      const again = await call(env.app, 'POST', '/v1/api_keys', { key: live.key, body: { name: 'second', mode: 'test' } });
      assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: again.body.key })).body.id, me.body.id, 'one twin per user');
      const liveFromTest = await call(env.app, 'POST', '/v1/api_keys', { key: testKey, body: { name: 'x', mode: 'live' } });
      assert.equal(liveFromTest.status, 403);
    });

    test('live keys cannot use the sandbox endpoints', async () => {
      const before = await fingerprint(env.deps);
      for (const [url, body] of [
        ['/v1/sandbox/deposits', { amount: 100 }],
        ['/v1/sandbox/advance', { object: 'donation', id: 1, event: 'approve' }],
      ] as const) {
        const res = await call(env.app, 'POST', url, { key: live.key, body });
        assert.equal(res.status, 403, url);
        assert.equal(res.body.code, 'forbidden');
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('deposits clear and donations approve and complete by themselves', async () => {
      const deposit = await call(env.app, 'POST', '/v1/sandbox/deposits', { key: testKey, body: { amount: 500 } });
      assert.equal(deposit.status, 201);
      const d = await call(env.app, 'POST', '/v1/donations', { key: testKey, body: { amount: 100, ein: '261544963' } });
      assert.equal(d.body.status, 'waiting_for_funds');
      const status = async () => (await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: testKey })).body.status;

      clock.advance(4_000);
      await runSandboxClock(env.deps);
      assert.equal(await status(), 'waiting_for_funds', 'not before the clear delay');
      clock.advance(2_000);
      await runSandboxClock(env.deps);
      assert.equal(await status(), 'scheduled', 'the deposit cleared and promoted the donation');
      clock.advance(10_000);
      await runSandboxClock(env.deps);
      assert.equal(await status(), 'approved');
      clock.advance(20_000);
      await runSandboxClock(env.deps);
      assert.equal(await status(), 'completed');
      const balance = await call(env.app, 'GET', '/v1/users/me/balance', { key: testKey });
      assert.deepEqual(balance.body, { amount: 400, pending_deposit_balance: 0, portfolio_balance: 0, available_balance: 400 });
      assert.deepEqual((await call(env.app, 'GET', '/v1/donations', { key: live.key })).body.items, [], 'live lists never show sandbox objects');
      assert.deepEqual((await call(env.app, 'GET', '/v1/users/me/balance', { key: live.key })).body.amount, 0);
    });

    test('the caller moves any of their objects along its state machine, and only theirs', async () => {
      const d = await call(env.app, 'POST', '/v1/donations', { key: testKey, body: { amount: 50, ein: '261544963' } });
      const move = (body: unknown, key = testKey) => call(env.app, 'POST', '/v1/sandbox/advance', { key, body });
      assert.deepEqual((await move({ object: 'donation', id: d.body.id, event: 'approve' })).body, { status: 'approved' });
      assert.deepEqual((await move({ object: 'donation', id: d.body.id, event: 'mail_check' })).body, { status: 'check_mailed' });
      assert.deepEqual((await move({ object: 'donation', id: d.body.id, event: 'void_check' })).body, { status: 'not_completed' });
      const wrong = await move({ object: 'donation', id: d.body.id, event: 'pay' });
      assert.equal(wrong.status, 409);
      assert.equal(wrong.body.code, 'invalid_transition');
      const g = await call(env.app, 'POST', '/v1/gifts', { key: testKey, body: { name: 'Friend', amount: 20 } });
      assert.deepEqual((await move({ object: 'gift', code: g.body.code, action: 'claim', ein: '261544963' })).body, { status: 'claimed' });
      const c = await call(env.app, 'POST', '/v1/sandbox/deposits', { key: testKey, body: { amount: 10 } });
      assert.deepEqual((await move({ object: 'contribution', id: c.body.contribution_id, to: 'failed' })).body, { status: 'failed' });
      const other = await makeUser(env.deps);
      const othersKey = (await call(env.app, 'POST', '/v1/api_keys', { key: other.key, body: { name: 's', mode: 'test' } })).body.key;
      const notYours = await move({ object: 'donation', id: d.body.id, event: 'approve' }, othersKey);
      assert.equal(notYours.status, 404);
      assert.equal(notYours.body.code, 'donation_not_found');
      await assertLedgerBalanced(env.deps);
    });
  });
}
