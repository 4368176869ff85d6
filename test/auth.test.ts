// The authorization matrix: every endpoint with no key, a malformed key, an
// unknown key, a revoked key, and another user's key.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../src/app.ts';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, type TestEnv, type TestUser } from './harness.ts';

interface Endpoint {
  method: string;
  url: (ctx: Ctx) => string;
  body?: unknown;
  /** What the other user's key gets: the status and code. */
  other: [number, string | null];
}

interface Ctx {
  owner: TestUser;
  donation_id: number;
  private_donation_id: number;
  gift_code: string;
  key_id: number;
}

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', url: () => '/v1/donations', other: [200, null] },
  { method: 'GET', url: (c) => `/v1/donations/${c.donation_id}`, other: [404, 'donation_not_found'] },
  { method: 'POST', url: () => '/v1/donations', body: { amount: 10, ein: '261544963' }, other: [201, null] },
  { method: 'DELETE', url: (c) => `/v1/donations/${c.donation_id}`, other: [404, 'donation_not_found'] },
  { method: 'GET', url: (c) => `/v1/users/${c.owner.user_id}/donations`, other: [200, null] },
  { method: 'GET', url: (c) => `/v1/users/${c.owner.user_id}/donations/${c.donation_id}`, other: [200, null] },
  { method: 'GET', url: (c) => `/v1/users/${c.owner.user_id}/donations/${c.private_donation_id}`, other: [404, 'donation_not_found'] },
  { method: 'POST', url: (c) => `/v1/users/${c.owner.user_id}/donations`, body: { amount: 10, ein: '261544963' }, other: [403, 'forbidden'] },
  { method: 'GET', url: () => '/v1/gifts', other: [200, null] },
  { method: 'GET', url: (c) => `/v1/gifts/${c.gift_code}`, other: [404, 'gift_not_found'] },
  { method: 'POST', url: () => '/v1/gifts', body: { name: 'X', amount: 18 }, other: [201, null] },
  { method: 'GET', url: () => '/v1/non_profits/261544963', other: [200, null] },
  { method: 'GET', url: () => '/v1/non_profits?query=food', other: [200, null] },
  { method: 'GET', url: () => '/v1/users/me', other: [200, null] },
  { method: 'GET', url: (c) => `/v1/users/${c.owner.slug}`, other: [200, null] },
  { method: 'GET', url: (c) => `/v1/users/${c.owner.user_id}/causes`, other: [200, null] },
  { method: 'GET', url: () => '/v1/users/me/balance', other: [200, null] },
  { method: 'GET', url: () => '/v1/contributions', other: [200, null] },
  { method: 'GET', url: () => '/v1/api_keys', other: [200, null] },
  { method: 'POST', url: () => '/v1/api_keys', body: { name: 'x' }, other: [201, null] },
  { method: 'DELETE', url: (c) => `/v1/api_keys/${c.key_id}`, other: [404, 'api_key_not_found'] },
];

for (const { name: engine } of engines()) {
  describe(`authorization on ${engine}`, () => {
    let env: TestEnv;
    let ctx: Ctx;
    let other: TestUser;
    let revokedKey: string;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const owner = await makeUser(env.deps);
      other = await makeUser(env.deps);
      await fund(env.deps, owner, 100_000);
      await fund(env.deps, other, 100_000);
      const d = await call(env.app, 'POST', '/v1/donations', { key: owner.key, body: { amount: 10, ein: '261544963' } });
      const p = await call(env.app, 'POST', '/v1/donations', { key: owner.key, body: { amount: 10, ein: '261544963', visibility: 'private' } });
      const g = await call(env.app, 'POST', '/v1/gifts', { key: owner.key, body: { name: 'Y', amount: 18 } });
      const k = await call(env.app, 'POST', '/v1/api_keys', { key: owner.key, body: { name: 'spare' } });
      const r = await call(env.app, 'POST', '/v1/api_keys', { key: owner.key, body: { name: 'to revoke' } });
      await call(env.app, 'DELETE', `/v1/api_keys/${r.body.id}`, { key: owner.key });
      revokedKey = r.body.key;
      ctx = { owner, donation_id: d.body.id, private_donation_id: p.body.id, gift_code: g.body.code, key_id: k.body.id };
    });
    after(async () => env.close());

    const unknownKey = `alm_live_${'A'.repeat(40)}`;
    const badKeys: Array<[string, Record<string, string>, string]> = [
      ['no key', {}, 'unauthenticated'],
      ['an empty X-Api-Key', { 'x-api-key': '' }, 'unauthenticated'],
      ['a malformed key', { 'x-api-key': 'hello' }, 'invalid_api_key'],
      ['an unknown key', { 'x-api-key': unknownKey }, 'invalid_api_key'],
      ['an unknown Bearer key', { authorization: `Bearer ${unknownKey}` }, 'invalid_api_key'],
    ];

    for (const endpoint of ENDPOINTS) {
      test(`${endpoint.method} ${endpoint.url({ owner: { user_id: 0, slug: ':slug' } as TestUser, donation_id: 0, private_donation_id: 0, gift_code: ':code', key_id: 0 })}`, async () => {
        const url = endpoint.url(ctx);
        const before = await fingerprint(env.deps);
        for (const [label, headers, code] of [...badKeys, ['a revoked key', { 'x-api-key': revokedKey }, 'invalid_api_key'] as [string, Record<string, string>, string]]) {
          const res = await call(env.app, endpoint.method, url, { headers, ...(endpoint.body === undefined ? {} : { body: endpoint.body }) });
          assert.equal(res.status, 401, `${label}: status`);
          assert.equal(res.body.code, code, `${label}: code`);
          assert.equal(res.headers['www-authenticate'], 'ApiKey', `${label}: challenge`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        }
        assert.deepEqual(await fingerprint(env.deps), before, 'a refused request changes nothing');
        const res = await call(env.app, endpoint.method, url, { key: other.key, ...(endpoint.body === undefined ? {} : { body: endpoint.body }) });
        assert.equal(res.status, endpoint.other[0], `another user's key: ${JSON.stringify(res.body)}`);
        if (endpoint.other[1] !== null) assert.equal(res.body.code, endpoint.other[1]);
      });
    }

    test('the three header forms identify the caller; X-Api-Key wins', async () => {
      for (const headers of [{ 'x-api-key': ctx.owner.key } as Record<string, string>, { authorization: `Bearer ${ctx.owner.key}` }, { authorization: `bearer  ${ctx.owner.key}` }, { authorization: ctx.owner.key }, { 'x-api-key': ctx.owner.key, authorization: `Bearer ${other.key}` }]) {
        const res = await call(env.app, 'GET', '/v1/users/me', { headers });
        assert.equal(res.status, 200, JSON.stringify(Object.keys(headers)));
        assert.equal(res.body.id, ctx.owner.user_id);
      }
    });

    test('a key revoked through one node fails on the next request to another node', async () => {
      const second = await buildApp(env.deps); // its own in-memory key cache, as another process has
      try {
        const created = await call(env.app, 'POST', '/v1/api_keys', { key: ctx.owner.key, body: { name: 'two nodes' } });
        assert.equal((await call(second, 'GET', '/v1/users/me', { key: created.body.key })).status, 200);
        assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: created.body.key })).status, 200);
        assert.equal((await call(env.app, 'DELETE', `/v1/api_keys/${created.body.id}`, { key: ctx.owner.key })).status, 200);
        const onSecond = await call(second, 'GET', '/v1/users/me', { key: created.body.key });
        assert.equal(onSecond.status, 401);
        assert.equal(onSecond.body.code, 'invalid_api_key');
        assert.equal((await call(second, 'GET', '/v1/users/me', { key: ctx.owner.key })).status, 200, 'other keys still work');
      } finally {
        await second.close();
      }
    });

    test('operational endpoints need no key', async () => {
      for (const url of ['/healthz', '/readyz', '/openapi.json', '/metrics']) {
        assert.equal((await call(env.app, 'GET', url)).status, 200, url);
      }
    });
  });
}
