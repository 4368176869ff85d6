// Deliveries under faults, with real processes (`almoner webhooks deliver`):
// killed with SIGKILL in the middle of a backlog ten times, every event still
// reaches the receiver at least once (duplicates share a webhook-id, and are
// counted and reported); and two workers on one PostgreSQL database deliver
// one backlog without ever sending one attempt twice at once.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { call, BIN, engines, fund, makeNonProfit, makeUser, openEnv, type TestEnv } from './harness.ts';
import { Receiver } from './webhook-receiver.ts';

const EIN = '261544963';

function deliverer(databaseUrl: string, once = false): ChildProcess {
  return spawn(process.execPath, [BIN, 'webhooks', 'deliver', ...(once ? ['--once'] : [])], {
    env: { ...process.env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000', NOTIFY_INTERVAL_MS: '50', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A backlog: `n` donations by one donor whose endpoint points at `url`; returns their event ids. */
async function backlog(env: TestEnv, url: string, n: number): Promise<Set<string>> {
  await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
  const donor = await makeUser(env.deps);
  await fund(env.deps, donor, n * 1_000);
  assert.equal((await call(env.app, 'POST', '/v1/webhook_endpoints', { key: donor.key, body: { url, event_types: ['donation.created'] } })).status, 201);
  for (let i = 0; i < n; i++) assert.equal((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: EIN, amount: 10 } })).status, 201);
  const events = await env.deps.db.selectFrom('events').select('id').where('user_id', '=', donor.user_id).where('type', '=', 'donation.created').execute();
  return new Set(events.map((e) => `evt_${e.id}`));
}

for (const { name: engine } of engines()) {
  describe(`webhook deliveries under SIGKILL (${engine})`, () => {
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

    test('killed 10 times mid-backlog: every event delivered at least once; duplicates counted', async (t) => {
      const expected = await backlog(env, receiver.url('/slow?crash'), 400);
      const url = env.deps.config.databaseUrl;
      for (let kill = 0; kill < 10; kill++) {
        const child = deliverer(url);
        const seen = receiver.on('/slow?crash').length;
        // Kill it once it is delivering (a few more arrived), wherever it is.
        for (let i = 0; i < 200 && receiver.on('/slow?crash').length < seen + 15; i++) await sleep(10);
        child.kill('SIGKILL');
        await exited(child);
      }
      // What the dead held comes back when its lease ends (timeout x 2 + 5 s); a last worker finishes.
      await sleep(7_500);
      const last = deliverer(url, true);
      assert.equal(await exited(last), 0);
      const got = receiver.on('/slow?crash').map((r) => String(r.headers['webhook-id']));
      const missing = [...expected].filter((id) => !got.includes(id));
      assert.deepEqual(missing, [], 'none lost');
      const duplicates = got.length - new Set(got).size;
      t.diagnostic(`${expected.size} events, ${got.length} deliveries received, ${duplicates} duplicates (same webhook-id) after 10 SIGKILLs`);
      const pending = await env.deps.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
      assert.equal(pending.length, 0, 'every delivery settled');
    });

    // On PostgreSQL the claim skips rows another worker has locked; on SQLite the file's single writer serialises it.
    test('two workers on one database deliver one backlog: no attempt in flight twice at once, each delivered once', async () => {
      const expected = await backlog(env, receiver.url('/slow?pair'), 300);
      receiver.mostAtOnce = 0;
      const url = env.deps.config.databaseUrl;
      const [a, b] = [deliverer(url), deliverer(url)];
      for (let i = 0; i < 600 && new Set(receiver.on('/slow?pair').map((r) => r.headers['webhook-id'])).size < expected.size; i++) await sleep(50);
      a.kill('SIGTERM');
      b.kill('SIGTERM');
      await Promise.all([exited(a), exited(b)]);
      const got = receiver.on('/slow?pair').map((r) => String(r.headers['webhook-id']));
      assert.equal(receiver.mostAtOnce, 1, 'never one webhook-id twice at once');
      assert.equal(got.length, expected.size, 'each once: no crash, no duplicate');
      assert.deepEqual(new Set(got), expected);
    });
  });
}
