// SANDBOX=false: a platform without a sandbox. Sandbox keys neither work nor
// can be made, /v1/sandbox is not there, and the web offers live keys only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeUser, openEnv } from './harness.ts';
import { WebClient } from './web-client.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { sandboxUserFor } from '../src/modules/users/index.ts';

for (const { name: engine } of engines()) {
  test(`SANDBOX=false: no sandbox keys, no /v1/sandbox, live keys only in the web (${engine})`, async () => {
    const env = await openEnv(engine, { sandbox: false });
    try {
      const user = await makeUser(env.deps);
      // A sandbox key made before the sandbox was turned off stops working.
      const twin = await env.deps.db.transaction().execute((trx) => sandboxUserFor(env.deps, user.user_id, trx));
      const old = await createKey(env.deps, twin, 'from before', 'test');
      const refused = await call(env.app, 'GET', '/v1/users/me', { key: old.key });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'sandbox_disabled');
      assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: user.key })).status, 200);

      const before = await fingerprint(env.deps);
      const made = await call(env.app, 'POST', '/v1/api_keys', { key: user.key, body: { name: 'test key', mode: 'test' } });
      assert.equal(made.status, 422);
      assert.equal(made.body.code, 'sandbox_disabled');
      assert.deepEqual(await fingerprint(env.deps), before);
      assert.equal((await call(env.app, 'POST', '/v1/sandbox/deposits', { key: user.key, body: { amount: 10 } })).status, 404);

      const browser = new WebClient(env.app);
      await browser.signUp('No Sandbox', 'nosandbox@example.org');
      const page = await browser.get('/settings/keys');
      assert.equal(page.status, 200);
      assert.ok(page.body.includes('value="live"') && !page.body.includes('value="test"'), 'only live keys are offered');
      const posted = await browser.post('/settings/keys', { name: 'sneaky', mode: 'test' });
      assert.equal(posted.status, 422);
    } finally {
      await env.close();
    }
  });
}
