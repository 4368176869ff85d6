// GET /metrics on both engines: request durations by route pattern and
// status, the process and event loop, the pool, and the money counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser, scrapeMetrics } from './harness.ts';
import { notifyStatus, runNotify } from '../src/modules/notify/index.ts';

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
});
