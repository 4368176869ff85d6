// Webhooks (rules §12) on both engines, against a real receiver that
// verifies every delivery with the standardwebhooks package: the payload is
// the object in its owner's form; failures (500, a hang past the timeout, a
// refused connection, a redirect) follow the retry schedule on a test clock;
// a rotated secret; an endpoint disabled after 5 days of failures; the books.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, engines, fund, makeNonProfit, makeUser, openEnv, runCli, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/index.ts';
import { Receiver, verify } from './webhook-receiver.ts';

const EIN = '261544963';

for (const { name: engine } of engines()) {
  describe(`webhooks on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    const clock = new TestClock(new Date().toISOString());
    const receiver = new Receiver();
    const endpoint = async (key: string, url: string, extra: Record<string, unknown> = {}) => {
      const res = await call(env.app, 'POST', '/v1/webhook_endpoints', { key, body: { url, ...extra } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: number; secret: string };
    };
    const attemptsOf = async (key: string, id: number) =>
      (await call(env.app, 'GET', `/v1/webhook_endpoints/${id}/attempts?per_page=100`, { key })).body.items as Array<Record<string, unknown>>;

    before(async () => {
      await receiver.start();
      env = await openEnv(engine, { webhookAllowPrivate: true, webhookTimeoutMs: 800, mailDir: mkdtempSync(join(tmpdir(), 'almoner-mail-')) }, { clock });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps);
      await fund(env.deps, donor, 100_000);
      await runNotify(env.deps); // the funding's events, before any endpoint
    });
    after(async () => {
      await env.close();
      await receiver.stop();
    });

    test('a donation is delivered, signed, with the donation in its owner form; event_types filter; once per event', async () => {
      const all = await endpoint(donor.key, receiver.url('/ok?all'), { description: 'everything' });
      const gifts = await endpoint(donor.key, receiver.url('/ok?gifts'), { event_types: ['gift.created'] });
      const made = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 25, note: 'for the pantry' } });
      assert.equal(made.status, 201);
      await runNotify(env.deps);
      await runNotify(env.deps); // again: nothing is sent twice
      const got = receiver.on('/ok?all');
      assert.equal(got.length, 1);
      const payload = verify(all.secret, got[0] as never);
      assert.equal(payload.type, 'donation.created');
      const own = (await call(env.app, 'GET', `/v1/donations/${made.body.id}`, { key: donor.key })).body;
      assert.deepEqual(payload.data, own, 'the donation as its owner reads it');
      assert.match(String(got[0]?.headers['webhook-id']), /^evt_\d+$/);
      assert.throws(() => verify(gifts.secret, got[0] as never), "another endpoint's secret does not verify it");
      assert.equal(receiver.on('/ok?gifts').length, 0, 'the filtered endpoint gets no donation');
      const attempts = await attemptsOf(donor.key, all.id);
      assert.deepEqual([attempts.length, attempts[0]?.succeeded, attempts[0]?.status_code, attempts[0]?.event_type], [1, true, 200, 'donation.created']);
      // A test event, on request.
      const sent = await call(env.app, 'POST', `/v1/webhook_endpoints/${gifts.id}/test`, { key: donor.key });
      assert.equal(sent.status, 202);
      await runNotify(env.deps);
      assert.equal(verify(gifts.secret, receiver.on('/ok?gifts')[0] as never).type, 'webhook.test');
      for (const id of [all.id, gifts.id]) assert.equal((await call(env.app, 'DELETE', `/v1/webhook_endpoints/${id}`, { key: donor.key })).status, 200);
    });

    test('500, a hang past the timeout, a refused connection and a redirect each retry on the schedule, then fail for good', async () => {
      const closed = new Receiver();
      await closed.start();
      const refusedUrl = closed.url('/ok');
      await closed.stop();
      const endpoints = {
        fail: await endpoint(donor.key, receiver.url('/fail')),
        hang: await endpoint(donor.key, receiver.url('/hang')),
        refused: await endpoint(donor.key, refusedUrl),
        redirect: await endpoint(donor.key, receiver.url('/redirect')),
      };
      await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 10 } });
      const okBefore = receiver.on('/ok').length;
      await runNotify(env.deps, 1);
      const errors: Record<string, string> = {};
      for (const [name, e] of Object.entries(endpoints)) {
        const [first] = await attemptsOf(donor.key, e.id);
        assert.equal(first?.succeeded, false, name);
        errors[name] = String(first?.error);
      }
      assert.match(errors.fail ?? '', /answered 500/);
      assert.match(errors.hang ?? '', /no answer within 800 ms/);
      assert.match(errors.refused ?? '', /ECONNREFUSED/);
      assert.match(errors.redirect ?? '', /redirect \(302\) not followed/);
      assert.equal(receiver.on('/ok').length, okBefore, 'the redirect was not followed');
      // Nothing more until each delay (with its jitter) has passed; then one attempt each, 8 in all.
      for (const [i, delay] of RETRY_DELAYS_MS.entries()) {
        clock.advance(delay * 0.85);
        await runNotify(env.deps, 1);
        assert.equal((await attemptsOf(donor.key, endpoints.fail.id)).length, i + 1, `not before its time (attempt ${i + 2})`);
        clock.advance(delay * 0.3);
        await runNotify(env.deps, 1);
        assert.equal((await attemptsOf(donor.key, endpoints.fail.id)).length, i + 2, `attempt ${i + 2}`);
      }
      for (const e of Object.values(endpoints)) {
        const attempts = await attemptsOf(donor.key, e.id);
        assert.equal(attempts.length, 8);
        assert.equal((attempts[0]?.delivery as { status: string }).status, 'failed');
      }
      const spanMs = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
      assert.ok(spanMs >= 3 * 86_400_000, 'about 3 days of retries');
      // Failing every attempt for 5 days disables an endpoint, and an event says so.
      clock.advance(2 * 86_400_000);
      await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 10 } });
      await runNotify(env.deps, 1);
      const disabled = (await call(env.app, 'GET', `/v1/webhook_endpoints/${endpoints.fail.id}`, { key: donor.key })).body;
      assert.equal(disabled.disabled, true);
      assert.match(disabled.disabled_reason, /every delivery failed for 5 days/);
      const events = (await call(env.app, 'GET', '/v1/events', { key: donor.key })).body.items as Array<{ type: string; object_id: number }>;
      assert.ok(events.some((e) => e.type === 'webhook_endpoint.disabled' && e.object_id === endpoints.fail.id));
      // A disabled endpoint gets nothing new; enabling it again clears the reason.
      const before = (await attemptsOf(donor.key, endpoints.fail.id)).length;
      await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 10 } });
      await runNotify(env.deps, 1);
      assert.equal((await attemptsOf(donor.key, endpoints.fail.id)).length, before);
      const enabled = (await call(env.app, 'PATCH', `/v1/webhook_endpoints/${endpoints.fail.id}`, { key: donor.key, body: { disabled: false } })).body;
      assert.deepEqual([enabled.disabled, enabled.disabled_reason], [false, null]);
      for (const e of Object.values(endpoints)) await call(env.app, 'DELETE', `/v1/webhook_endpoints/${e.id}`, { key: donor.key });
      clock.set(new Date().toISOString());
    });

    test('a rotated secret: both sign for 24 hours, then only the new one', async () => {
      const e = await endpoint(donor.key, receiver.url('/ok?rotate'));
      const rotated = await call(env.app, 'POST', `/v1/webhook_endpoints/${e.id}/rotate_secret`, { key: donor.key });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.secret, e.secret);
      await call(env.app, 'POST', `/v1/webhook_endpoints/${e.id}/test`, { key: donor.key });
      await runNotify(env.deps);
      const first = receiver.on('/ok?rotate')[0];
      assert.equal(verify(rotated.body.secret, first as never).type, 'webhook.test');
      assert.equal(verify(e.secret, first as never).type, 'webhook.test', 'the old secret still verifies');
      clock.advance(24 * 3_600_000 + 1000);
      await call(env.app, 'POST', `/v1/webhook_endpoints/${e.id}/test`, { key: donor.key });
      await runNotify(env.deps);
      const second = receiver.on('/ok?rotate')[1] as never;
      assert.equal(String((second as { headers: Record<string, string> }).headers['webhook-signature']).split(' ').length, 1);
      clock.set(new Date().toISOString());
      await call(env.app, 'DELETE', `/v1/webhook_endpoints/${e.id}`, { key: donor.key });
    });

    test("books and owners: another user's or the other book's endpoint is 404; a sandbox key's endpoint gets the sandbox's events only", async () => {
      const mine = await endpoint(donor.key, receiver.url('/ok?live'));
      const other = await makeUser(env.deps);
      const testKey = (await call(env.app, 'POST', '/v1/api_keys', { key: donor.key, body: { name: 'sandbox', mode: 'test' } })).body.key as string;
      for (const key of [other.key, testKey]) {
        for (const [method, path] of [
          ['GET', ''],
          ['PATCH', ''],
          ['DELETE', ''],
          ['POST', '/rotate_secret'],
          ['POST', '/test'],
          ['GET', '/attempts'],
        ] as const) {
          const res = await call(env.app, method, `/v1/webhook_endpoints/${mine.id}${path}`, { key, ...(method === 'PATCH' ? { body: { description: 'x' } } : {}) });
          assert.deepEqual([res.status, res.body.code], [404, 'webhook_endpoint_not_found'], `${method} ${path}`);
        }
      }
      const sandbox = await endpoint(testKey, receiver.url('/ok?sandbox'));
      assert.equal((await call(env.app, 'GET', '/v1/webhook_endpoints', { key: testKey })).body.items.length, 1);
      await call(env.app, 'POST', '/v1/sandbox/deposits', { key: testKey, body: { amount: 100 } });
      await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 10 } });
      await runNotify(env.deps);
      assert.deepEqual(
        receiver.on('/ok?sandbox').map((r) => verify(sandbox.secret, r).type),
        ['contribution.created'],
      );
      assert.deepEqual(
        receiver.on('/ok?live').map((r) => verify(mine.secret, r).type),
        ['donation.created'],
      );
    });

    test("operators replay an endpoint's events since a time, with their first webhook-id; bad replays are refused", async () => {
      const e = await endpoint(donor.key, receiver.url('/ok?replay'), { event_types: ['donation.created'] });
      const since = clock.now().toISOString();
      await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 12 } });
      await runNotify(env.deps);
      const first = receiver.on('/ok?replay');
      assert.equal(first.length, 1);
      const url = env.deps.config.databaseUrl;
      const replayed = await runCli(['webhooks', 'replay', '--endpoint', String(e.id), '--since', since], url);
      assert.equal(replayed.code, 0, replayed.stderr);
      // Every donation.created of the donor since then (earlier tests made some at later clock times too).
      const since_ = await env.deps.db
        .selectFrom('events')
        .select('id')
        .where('user_id', '=', donor.user_id)
        .where('type', '=', 'donation.created')
        .where('created_at', '>=', since)
        .execute();
      assert.match(replayed.stdout, new RegExp(`^Queued ${since_.length} events since`));
      clock.set(new Date(Date.now() + 1000).toISOString()); // queued by the CLI on the real clock
      await runNotify(env.deps);
      const all = receiver.on('/ok?replay');
      assert.equal(all.length, 1 + since_.length);
      const again = all.slice(1).find((r) => r.headers['webhook-id'] === first[0]?.headers['webhook-id']);
      assert.ok(again, 'the same webhook-id as the first time: a receiver drops it');
      assert.equal(verify(e.secret, again).type, 'donation.created');
      for (const [args, message] of [
        [['webhooks', 'replay', '--endpoint', '999999', '--since', since], /no webhook endpoint 999999/],
        [['webhooks', 'replay', '--endpoint', String(e.id), '--since', 'last week'], /--since must be a date or time/],
        [['webhooks', 'replay', '--since', since], /--endpoint must be a positive whole number/],
      ] as const) {
        const res = await runCli([...args], url);
        assert.notEqual(res.code, 0);
        assert.match(res.stderr, message);
      }
      await call(env.app, 'DELETE', `/v1/webhook_endpoints/${e.id}`, { key: donor.key });
    });
  });
}
