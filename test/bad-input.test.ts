// Malformed bodies for every POST: each gets a 4xx problem with the right
// code, never a 5xx, and the database is left exactly as it was.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, type TestEnv, type TestUser } from './harness.ts';

type Case = [label: string, body: unknown, status: number, code: string, headers?: Record<string, string>];

const huge = 'x'.repeat(70 * 1024);

/** Malformed bodies shared by every create endpoint (the JSON and transport level). */
const TRANSPORT: Case[] = [
  ['not JSON', '{amount: 10}', 400, 'invalid_json'],
  ['truncated JSON', '{"amount": 10', 400, 'invalid_json'],
  ['an empty body', '', 400, 'invalid_json'],
  ['a JSON array', '[]', 422, 'validation_failed'],
  ['a JSON string', '"hello"', 422, 'validation_failed'],
  ['JSON null', 'null', 422, 'validation_failed'],
  ['a number', '42', 422, 'validation_failed'],
  ['duplicate keys', '{"amount": 10, "amount": 20, "ein": "261544963", "name": "x"}', 400, 'invalid_json'],
  ['a __proto__ key', '{"__proto__": {"admin": true}, "amount": 20, "name": "x", "ein": "261544963"}', 400, 'invalid_json'],
  ['a constructor key', '{"constructor": {"prototype": {}}, "amount": 20, "name": "x", "ein": "261544963"}', 400, 'invalid_json'],
  ['text/plain', '{"amount": 20}', 415, 'unsupported_media_type', { 'content-type': 'text/plain' }],
  ['form encoded', 'amount=20', 415, 'unsupported_media_type', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['oversized', JSON.stringify({ amount: 20, name: 'x', ein: '261544963', note: huge }), 413, 'payload_too_large'],
  ['NaN literal', '{"amount": NaN, "ein": "261544963", "name": "x"}', 400, 'invalid_json'],
  ['a NUL character in a text', '{"amount": 20, "ein": "261544963", "name": "a\\u0000b", "note": "a\\u0000b"}', 422, 'validation_failed'],
  // PostgreSQL cannot keep a lone surrogate in JSON or text: refused at the edge on both engines (it answered 500).
  ['a lone surrogate in a text', '{"amount": 20, "ein": "261544963", "name": "a\\ud800b", "note": "a\\ud800b"}', 422, 'validation_failed'],
  ['a lone low surrogate in a text', '{"amount": 20, "ein": "261544963", "name": "a\\udc00", "note": "a\\udc00"}', 422, 'validation_failed'],
  ['a control character in a text', '{"amount": 20, "ein": "261544963", "name": "a\\u001bb", "note": "a\\u001b[31mred"}', 422, 'validation_failed'],
  ['a C1 control character in a text', '{"amount": 20, "ein": "261544963", "name": "a\\u0085b", "note": "a\\u0085b"}', 422, 'validation_failed'],
];

/** Amount problems, for both donation paths and gifts. */
function amountCases(base: Record<string, unknown>, min: number): Case[] {
  return [
    ['amount missing', { ...base, amount: undefined }, 422, 'validation_failed'],
    ['amount null', { ...base, amount: null }, 422, 'amount_invalid'],
    ['amount a string', { ...base, amount: '20' }, 422, 'amount_invalid'],
    ['amount an empty string', { ...base, amount: '' }, 422, 'amount_invalid'],
    ['amount a boolean', { ...base, amount: true }, 422, 'amount_invalid'],
    ['amount an object', { ...base, amount: { value: 20 } }, 422, 'amount_invalid'],
    ['amount an array', { ...base, amount: [20] }, 422, 'amount_invalid'],
    [
      'amount 1e309 (infinity)',
      `{"amount": 1e309, ${Object.entries(base)
        .map(([k, v]) => `"${k}": ${JSON.stringify(v)}`)
        .join(', ')}}`,
      422,
      'amount_invalid',
    ],
    ['amount with 3 decimals', { ...base, amount: min + 0.005 }, 422, 'amount_invalid'],
    ['amount 10.001', { ...base, amount: 10.001 + min }, 422, 'amount_invalid'],
    ['amount negative', { ...base, amount: -min }, 422, 'amount_invalid'],
    ['amount zero', { ...base, amount: 0 }, 422, 'amount_below_minimum'],
    ['amount below the minimum', { ...base, amount: min - 0.01 }, 422, 'amount_below_minimum'],
    ['amount over 10,000,000', { ...base, amount: 10_000_000.01 }, 422, 'amount_invalid'],
    ['amount 1e21', { ...base, amount: 1e21 }, 422, 'amount_invalid'],
    ['amount tiny exponent', { ...base, amount: 1e-7 }, 422, 'amount_invalid'],
  ];
}

function donationCases(): Case[] {
  const ok = { amount: 20, ein: '261544963' };
  return [
    ...TRANSPORT,
    ...amountCases({ ein: '261544963' }, 10),
    ['ein missing', { amount: 20 }, 422, 'validation_failed'],
    ['ein a number', { ...ok, ein: 261544963 }, 422, 'validation_failed'],
    ['ein too short', { ...ok, ein: '12345' }, 422, 'validation_failed'],
    ['ein with letters', { ...ok, ein: '26154496X' }, 422, 'validation_failed'],
    ['ein null', { ...ok, ein: null }, 422, 'validation_failed'],
    ['note too long', { ...ok, note: 'n'.repeat(1001) }, 422, 'validation_failed'],
    ['note a number', { ...ok, note: 5 }, 422, 'validation_failed'],
    ['private_memo too long', { ...ok, private_memo: 'm'.repeat(1001) }, 422, 'validation_failed'],
    ['visibility unknown', { ...ok, visibility: 'friends' }, 422, 'validation_failed'],
    ['unknown field (typo)', { ...ok, ammount: 20 }, 422, 'unknown_field'],
    ['unknown field user_id', { ...ok, user_id: 1 }, 422, 'unknown_field'],
    ['several problems at once', { amount: 'x', ein: 5, extra: 1 }, 422, 'validation_failed'],
    ['unknown EIN', { ...ok, ein: '999999999' }, 404, 'non_profit_not_found'],
    ['ineligible non-profit', { ...ok, ein: '111111111' }, 422, 'non_profit_ineligible'],
  ];
}

function giftCases(): Case[] {
  const ok = { amount: 20, name: 'Charles' };
  return [
    ...TRANSPORT,
    ...amountCases({ name: 'Charles' }, 18),
    ['name missing', { amount: 20 }, 422, 'validation_failed'],
    ['name empty', { ...ok, name: '' }, 422, 'validation_failed'],
    ['name only spaces', { ...ok, name: ' \t ' }, 422, 'validation_failed'],
    ['name too long', { ...ok, name: 'n'.repeat(201) }, 422, 'validation_failed'],
    ['name null', { ...ok, name: null }, 422, 'validation_failed'],
    ['message too long', { ...ok, message: 'm'.repeat(1001) }, 422, 'validation_failed'],
    ['email malformed', { ...ok, email: 'not an email' }, 422, 'validation_failed'],
    ['unknown field', { ...ok, ein: '261544963' }, 422, 'unknown_field'],
    ['more than the balance', { ...ok, amount: 1_000_000 }, 422, 'insufficient_funds'],
  ];
}

function keyCases(): Case[] {
  return [
    ...TRANSPORT.filter(([label]) => !label.includes('NaN')),
    ['name missing', {}, 422, 'validation_failed'],
    ['name empty', { name: '' }, 422, 'validation_failed'],
    ['name too long', { name: 'k'.repeat(201) }, 422, 'validation_failed'],
    ['name a number', { name: 7 }, 422, 'validation_failed'],
    ['name null', { name: null }, 422, 'validation_failed'],
    ['name only spaces', { name: '   ' }, 422, 'validation_failed'],
    ['name an array', { name: ['a'] }, 422, 'validation_failed'],
    ['name an object', { name: { first: 'a' } }, 422, 'validation_failed'],
    ['name a boolean', { name: true }, 422, 'validation_failed'],
    ['name zero', { name: 0 }, 422, 'validation_failed'],
    ['name of 201 multibyte characters', { name: 'é'.repeat(201) }, 422, 'validation_failed'],
    ['unknown field scope', { name: 'x', scope: 'all' }, 422, 'unknown_field'],
    ['mode unknown', { name: 'x', mode: 'staging' }, 422, 'validation_failed'],
    ['unknown field key', { name: 'x', key: 'alm_live_x' }, 422, 'unknown_field'],
    ['unknown field user_id', { name: 'x', user_id: 1 }, 422, 'unknown_field'],
    ['several unknown fields', { name: 'x', a: 1, b: 2 }, 422, 'unknown_field'],
    ['nested junk', { name: { __x: [1, { y: null }] } }, 422, 'validation_failed'],
    ['a deeply nested body', `{"name": ${'['.repeat(500)}${']'.repeat(500)}}`, 400, 'invalid_json'],
  ];
}

for (const { name: engine } of engines()) {
  describe(`bad input on ${engine}`, () => {
    let env: TestEnv;
    let user: TestUser;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      await makeNonProfit(env.deps, { ein: '111111111', name: 'Social Club', eligible: 0 });
      user = await makeUser(env.deps);
      await fund(env.deps, user, 50_000);
    });
    after(async () => env.close());

    const tables: Array<[string, () => string, () => Case[]]> = [
      ['POST /v1/donations', () => '/v1/donations', donationCases],
      ['POST /v1/users/:id/donations', () => `/v1/users/${user.user_id}/donations`, donationCases],
      ['POST /v1/gifts', () => '/v1/gifts', giftCases],
      ['POST /v1/api_keys', () => '/v1/api_keys', keyCases],
    ];
    for (const [label, url, cases] of tables) {
      test(`${label}: ${cases().length} malformed bodies, each a 4xx problem that changes nothing`, async () => {
        assert.ok(cases().length >= 30, 'at least 30 malformed bodies for each POST');
        const before = await fingerprint(env.deps);
        for (const [name, body, status, code, headers] of cases()) {
          const payload = typeof body === 'string' ? body : JSON.stringify(body);
          const res = await call(env.app, 'POST', url(), { key: user.key, body: payload, ...(headers === undefined ? {} : { headers }) });
          assert.equal(res.status, status, `${name}: status ${res.status} ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, code, `${name}: code`);
          assert.equal(res.body.status, status, `${name}: body status`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/, name);
          assert.equal(typeof res.body.request_id, 'string', name);
          if (status === 422 && res.body.errors !== undefined) assert.ok(res.body.errors.length >= 1, name);
        }
        assert.deepEqual(await fingerprint(env.deps), before);
      });
    }

    test('a NUL character in a path or query is refused or finds nothing, never a 500', async () => {
      const before = await fingerprint(env.deps);
      for (const [url, status] of [
        ['/v1/users/a%00b', 400],
        ['/v1/users/%00/donations', 400],
        ['/v1/non_profits?state=V%00', 400],
        ['/v1/non_profits/26154%004963', 400],
        ['/v1/gifts/ab%00cd', 400],
        ['/v1/non_profits?query=a%00b', 200],
      ] as const) {
        const res = await call(env.app, 'GET', url, { key: user.key });
        assert.equal(res.status, status, `${url}: ${JSON.stringify(res.body)}`);
        if (status === 400) assert.equal(res.body.code, 'invalid_parameter', url);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('a number in a path or query is plain decimal text: 0x10, 1e3 or " 7" name nothing', async () => {
      const made = await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { amount: 20, ein: '261544963' } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const id = Number(made.body.id);
      const before = await fingerprint(env.deps);
      for (const [method, url] of [
        ['GET', `/v1/users/${user.user_id}/donations/0x${id.toString(16)}`],
        ['GET', `/v1/users/${user.user_id}/donations/${id}e0`],
        ['GET', `/v1/users/${user.user_id}/donations/%20${id}`],
        ['GET', `/v1/users/${user.user_id}/donations/${id}.0`],
        ['GET', `/v1/donations/0x${id.toString(16)}/proof`],
        ['DELETE', `/v1/donations/0x${id.toString(16)}`],
        ['GET', '/v1/donations?page=1e0'],
        ['GET', '/v1/donations?per_page=0x19'],
      ] as const) {
        const res = await call(env.app, method, url, { key: user.key });
        assert.equal(res.status, 400, `${method} ${url}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'invalid_parameter', url);
        assert.match(res.body.detail, /must be integer/, url);
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      // A user is named by id or slug (text): 0x.. is neither, and names no one.
      assert.equal((await call(env.app, 'GET', `/v1/users/0x${user.user_id.toString(16)}`, { key: user.key })).body.code, 'user_not_found');
      // Plain decimal text still names the donation, a leading zero included.
      assert.equal((await call(env.app, 'GET', `/v1/users/${user.user_id}/donations/0${id}`, { key: user.key })).body.id, id);
      assert.equal((await call(env.app, 'GET', '/v1/donations?page=1&per_page=5', { key: user.key })).status, 200);
    });

    test('every field problem is listed at once', async () => {
      const res = await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { amount: 10.005, ein: 'x', ammount: 3, note: 5 } });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'validation_failed');
      const byField = Object.fromEntries(res.body.errors.map((e: { field: string; code: string }) => [e.field, e.code]));
      assert.deepEqual(byField, { ammount: 'unknown_field', amount: 'amount_invalid', ein: 'validation_failed', note: 'validation_failed' });
    });
  });
}
