// One user's webhooks cannot delay everyone's (the second security review: 250
// slow endpoints of one user took another user's test delivery from 179 ms to
// 97 s). On both engines: a user may have WEBHOOK_ENDPOINTS_PER_USER endpoints;
// a user whose endpoints all hang holds at most WEBHOOK_OWNER_CONCURRENCY of a
// node's slots, and another user's delivery goes out while theirs hang, run as
// a server runs it (a round every NOTIFY_INTERVAL_MS, not waiting for attempts).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeUser, openEnv, until, type TestEnv } from './harness.ts';
import { Receiver } from './webhook-receiver.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { deliveriesSettled } from '../src/modules/webhooks/index.ts';

const TIMEOUT_MS = 3_000;

for (const { name: engine } of engines()) {
  describe(`webhooks are fair between users (${engine})`, () => {
    let env: TestEnv;
    const receiver = new Receiver();
    before(async () => {
      await receiver.start();
      env = await openEnv(engine, {
        webhookAllowPrivate: true,
        webhookTimeoutMs: TIMEOUT_MS,
        webhookConcurrency: 8,
        webhookOwnerConcurrency: 2,
        webhookEndpointsPerUser: 16,
      });
    });
    after(async () => {
      await deliveriesSettled(env.deps);
      await env.close();
      await receiver.stop();
    });

    test('a user may have 16 endpoints; the 17th is 409 webhook_endpoint_limit and writes nothing, even 4 at once', async () => {
      const user = await makeUser(env.deps);
      for (let i = 0; i < 14; i++) assert.equal((await call(env.app, 'POST', '/v1/webhook_endpoints', { key: user.key, body: { url: receiver.url(`/ok/${i}`) } })).status, 201);
      const before = await fingerprint(env.deps);
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, i) => call(env.app, 'POST', '/v1/webhook_endpoints', { key: user.key, body: { url: receiver.url(`/ok/x${i}`) } })),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 409, 409], 'requests at once cannot pass the cap');
      assert.ok(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'webhook_endpoint_limit'));
      const refused = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: user.key, body: { url: receiver.url('/ok/17') } });
      assert.deepEqual([refused.status, refused.body.code], [409, 'webhook_endpoint_limit']);
      const after = await fingerprint(env.deps);
      assert.notDeepEqual(after, before, 'the two that fitted were made');
      // Deleting one makes room again.
      const list = await call(env.app, 'GET', '/v1/webhook_endpoints?per_page=100', { key: user.key });
      assert.equal((await call(env.app, 'DELETE', `/v1/webhook_endpoints/${list.body.items[0].id}`, { key: user.key })).status, 200);
      assert.equal((await call(env.app, 'POST', '/v1/webhook_endpoints', { key: user.key, body: { url: receiver.url('/ok/again') } })).status, 201);
    });

    test("another user's delivery goes out while one user's 16 endpoints hang, and the slow user holds only their share", async () => {
      const slow = await makeUser(env.deps);
      const fast = await makeUser(env.deps);
      for (let i = 0; i < 16; i++) {
        const made = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: slow.key, body: { url: receiver.url(`/hang/${i}`) } });
        assert.equal(made.status, 201);
        for (let n = 0; n < 2; n++) assert.equal((await call(env.app, 'POST', `/v1/webhook_endpoints/${made.body.id}/test`, { key: slow.key })).status, 202);
      }
      // As a server runs it: a round every 100 ms that does not wait for the attempts it started.
      let running = false;
      let rounds = 0;
      const loop = setInterval(() => {
        if (running) return;
        running = true;
        void runNotify(env.deps, 1, { waitForDeliveries: false }).finally(() => {
          running = false;
          rounds += 1;
        });
      }, 100);
      try {
        // Rounds enough for the slow user's four attempts to have started, had they had the slots.
        await until('six rounds', () => rounds >= 6);
        const hanging = receiver.received.filter((r) => r.path.startsWith('/hang')).length;
        assert.ok(hanging >= 1 && hanging <= 2, `the slow user holds at most their 2 slots (${hanging} attempts started)`);
        const endpoint = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: fast.key, body: { url: receiver.url('/ok/fast') } });
        const asked = Date.now();
        assert.equal((await call(env.app, 'POST', `/v1/webhook_endpoints/${endpoint.body.id}/test`, { key: fast.key })).status, 202);
        while (!receiver.received.some((r) => r.path === '/ok/fast') && Date.now() - asked < 4 * TIMEOUT_MS) await new Promise((resolve) => setTimeout(resolve, 20));
        const got = receiver.received.find((r) => r.path === '/ok/fast');
        assert.ok(got !== undefined, 'the fast user is served');
        const lag = got.at - asked;
        assert.ok(lag < TIMEOUT_MS / 2, `the fast user's delivery waited ${lag} ms, not behind the slow user's ${TIMEOUT_MS} ms attempts`);
      } finally {
        clearInterval(loop);
        while (running) await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
  });
}
