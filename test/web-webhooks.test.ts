// The Webhooks settings page (inject, both engines): add an endpoint and see
// its secret once, refuse a bad URL beside its field, send a test event and
// see its attempt, rotate, pause, enable, delete; another user gets 404.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, fingerprint, openEnv, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { Receiver, verify } from './webhook-receiver.ts';

for (const { name: engine } of engines()) {
  describe(`webhooks in the web app (${engine})`, () => {
    let env: TestEnv;
    const receiver = new Receiver();

    before(async () => {
      await receiver.start();
      env = await openEnv(engine, { webhookAllowPrivate: true });
    });
    after(async () => {
      await env.close();
      await receiver.stop();
    });

    test('add, see the secret once, test, see the attempt, rotate, pause, enable, delete', async () => {
      const browser = new WebClient(env.app);
      await browser.signUp('Hook Owner', 'hooks@example.org');
      await browser.get('/settings/webhooks');
      const before = await fingerprint(env.deps);
      const bad = await browser.post('/settings/webhooks', { url: 'ftp://example.org/x' });
      assert.equal(bad.status, 422);
      assert.match(bad.body, /aria-invalid="true"/);
      assert.match(textOf(bad.body), /url must use https/);
      assert.deepEqual(await fingerprint(env.deps), before);

      const added = await browser.post('/settings/webhooks', { url: receiver.url('/ok?web'), description: 'My <app>', event_types: ['donation.created', 'gift.created'] });
      assert.equal(added.status, 303);
      const page = await browser.get(added.location ?? '');
      const secret = /id="new-secret" class="key" readonly value="(whsec_[^"]+)"/.exec(page.body)?.[1] ?? '';
      assert.match(secret, /^whsec_/);
      assert.match(textOf(page.body), /events: donation\.created, gift\.created · My <app>/);
      const again = await browser.get(added.location ?? '');
      assert.doesNotMatch(again.body, /whsec_/, 'shown once');

      const id = Number(/\/settings\/webhooks\/(\d+)/.exec(added.location ?? '')?.[1]);
      assert.equal((await browser.post(`/settings/webhooks/${id}/test`, {})).status, 303);
      await runNotify(env.deps);
      assert.equal(verify(secret, receiver.on('/ok?web')[0] as never).type, 'webhook.test');
      const attempts = await browser.get(`/settings/webhooks/${id}`);
      assert.match(textOf(attempts.body), /webhook\.test msg_test_\w+ 200 \d+ ms/);

      const rotated = await browser.post(`/settings/webhooks/${id}/rotate`, {});
      const shown = await browser.get(rotated.location ?? '');
      const fresh = /id="new-secret" class="key" readonly value="(whsec_[^"]+)"/.exec(shown.body)?.[1];
      assert.ok(fresh !== undefined && fresh !== secret);
      await browser.post(`/settings/webhooks/${id}/disable`, {});
      assert.match(textOf((await browser.get(`/settings/webhooks/${id}`)).body), /Disabled/);
      await browser.post(`/settings/webhooks/${id}/enable`, {});
      assert.match(textOf((await browser.get(`/settings/webhooks/${id}`)).body), /Active/);

      const other = new WebClient(env.app);
      await other.signUp('Someone Else', 'hooks-other@example.org');
      for (const path of [`/settings/webhooks/${id}`, '/settings/webhooks/abc']) assert.equal((await other.get(path)).status, 404, path);
      await other.get('/settings/webhooks');
      for (const action of ['test', 'rotate', 'disable', 'delete']) assert.equal((await other.post(`/settings/webhooks/${id}/${action}`, {})).status, 404, action);

      await browser.get(`/settings/webhooks/${id}`);
      const deleted = await browser.post(`/settings/webhooks/${id}/delete`, {});
      assert.deepEqual([deleted.status, deleted.location], [303, '/settings/webhooks?done=endpoint_deleted']);
      assert.match(textOf((await browser.get('/settings/webhooks')).body), /No endpoints yet/);
    });
  });
}
