// Where webhooks may go (rules §12): endpoint URLs refused with a clear
// 422 (schemes, credentials, size, IDNs, private ranges in every notation),
// nothing written; and the guard at send time, on the address the name
// resolves to (localhost -> 127.0.0.1 is refused unless allowed).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { call, engines, fingerprint, makeUser, openEnv, type TestEnv, type TestUser } from './harness.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { endpointUrlProblem, isPrivateAddress } from '../src/modules/webhooks/index.ts';
import { Receiver } from './webhook-receiver.ts';

const REFUSED = [
  'ftp://example.org/hook',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'gopher://example.org/',
  'example.org/hook',
  '//example.org/hook',
  'https://user:pass@example.org/hook',
  'https://user@example.org/hook',
  `https://example.org/${'a'.repeat(10_240)}`,
  'https://bücher.example/hook',
  'https://xn--bcher-kva.example/hook',
  'https://例え.jp/hook',
  'https://example.org/hook#frag',
  'https://example.org/ hook',
  'http://127.0.0.1/hook',
  'http://127.1/hook',
  'http://2130706433/hook',
  'http://0x7f000001/hook',
  'http://0177.0.0.1/hook',
  'http://017700000001/hook',
  'http://0/hook',
  'http://0.0.0.0/hook',
  'http://10.0.0.1/hook',
  'http://172.16.5.4/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data',
  'http://100.64.0.1/hook',
  'http://[::1]/hook',
  'http://[::]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[64:ff9b::a9fe:a9fe]/hook',
  'https://192.0.2.10/hook',
  'https://198.51.100.1/hook',
  'https://203.0.113.5/hook',
  'https://192.88.99.1/hook',
  'https://[2001:db8::5]/hook',
  'http://[fe80::1]/hook',
  'http://[fd00::1]/hook',
  'http://localhost/hook',
  'http://api.localhost/hook',
  'http://intranet/hook',
  'http://224.0.0.1/hook',
];

for (const { name: engine } of engines()) {
  describe(`webhook destinations on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    const receiver = new Receiver();

    before(async () => {
      await receiver.start();
      env = await openEnv(engine, { webhookAllowPrivate: false, webhookTimeoutMs: 1000 });
      donor = await makeUser(env.deps);
    });
    after(async () => {
      await env.close();
      await receiver.stop();
    });

    test(`${REFUSED.length} endpoint URLs are refused with 422 invalid_url and say why; nothing is written`, async () => {
      const before = await fingerprint(env.deps);
      for (const url of REFUSED) {
        const res = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: donor.key, body: { url } });
        assert.deepEqual([res.status, res.body.code, res.body.errors?.[0]?.field], [422, 'invalid_url', 'url'], url.slice(0, 80));
        assert.ok(String(res.body.errors?.[0]?.message).length > 10, url.slice(0, 80));
      }
      for (const body of [
        {},
        { url: 42 },
        { url: 'https://example.org/h', event_types: ['nope'] },
        { url: 'https://example.org/h', event_types: 'donation.created' },
        { url: 'https://example.org/h', disabled: 'yes' },
        { url: 'https://example.org/h', description: 'x'.repeat(501) },
        { url: 'https://example.org/h', extra: 1 },
      ]) {
        const res = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: donor.key, body });
        assert.ok(res.status === 422 || res.status === 400, JSON.stringify(body));
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      const fine = await call(env.app, 'POST', '/v1/webhook_endpoints', {
        key: donor.key,
        body: { url: 'https://hooks.example.org/almoner?x=1', event_types: ['donation.created', 'donation.created'] },
      });
      assert.equal(fine.status, 201);
      assert.deepEqual(fine.body.event_types, ['donation.created']);
      assert.match(fine.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal((await call(env.app, 'GET', `/v1/webhook_endpoints/${fine.body.id}`, { key: donor.key })).body.secret, undefined, 'never shown again');
      await call(env.app, 'DELETE', `/v1/webhook_endpoints/${fine.body.id}`, { key: donor.key });
    });

    test('at send time: a name that now resolves to loopback, and a private literal, are refused; nothing reaches the receiver', async () => {
      const made = await call(env.app, 'POST', '/v1/webhook_endpoints', { key: donor.key, body: { url: 'https://hooks.example.org/almoner' } });
      // The name pointed somewhere public when it was added; now it resolves to this machine (DNS rebinding).
      await env.deps.db
        .updateTable('webhook_endpoints')
        .set({ url: `http://localhost:${receiver.port}/ok` })
        .where('id', '=', made.body.id)
        .execute();
      await call(env.app, 'POST', `/v1/webhook_endpoints/${made.body.id}/test`, { key: donor.key });
      await runNotify(env.deps, 1);
      await env.deps.db
        .updateTable('webhook_endpoints')
        .set({ url: `http://[::ffff:127.0.0.1]:${receiver.port}/ok` })
        .where('id', '=', made.body.id)
        .execute();
      await call(env.app, 'POST', `/v1/webhook_endpoints/${made.body.id}/test`, { key: donor.key });
      await runNotify(env.deps, 1);
      const attempts = (await call(env.app, 'GET', `/v1/webhook_endpoints/${made.body.id}/attempts`, { key: donor.key })).body.items as Array<{
        error: string;
        succeeded: boolean;
      }>;
      assert.deepEqual(
        attempts.map((a) => a.succeeded),
        [false, false],
      );
      assert.match(attempts[1]?.error ?? '', /refused: localhost resolves to a private, loopback or reserved address/);
      assert.doesNotMatch(attempts[1]?.error ?? '', /127\.0\.0\.1|::1/, 'what an internal name resolves to is not shown');
      assert.match(attempts[0]?.error ?? '', /refused: ::ffff:7f00:1 is a private address/);
      assert.equal(receiver.received.length, 0);
    });

    test('the address rules, one by one', () => {
      for (const ip of [
        '127.0.0.1',
        '10.1.2.3',
        '172.31.255.255',
        '192.168.0.1',
        '169.254.169.254',
        '100.127.0.1',
        '0.0.0.0',
        '::1',
        '::',
        'fe80::1',
        'fc00::1',
        '::ffff:10.0.0.1',
        '::ffff:a00:1',
        '64:ff9b::7f00:1',
        '255.255.255.255',
        // IANA's reserved, documentation and benchmarking ranges (ADR 15 refuses them; the review found them taken).
        '192.0.2.1',
        '198.51.100.7',
        '203.0.113.9',
        '192.88.99.1',
        '198.18.0.1',
        '192.0.0.8',
        '240.0.0.1',
        '2001:db8::1',
        '2002:7f00:1::1',
        '2001::1',
        '3fff::1',
        'not an address',
      ])
        assert.equal(isPrivateAddress(ip), true, ip);
      for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '[2606:4700::1111]'])
        assert.equal(isPrivateAddress(ip), false, ip);
      for (const url of ['https://192.0.2.10/hook', 'https://198.51.100.1/hook', 'https://203.0.113.5/hook', 'https://[2001:db8::5]/hook'])
        assert.match(String(endpointUrlProblem(url, false)), /private, loopback or link-local/, url);
      assert.equal(endpointUrlProblem('http://127.0.0.1/h', true), undefined, 'allowed by the operator');
    });
  });
}
