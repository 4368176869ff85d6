// Every problem code the source can answer with has a page at /errors/<code> (what it means,
// what to do), the reference and the OpenAPI document name each operation's codes, and the
// event types have their catalogue. The list of codes is read from the source here, not typed
// by hand: each literal code handed to an error, and the catalogue must hold exactly those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { call, describeEachEngine, makeUser } from './harness.ts';
import { PROBLEM_CODES, PROBLEMS } from '../src/shared/problem-codes.ts';
import { WEBHOOK_EVENT_TYPES } from '../src/modules/webhooks/index.ts';

/** The source but the catalogue itself (problem-codes.ts, problem-docs.ts and its parts, problems.*.ts). */
const SOURCES = globSync('src/**/*.ts').filter((f) => !f.endsWith('.test.ts') && !/^src\/shared\/(problem-codes|problem-docs|problems\.[a-z]+)\.ts$/.test(f));

/** The codes the source hands to an error: a helper's first argument, AppError's second, a field error's `code`. */
function codesInSource(): Set<string> {
  const found = new Set<string>();
  const patterns = [
    /\b(?:notFound|conflict|unprocessable|badRequest|fileRefused|refused)\(\s*'([a-z][a-z0-9_]*)'/g,
    /new AppError\(\s*'[a-z_]+',\s*'([a-z][a-z0-9_]*)'/g,
    /\bcode(?:: ProblemCode)?(?:\s*=|:)\s*'([a-z][a-z0-9_]*)'/g,
  ];
  for (const file of SOURCES) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.add(m[1] ?? '');
  }
  return found;
}

test('the catalogue holds every code the source answers with, and no other', () => {
  assert.ok(!SOURCES.some((f) => f.includes('problems.')), 'the catalogue is not read as source');
  const inSource = codesInSource();
  assert.ok(inSource.size > 80, `read ${inSource.size} codes from the source`);
  const missing = [...inSource].filter((c) => !(c in PROBLEMS));
  assert.deepEqual(missing, [], 'every code in the source has an entry');
  const everything = SOURCES.map((f) => readFileSync(f, 'utf8')).join('\n');
  const stale = PROBLEM_CODES.filter((c) => !everything.includes(`'${c}'`));
  assert.deepEqual(stale, [], 'every entry is a code the source uses');
  for (const code of PROBLEM_CODES) {
    const entry = PROBLEMS[code];
    assert.ok(entry.title.length > 0 && entry.means.length > 10 && entry.todo.length > 5, code);
  }
});

test('the titles a problem carried before the catalogue stay as they were (clients may show or match them)', () => {
  const before: Record<string, string> = {
    invalid_json: 'Invalid JSON',
    invalid_parameter: 'Invalid parameter',
    unauthenticated: 'Authentication required',
    invalid_api_key: 'Invalid API key',
    forbidden: 'Forbidden',
    not_found: 'Not found',
    non_profit_not_found: 'Non-profit not found',
    gift_not_found: 'Gift not found',
    donation_not_found: 'Donation not found',
    user_not_found: 'User not found',
    api_key_not_found: 'API key not found',
    contribution_not_found: 'Contribution not found',
    scheduled_donation_not_found: 'Scheduled donation not found',
    method_not_allowed: 'Method not allowed',
    donation_not_cancellable: 'Donation not cancellable',
    idempotency_key_in_use: 'Idempotency key in use',
    invalid_transition: 'Invalid transition',
    payload_too_large: 'Payload too large',
    unsupported_media_type: 'Unsupported media type',
    validation_failed: 'Validation failed',
    amount_below_minimum: 'Amount below minimum',
    amount_invalid: 'Amount invalid',
    unknown_field: 'Unknown field',
    non_profit_ineligible: 'Non-profit ineligible',
    insufficient_funds: 'Insufficient funds',
    idempotency_key_reused: 'Idempotency key reused',
    rate_limited: 'Too many requests',
    uri_too_long: 'URI too long',
    headers_too_large: 'Request headers too large',
    request_timeout: 'Request timeout',
    bad_request: 'Bad request',
    internal_error: 'Internal error',
    unavailable: 'Service unavailable',
  };
  for (const [code, title] of Object.entries(before)) assert.equal((PROBLEMS as Record<string, { title: string }>)[code]?.title, title, code);
});

describeEachEngine('problem code pages and the event catalogue', (env) => {
  test('/errors/<code> answers for every code with what it means and what to do; /errors lists them', async () => {
    const { app } = env();
    const index = await app.inject({ method: 'GET', url: '/errors' });
    assert.equal(index.statusCode, 200);
    for (const code of PROBLEM_CODES) {
      assert.ok(index.body.includes(`href="/errors/${code}"`), `/errors links ${code}`);
      const page = await app.inject({ method: 'GET', url: `/errors/${code}` });
      assert.equal(page.statusCode, 200, code);
      assert.match(page.body, new RegExp(`<h1><code>${code}</code>: `), code);
      assert.match(page.body, /<p id="means">[^<]{3,}/, code);
      assert.match(page.body, /<p id="todo">[^<]{3,}/, code);
    }
    const unknown = await app.inject({ method: 'GET', url: '/errors/no_such_code' });
    assert.equal(unknown.statusCode, 404);
  });

  test("a problem's type is its code's page, and it names where the code comes from", async () => {
    const { app, deps } = env();
    const user = await makeUser(deps);
    const missing = await call(app, 'GET', '/v1/donations/999999', { key: user.key });
    assert.equal(missing.status, 404);
    const problem = missing.body as { type: string; code: string; title: string };
    assert.deepEqual([problem.type, problem.title], ['/errors/donation_not_found', 'Donation not found']);
    const page = await app.inject({ method: 'GET', url: problem.type });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<li><code>GET \/v1\/donations\/\{donation_id\}<\/code><\/li>/);
    assert.match((await app.inject({ method: 'GET', url: '/errors/rate_limited' })).body, /<p id="where">Any operation\.<\/p>/);
  });

  test("the OpenAPI document and the reference name each operation's codes; each entry reaches an operation", async () => {
    const { app } = env();
    const doc = JSON.parse((await app.inject({ method: 'GET', url: '/openapi.json' })).body) as {
      paths: Record<string, Record<string, { 'x-problem-codes'?: string[]; description?: string }>>;
    };
    const named = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const codes = op['x-problem-codes'] ?? [];
        assert.ok(codes.includes('rate_limited') && codes.includes('internal_error'), `${method} ${path}`);
        assert.ok(op.description?.includes('Problem codes: [rate_limited](/errors/rate_limited)') ?? false, `${method} ${path}`);
        if (path.startsWith('/v1/'))
          assert.ok(codes.includes('unauthenticated') || path.startsWith('/v1/non_profits') || path.startsWith('/v1/users/{user_id}'), `${method} ${path}`);
        for (const c of codes) named.add(c);
      }
    }
    const donate = doc.paths['/v1/donations']?.post?.['x-problem-codes'] ?? [];
    for (const c of [
      'insufficient_funds',
      'non_profit_not_found',
      'non_profit_ineligible',
      'amount_below_minimum',
      'idempotency_key_reused',
      'app_limit_exceeded',
      'role_forbidden',
      'invalid_json',
    ]) {
      assert.ok(donate.includes(c), `POST /v1/donations names ${c}`);
    }
    assert.ok(!(doc.paths['/v1/donations']?.get?.['x-problem-codes'] ?? []).includes('insufficient_funds'), 'a list names no code of giving');
    // Each code listed for operations reaches at least one (no pattern naming nothing).
    const unreached = PROBLEM_CODES.filter((c) => {
      const entry: { on?: readonly string[]; every?: string } = PROBLEMS[c];
      return (entry.every !== undefined || (entry.on?.length ?? 0) > 0) && !named.has(c);
    });
    assert.deepEqual(unreached, []);
    const reference = await app.inject({ method: 'GET', url: '/docs' });
    assert.match(reference.body, /<strong>Problem codes:<\/strong> .*<a href="\/errors\/insufficient_funds"><code>insufficient_funds<\/code><\/a>/);
    assert.ok(!reference.body.includes('Problem codes: ['), 'no markdown leaks into the page');
  });

  test('the event catalogue lists every event type', async () => {
    const { app } = env();
    const page = await app.inject({ method: 'GET', url: '/docs/events' });
    assert.equal(page.statusCode, 200);
    for (const type of WEBHOOK_EVENT_TYPES)
      assert.match(page.body, new RegExp(`<tr id="${type.replace('.', '\\.')}"><td><code>${type.replace('.', '\\.')}</code></td><td>[^<]{5,}`), type);
    assert.match((await app.inject({ method: 'GET', url: '/docs' })).body, /href="\/docs\/events"/);
  });
});
