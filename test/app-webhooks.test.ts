// An app hears of what it made (docs/rules.md §25), on both engines, against a real receiver that
// verifies each delivery: an app's developer adds an endpoint for the app; the donations its
// token makes (with their external ids and metadata), the ones a donor gives by its donate link
// and the payments of a monthly one reach it, in their owner's form, and so do their later events; nothing else does (the
// donor's own donations, the developer's). Refused endpoints write nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, engines, fingerprint, fund, makeNonProfit, makeUser, openEnv, type TestEnv, type TestUser } from './harness.ts';
import { connectApp, type AppTokens } from './app-tokens.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { replayEndpoint } from '../src/modules/webhooks/index.ts';
import { runScheduler } from '../src/modules/scheduled/index.ts';
import { Receiver, verify } from './webhook-receiver.ts';
import { WebClient } from './web-client.ts';

const EIN = '261544963';

function hiddenFields(body: string): Record<string, string> {
  return Object.fromEntries([...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1] as string, (m[2] as string).replaceAll('&quot;', '"')]));
}

for (const { name: engine } of engines()) {
  describe(`an app's webhooks (${engine})`, () => {
    let env: TestEnv;
    let developer: TestUser;
    let donor: TestUser;
    let app: AppTokens;
    const receiver = new Receiver();

    before(async () => {
      await receiver.start();
      env = await openEnv(engine, { webhookAllowPrivate: true });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      developer = await makeUser(env.deps, { name: 'Wheel Developer' });
      donor = await makeUser(env.deps, { name: 'Wheel Donor' });
      await fund(env.deps, donor, 500_00);
      await fund(env.deps, developer, 100_00);
      app = await connectApp(env.deps, donor.user_id, { scopes: ['read', 'donate'], developer: developer.user_id });
      await runNotify(env.deps);
    });
    after(async () => {
      await env.close();
      await receiver.stop();
    });

    test("the app's donations, by token and by link, reach its endpoint; nobody else's do", async () => {
      const made = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: developer.key, body: { url: receiver.url('/ok?app'), app: app.clientId } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.app, app.clientId);
      const own = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: developer.key, body: { url: receiver.url('/ok?developer') } });
      assert.equal(own.body.app, null);
      const listed = (await call(env.app, 'GET', '/v1/webhook_endpoints', { key: developer.key })).body.items as Array<{ app: string | null }>;
      assert.deepEqual(listed.map((e) => e.app).sort(), [app.clientId, null].sort());

      const bearer = { authorization: `Bearer ${app.accessToken}` };
      const byToken = await call(env.app, 'POST', '/v1/donations', { headers: bearer, body: { ein: EIN, amount: 25, external_id: 'order-1', metadata: { cart: '7' } } });
      assert.equal(byToken.status, 201, JSON.stringify(byToken.body));
      // Not the app's: the donor's own, and the developer's.
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 11 } })).status, 201);
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: developer.key, body: { ein: EIN, amount: 12 } })).status, 201);

      // A donor who follows the app's donate link.
      const browser = new WebClient(env.app);
      await browser.signUp('Link Giver', 'link-giver@example.org');
      await fund(env.deps, await accountOf(env.deps, 'link-giver@example.org'), 100_00);
      const page = await browser.get(`/donate/${EIN}?${new URLSearchParams({ amount: '15', external_id: 'link-1', app: app.clientId }).toString()}`);
      assert.equal(page.status, 200);
      const given = await browser.post('/dashboard/donations', { ...hiddenFields(page.body), amount: '15', visibility: 'public' });
      assert.equal(given.status, 303);

      // A monthly link: each payment of the recurring donation is the app's too.
      const monthly = await browser.get(`/donate/${EIN}?${new URLSearchParams({ amount: '12', frequency: 'monthly', external_id: 'link-m', app: app.clientId }).toString()}`);
      const scheduled = await browser.post('/dashboard/scheduled', { ...hiddenFields(monthly.body), amount: '12' });
      assert.equal(scheduled.status, 303);
      assert.equal((await runScheduler(env.deps)).created, 1);

      // The app-made donation withdrawn by the app: a later event of it.
      assert.equal((await call(env.app, 'DELETE', `/v1/donations/${byToken.body.id}`, { headers: bearer })).status, 200);
      await runNotify(env.deps);

      const heard = receiver.on('/ok?app').map((r) => verify(made.body.secret, r as never) as { type: string; data: Record<string, unknown> });
      assert.deepEqual(
        heard.map((h) => [h.type, h.data.amount, h.data.external_id, h.data.metadata]),
        [
          ['donation.created', 25, 'order-1', { cart: '7' }],
          ['donation.created', 15, 'link-1', { _source: 'donate_link' }],
          ['donation.created', 12, undefined, undefined],
          ['donation.updated', 25, 'order-1', { cart: '7' }],
        ],
        "the app's donations in their owner's form, nothing else",
      );
      const developers = receiver.on('/ok?developer').map((r) => verify(own.body.secret, r as never) as { data: Record<string, unknown> });
      assert.deepEqual(
        developers.map((d) => d.data.amount),
        [12],
        "the developer's own endpoint hears their fund, not their app",
      );

      // An operator's replay of the app's endpoint sends what it heard again.
      assert.notEqual(heard[2]?.data.scheduled_donation_id, null, "the recurring donation's payment");
      assert.equal(await replayEndpoint(env.deps, made.body.id, '2000-01-01T00:00:00Z'), 4);
    });

    test("an endpoint for an app that is not one's own, or not an app, is refused and writes nothing", async () => {
      const stranger = await makeUser(env.deps);
      const cases: Array<[string, string, Record<string, unknown>, number, string]> = [
        ["another developer's app", stranger.key, { url: receiver.url('/ok?x'), app: app.clientId }, 404, 'app_not_found'],
        ['no app at all', developer.key, { url: receiver.url('/ok?x'), app: 'app_000000000000000000000000' }, 404, 'app_not_found'],
        ['not a client id', developer.key, { url: receiver.url('/ok?x'), app: 'wheel' }, 422, 'validation_failed'],
        ['not text', developer.key, { url: receiver.url('/ok?x'), app: 7 }, 422, 'validation_failed'],
      ];
      for (const [label, key, body, status, code] of cases) {
        const before = await fingerprint(env.deps);
        const res = await call(env.app, 'POST', '/v1/webhook_endpoints', { key, body });
        assert.deepEqual([res.status, res.body.code], [status, code], `${label}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(await fingerprint(env.deps), before, `${label}: nothing written`);
      }
      // The app of an endpoint is chosen when it is made.
      const made = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: developer.key, body: { url: receiver.url('/ok?y') } });
      const before = await fingerprint(env.deps);
      const patched = await call(env.app, 'PATCH', `/v1/webhook_endpoints/${made.body.id}`, { key: developer.key, body: { app: app.clientId } });
      assert.deepEqual([patched.status, patched.body.code], [422, 'unknown_field']);
      assert.deepEqual(await fingerprint(env.deps), before);
    });
  });
}
