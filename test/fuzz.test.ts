// A sweep of generated hostile requests (fast-check): every POST of the API,
// the operator API and the web forms, and every query parameter and path
// parameter, with deep nesting, huge and odd numbers written as raw JSON
// text, and control and invisible characters in every string field, header
// and path. None may answer 5xx; every API error is problem+json with its
// request id; a refused request leaves the database exactly as it was.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, assertLedgerBalanced, type TestEnv, type TestUser } from './harness.ts';
import { WebClient } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/admin.service.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const EIN = '261544963';

/** Characters that have broken parsers, headers, logs and databases. */
const NASTY = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u200b',
  '\u200e',
  '\u202e',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\ud800',
  '\udfff',
  '😀',
  'é',
  '%',
  '%00',
  '\\',
  '"',
  "'",
  '<',
  '>',
  '&',
  '/',
  '..',
  '{',
  '[',
  ' ',
];

const nastyString = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 4 })), { maxLength: 12 }).map((parts) => parts.join('')),
  fc.constantFrom('', ' ', '261544963', '26-1544963', 'Monthly', 'live', 'test', 'public', 'pending', 'approve', 'a'.repeat(1001), 'x'.repeat(5000)),
);

/** A JSON value as raw text, so numbers can be written as no serializer would. */
type Raw = { raw: string };
const rawNumber: fc.Arbitrary<Raw> = fc
  .oneof(
    fc.constantFrom(
      '1e309',
      '-1e309',
      '1e-400',
      '-0',
      '0.0',
      '9007199254740993',
      '99999999999999999999999',
      '10.009999999999999999',
      '17.999999999999999999',
      '10.0000000000000001',
      '1E2',
      '1e+2',
      '0.1e1',
      '10.005',
      '-10',
      '18',
      '10',
      '25.5',
      '100000000000000000000000000000000000000',
    ),
    fc.double({ noNaN: true }).map((d) => String(d)),
    fc.integer().map(String),
    fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.stringMatching(/^[0-9]{1,25}$/)).map(([i, f]) => `${i}.${f}`),
  )
  .map((raw) => ({ raw }));

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: rawNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, leaf, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 60 }).map((depth) => ({ raw: `${'['.repeat(depth)}1${']'.repeat(depth)}` })) },
);

function toJson(v: unknown): string {
  if (v !== null && typeof v === 'object' && 'raw' in (v as object)) return (v as Raw).raw;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Header values HTTP can carry (visible ASCII, spaces, obs-text), hostile in content. */
const headerValue = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'application/json',
    'text/plain',
    '*/*',
    'application/pdf',
    'x'.repeat(300),
    '../../etc/passwd',
    '%00',
    '\t',
    'null',
    '1e309',
    "'; drop table users; --",
  ),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
);

const pathSegment = fc.oneof(
  nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))),
  fc.constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', '9007199254740993', 'me', '%2e%2e', '%2F', '%00', 'a'.repeat(200), '00000000-0000-0000-0000-000000000000', EIN),
);

interface Target {
  method: 'GET' | 'POST' | 'DELETE';
  path: (segment: string) => string;
  fields: string[];
  who: 'user' | 'sandbox' | 'operator' | 'web' | 'anonymous';
}

const T = (method: Target['method'], path: string | ((s: string) => string), fields: string[], who: Target['who'] = 'user'): Target => ({
  method,
  path: typeof path === 'string' ? () => path : path,
  fields,
  who,
});

const TARGETS: Target[] = [
  T('POST', '/v1/donations', ['amount', 'ein', 'note', 'private_memo', 'visibility']),
  T('POST', (s) => `/v1/users/${s}/donations`, ['amount', 'ein', 'note', 'visibility']),
  T('POST', '/v1/gifts', ['name', 'amount', 'message', 'email']),
  T('POST', (s) => `/v1/gifts/${s}/accept`, []),
  T('POST', (s) => `/v1/gifts/${s}/claim`, ['ein']),
  T('POST', (s) => `/v1/gifts/${s}/deny`, []),
  T('POST', '/v1/api_keys', ['name', 'mode']),
  T('DELETE', (s) => `/v1/api_keys/${s}`, []),
  T('DELETE', (s) => `/v1/donations/${s}`, []),
  T('POST', '/v1/scheduled_donations', ['ein', 'amount', 'frequency', 'next_date', 'note', 'visibility']),
  T('POST', '/v1/sandbox/deposits', ['amount'], 'sandbox'),
  T('POST', '/v1/sandbox/advance', ['object', 'id', 'event', 'to', 'code', 'action', 'ein'], 'sandbox'),
  T('GET', '/v1/non_profits', ['query', 'cause_id', 'state', 'page', 'per_page']),
  T('GET', (s) => `/v1/non_profits/${s}`, []),
  T('GET', '/v1/donations', ['page', 'per_page']),
  T('GET', (s) => `/v1/donations/${s}`, []),
  T('GET', '/v1/gifts', ['page', 'per_page']),
  T('GET', (s) => `/v1/gifts/${s}`, []),
  T('GET', '/v1/contributions', ['page', 'per_page']),
  T('GET', '/v1/events', ['page', 'per_page']),
  T('GET', '/v1/scheduled_donations', ['page', 'per_page']),
  T('GET', (s) => `/v1/users/${s}`, []),
  T('GET', (s) => `/v1/users/${s}/donations`, ['page', 'per_page']),
  T('GET', (s) => `/v1/users/${s}/causes`, []),
  T('POST', '/admin/v1/contributions', ['user_id', 'type', 'units', 'valuation', 'currency', 'frequency', 'status'], 'operator'),
  T('POST', (s) => `/admin/v1/contributions/${s}/advance`, ['status'], 'operator'),
  T('POST', '/admin/v1/donations/batch', ['event', 'ids', 'status', 'reason'], 'operator'),
  T('POST', (s) => `/admin/v1/donations/${s}/reject`, ['reason'], 'operator'),
  T('POST', '/admin/v1/users', ['name', 'slug', 'city', 'visible'], 'operator'),
  T('POST', (s) => `/admin/v1/users/${s}/portfolio`, ['move', 'amount'], 'operator'),
  T('GET', '/admin/v1/users', ['page', 'per_page', 'book'], 'operator'),
  T('GET', '/admin/v1/audit', ['page', 'object_type', 'object_id'], 'operator'),
  T('POST', '/signin', ['email', 'password', 'next'], 'web'),
  T('POST', '/signup', ['name', 'email', 'password'], 'anonymous'),
  T('POST', '/dashboard/donations', ['ein', 'amount', 'note', 'visibility'], 'web'),
  T('POST', '/dashboard/gifts', ['name', 'amount', 'message', 'email'], 'web'),
  T('POST', '/dashboard/scheduled', ['ein', 'amount', 'frequency', 'next_date'], 'web'),
  T('POST', '/settings/keys', ['name', 'mode'], 'web'),
  T('POST', '/settings/profile', ['name', 'slug', 'fund_name', 'avatar_url', 'cause_ids'], 'web'),
  T('POST', (s) => `/gifts/${s}/claim`, ['ein'], 'web'),
  T('GET', '/charities', ['query', 'cause', 'state', 'page'], 'anonymous'),
  T('GET', (s) => `/charities/${s}`, [], 'anonymous'),
  T('GET', (s) => `/gifts/${s}`, [], 'anonymous'),
  T('GET', (s) => `/${s}`, [], 'anonymous'),
  T('GET', '/signin', ['next', 'done'], 'anonymous'),
];

interface Generated {
  target: number;
  segment: string;
  fields: Array<[string, unknown]>;
  extra: Array<[string, unknown]>;
  headers: Array<[string, string]>;
  asRawText: boolean;
}

const requestArb: fc.Arbitrary<Generated> = fc.record({
  target: fc.nat(TARGETS.length - 1),
  segment: pathSegment,
  fields: fc.array(
    fc.tuple(
      fc.constantFrom(
        'amount',
        'ein',
        'name',
        'note',
        'page',
        'per_page',
        'query',
        'id',
        'user_id',
        'units',
        'valuation',
        'next',
        'email',
        'mode',
        'visibility',
        'frequency',
        'event',
        'status',
      ),
      value,
    ),
    { maxLength: 6 },
  ),
  extra: fc.array(fc.tuple(nastyString, value), { maxLength: 2 }),
  headers: fc.array(
    fc.tuple(fc.constantFrom('x-request-id', 'idempotency-key', 'accept', 'content-type', 'x-forwarded-for', 'origin', 'accept-language', 'if-none-match'), headerValue),
    { maxLength: 3 },
  ),
  asRawText: fc.boolean(),
});

function queryOf(pairs: Array<[string, unknown]>): string {
  const text = (v: unknown) => (typeof v === 'string' ? v : toJson(v)).replace(/[\ud800-\udfff]/g, '?');
  const q = pairs.map(([k, v]) => `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, '?'))}=${encodeURIComponent(text(v))}`).join('&');
  return q === '' ? '' : `?${q}`;
}

for (const { name: engine } of engines()) {
  describe(`hostile requests on ${engine}`, () => {
    let env: TestEnv;
    let user: TestUser;
    let sandboxKey: string;
    let operator: string;
    let browser: WebClient;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      user = await makeUser(env.deps);
      await fund(env.deps, user, 100_000);
      sandboxKey = (await call(env.app, 'POST', '/v1/api_keys', { key: user.key, body: { name: 'sandbox', mode: 'test' } })).body.key;
      operator = (await createAdminToken(env.deps, 'fuzz', 'test')).token;
      browser = new WebClient(env.app);
      await browser.signUp('Web Fuzz', `fuzz-${engine}@example.org`);
      await browser.get('/dashboard');
    });
    after(async () => env.close());

    test(`${RUNS} generated hostile requests: no 5xx, problems for every API error, nothing changed by a refusal`, { timeout: 600_000 }, async () => {
      const tally = { refused: 0, accepted: 0 };
      await fc.assert(
        fc.asyncProperty(requestArb, async (g) => {
          const target = TARGETS[g.target] as Target;
          const pairs = [...g.fields, ...g.extra];
          const path = target.path(g.segment);
          const headers: Record<string, string> = Object.fromEntries(g.headers.filter(([k]) => k !== 'content-type' || target.method === 'POST'));
          const isWeb = target.who === 'web' || target.who === 'anonymous';
          let url = path;
          let payload: string | undefined;
          if (target.method === 'GET' || target.method === 'DELETE') url = `${path}${queryOf(pairs)}`;
          else if (isWeb) {
            const form = new URLSearchParams();
            if (browser.csrf !== undefined) form.append('_csrf', browser.csrf);
            for (const [k, v] of pairs) form.append(k.replace(/[\ud800-\udfff]/g, '?'), (typeof v === 'string' ? v : toJson(v)).replace(/[\ud800-\udfff]/g, '?'));
            payload = form.toString();
            headers['content-type'] ??= 'application/x-www-form-urlencoded';
            headers.origin = 'https://almoner.test';
          } else {
            payload = g.asRawText ? toJson(Object.fromEntries(pairs)) : `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
            headers['content-type'] ??= 'application/json';
          }
          if (target.who === 'user') headers['x-api-key'] = user.key;
          if (target.who === 'sandbox') headers['x-api-key'] = sandboxKey;
          if (target.who === 'operator') headers.authorization = `Bearer ${operator}`;
          if (target.who === 'web') headers.cookie = browser.cookieHeader();
          const before = await fingerprint(env.deps);
          const res = await env.app.inject({ method: target.method, url, headers, ...(payload === undefined ? {} : { payload }) });
          const label = `${target.method} ${url.slice(0, 200)} ${JSON.stringify(headers).slice(0, 200)} ${String(payload).slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          assert.ok(res.statusCode < 500, label);
          if (res.statusCode >= 400) {
            tally.refused += 1;
            const type = String(res.headers['content-type'] ?? '');
            if (!isWeb) {
              assert.match(type, /^application\/problem\+json/, label);
              const problem = JSON.parse(res.body) as { status: number; code: string; request_id: string };
              assert.equal(problem.status, res.statusCode, label);
              assert.match(problem.code, /^[a-z_]+$/, label);
              assert.equal(problem.request_id, res.headers['x-request-id'], label);
            } else {
              assert.match(type, /^(text\/html|application\/problem\+json)/, label);
            }
            // An Idempotency-Key keeps the refusal itself, to answer a retry the same way (rules §11); nothing else may change.
            const after = await fingerprint(env.deps);
            if ('idempotency-key' in headers) after.idempotency_keys = before.idempotency_keys;
            assert.deepEqual(after, before, `a refused request changed the database: ${label}`);
          } else {
            tally.accepted += 1;
          }
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
      );
      assert.ok(tally.refused + tally.accepted >= RUNS);
      assert.ok(tally.refused > RUNS / 2, `most generated requests are refused (${tally.refused} of ${RUNS})`);
      await assertLedgerBalanced(env.deps);
    });
  });
}
