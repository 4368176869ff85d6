// GET /metrics on both engines: request durations by route pattern and
// status, the process and event loop, the pool, and the money counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, openEnv, scrapeMetrics } from './harness.ts';
import { notifyStatus, runNotify } from '../src/modules/notify/index.ts';
import { runAndRecordCheck } from '../src/modules/check/index.ts';
import { startJobs } from '../src/jobs.ts';
import { VERSION } from '../src/version.ts';
import { readFileSync } from 'node:fs';

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0] ?? '';
    if (wanted.every((w) => labelText.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describeEachEngine('metrics', (env) => {
  test('beside the public API, /metrics needs an operator token: its timings are not for anyone', async () => {
    const { app, deps } = env();
    const user = await makeUser(deps);
    const anonymous = await call(app, 'GET', '/metrics');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, 'unauthenticated');
    assert.doesNotMatch(JSON.stringify(anonymous.body), /almoner_http/);
    assert.equal((await call(app, 'GET', '/metrics', { key: user.key })).status, 401, "a donor's key is not an operator's");
    assert.equal((await call(app, 'GET', '/metrics', { headers: { authorization: `Bearer alm_admin_${'A'.repeat(40)}` } })).status, 401);
    assert.equal((await scrapeMetrics(app, deps)).statusCode, 200);
  });

  test('requests by route pattern and status, money counts, process and pool', async () => {
    const { app, deps, engine } = env();
    await makeNonProfit(deps, { ein: '530196605', name: 'Metrics Charity' });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '530196605', amount: 12.5 } });
    assert.equal(made.status, 201);
    assert.equal((await call(app, 'GET', `/v1/donations/${made.body.id}`, { key: user.key })).status, 200);
    assert.equal((await call(app, 'GET', '/v1/donations/999999', { key: user.key })).status, 404);

    const scraped = await scrapeMetrics(app, deps);
    assert.equal(scraped.statusCode, 200);
    assert.match(String(scraped.headers['content-type']), /^text\/plain/);
    const text = scraped.body;
    // By the route's pattern, never the raw URL (one series per id would grow without end).
    assert.equal(sample(text, 'almoner_http_request_duration_seconds_count', { method: 'POST', route: '/v1/donations', status_code: '201' }), 1);
    assert.equal(sample(text, 'almoner_http_request_duration_seconds_count', { method: 'GET', route: '/v1/donations/:donation_id', status_code: '200' }), 1);
    assert.equal(sample(text, 'almoner_http_request_duration_seconds_count', { method: 'GET', route: '/v1/donations/:donation_id', status_code: '404' }), 1);
    assert.ok(!text.includes('/v1/donations/999999'));
    assert.equal(sample(text, 'almoner_donations_created_total', { book: 'live' }), 1);
    assert.equal(sample(text, 'almoner_donations_created_cents_total', { book: 'live' }), 1_250);
    assert.equal(sample(text, 'almoner_contributions_total', { book: 'live', status: 'success' }), 1);
    assert.equal(sample(text, 'almoner_contributions_cents_total', { book: 'live', status: 'success' }), 10_000);
    assert.ok((sample(text, 'almoner_process_resident_memory_bytes') ?? 0) > 0);
    assert.notEqual(sample(text, 'almoner_nodejs_eventloop_lag_seconds'), undefined);
    if (engine === 'postgres') assert.ok((sample(text, 'almoner_db_pool_connections', { state: 'total' }) ?? 0) >= 1);
    else assert.equal(sample(text, 'almoner_db_pool_connections', { state: 'total' }), undefined);
  });

  test("the donation writer's rounds, and SQLite's commits and syncs", async () => {
    const { app, deps, engine } = env();
    await makeNonProfit(deps, { ein: '530196605', name: 'Metrics Charity' });
    const user = await makeUser(deps);
    await fund(deps, user, 10_000);
    // The node's totals so far (the tests before made donations on it too).
    const before = (await scrapeMetrics(app, deps)).body;
    const since = (text: string, name: string) => (sample(text, name) ?? 0) - (sample(before, name) ?? 0);
    assert.equal(sample(before, 'almoner_donation_round_requests_total'), deps.runtime.donations.stats.requests);
    // Three at once: the batched writer may carry them in fewer rounds than requests.
    const made = await Promise.all([10, 11, 12].map((amount) => call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: '530196605', amount } })));
    assert.deepEqual(
      made.map((m) => m.status),
      [201, 201, 201],
    );
    const text = (await scrapeMetrics(app, deps)).body;
    const rounds = since(text, 'almoner_donation_rounds_total');
    assert.ok(rounds >= 1 && rounds <= 3, `rounds ${rounds}`);
    assert.equal(since(text, 'almoner_donation_round_requests_total'), 3);
    assert.equal(sample(text, 'almoner_donation_rounds_locked_total'), deps.runtime.donations.stats.locked);
    assert.ok(since(text, 'almoner_donation_round_seconds_total') > 0);
    assert.equal(sample(text, 'almoner_donation_requests_waiting'), 0);
    if (engine === 'sqlite') {
      const commits = since(text, 'almoner_sqlite_commits_total');
      assert.ok(commits >= 1);
      assert.ok(since(text, 'almoner_sqlite_committed_transactions_total') >= commits, 'a commit carries one transaction or more');
      assert.ok(since(text, 'almoner_sqlite_wal_syncs_total') >= 1, 'the rounds were made durable');
    } else {
      assert.equal(sample(text, 'almoner_sqlite_commits_total'), undefined, 'PostgreSQL has no group commit of ours');
    }
  });

  test('webhook attempts by outcome and the backlog of deliveries and mail', async () => {
    const { app, deps } = env();
    const user = await makeUser(deps);
    // An endpoint nobody listens on: its attempt fails, and the delivery waits for its retry.
    assert.equal((await call(app, 'POST', '/v1/webhook_endpoints', { key: user.key, body: { url: 'https://hooks.example.invalid/almoner' } })).status, 201);
    await fund(deps, user, 5_000);
    await runNotify(deps);
    await notifyStatus(deps);
    const text = (await scrapeMetrics(app, deps)).body;
    assert.equal(sample(text, 'almoner_webhook_attempt_duration_seconds_count', { outcome: 'failed' }), 1);
    assert.equal(sample(text, 'almoner_notify_backlog', { kind: 'webhooks', state: 'pending' }), 1);
    assert.equal(sample(text, 'almoner_notify_backlog', { kind: 'webhooks', state: 'due' }), 0, 'its retry is not due yet');
    assert.equal(sample(text, 'almoner_notify_backlog', { kind: 'mail', state: 'failed' }), 0);
  });

  test('the release, requests in flight, problems by code, statement times, and the last check', async () => {
    const { app, deps, engine } = env();
    const user = await makeUser(deps);
    const problems = (body: string, code: string, status: string) => sample(body, 'almoner_http_problems_total', { code, status_code: status }) ?? 0;
    const before = (await scrapeMetrics(app, deps)).body;
    assert.equal((await call(app, 'GET', '/v1/donations/999999', { key: user.key })).status, 404);
    assert.equal((await call(app, 'POST', '/v1/donations', { key: user.key, body: { ein: 'nope', amount: 1 } })).status, 422);
    let text = (await scrapeMetrics(app, deps)).body;
    assert.equal(sample(text, 'almoner_build_info', { version: VERSION, node: process.versions.node, engine }), 1);
    assert.equal(sample(text, 'almoner_http_requests_in_flight'), 1, 'the scrape itself, and nothing left over');
    assert.equal(problems(text, 'donation_not_found', '404') - problems(before, 'donation_not_found', '404'), 1);
    assert.equal(problems(text, 'validation_failed', '422') - problems(before, 'validation_failed', '422'), 1);
    assert.ok((sample(text, 'almoner_db_statement_duration_seconds_count', { connections: 'pool', outcome: 'ok' }) ?? 0) > 0);
    assert.equal(sample(text, 'almoner_check_last_run_timestamp_seconds'), 0, 'no check ran yet: the epoch, as old as can be');

    const results = await runAndRecordCheck(deps);
    assert.ok(results.every((r) => r.failures.length === 0));
    text = (await scrapeMetrics(app, deps)).body;
    const at = sample(text, 'almoner_check_last_run_timestamp_seconds') ?? 0;
    assert.ok(Math.abs(at - Date.now() / 1000) < 60, `the check's time, ${at}`);
    assert.equal(sample(text, 'almoner_check_failed_invariants'), 0);
    // Money out as the database holds it: nothing open, overdue, unresolved or returned on a new platform.
    assert.deepEqual(
      [
        sample(text, 'almoner_payment_runs', { state: 'open' }),
        sample(text, 'almoner_payment_runs', { state: 'overdue' }),
        sample(text, 'almoner_payment_exceptions_open'),
        sample(text, 'almoner_payments_returned_week'),
      ],
      [0, 0, 0, 0],
    );
  });
});

test('every metric the example alert rules name is one a node serves', async () => {
  const rules = readFileSync(new URL('../deploy/alerts.yml', import.meta.url), 'utf8');
  const named = new Set([...rules.matchAll(/\b(almoner_[a-z_]+)/g)].map((m) => (m[1] as string).replace(/_(bucket|count|sum)$/, '')));
  assert.ok(named.size >= 10, [...named].join(' '));
  const env = await openEnv('sqlite');
  try {
    const served = (await scrapeMetrics(env.app, env.deps)).body;
    for (const name of named) assert.match(served, new RegExp(`^# HELP ${name} `, 'm'), `${name} is served`);
  } finally {
    await env.close();
  }
});

test('a background job reports its last run and its outcome', async () => {
  const env = await openEnv('sqlite', { retentionIntervalMs: 20, schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0 });
  const stop = startJobs(env.platform);
  try {
    let at: number | undefined;
    for (let i = 0; i < 200 && at === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      at = sample((await scrapeMetrics(env.app, env.deps)).body, 'almoner_job_last_run_timestamp_seconds', { job: 'retention', outcome: 'ok' });
    }
    assert.ok(at !== undefined && Math.abs(at - Date.now() / 1000) < 60, `retention ran: ${at}`);
    const text = (await scrapeMetrics(env.app, env.deps)).body;
    assert.notEqual(sample(text, 'almoner_job_last_run_duration_seconds', { job: 'retention' }), undefined);
    assert.equal(sample(text, 'almoner_job_last_run_timestamp_seconds', { job: 'scheduler' }), undefined, 'a job that is off never ran');
  } finally {
    stop();
    await env.close();
  }
});
