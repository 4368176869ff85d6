// Retention on both engines: records past their configured age go, money and
// the journal are untouched, and `almoner check` still passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertLedgerBalanced, balancesOf, call, engines, fund, makeNonProfit, makeUser, openEnv, runCli, TestClock } from './harness.ts';
import { runRetention } from '../src/modules/retention/index.ts';
import { runNotify } from '../src/modules/notify/index.ts';

for (const { name: engine } of engines()) {
  test(`retention deletes by age only what serves for a while, never money (${engine})`, async () => {
    const clock = new TestClock('2026-01-01T12:00:00.000Z');
    const retention = { idempotencyHours: 48, expiredSessionDays: 7, signInFailureHours: 24, eventDays: 30 };
    const env = await openEnv(engine, { retention }, { clock });
    try {
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 10_000);
      const made = await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { ein: '261544963', amount: 20 }, headers: { 'idempotency-key': 'retention-1' } });
      assert.equal(made.status, 201);
      const balances = await balancesOf(env.deps, user.fund_id);
      const count = async (table: 'events' | 'idempotency_keys') =>
        Number(
          (
            await env.deps.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const events = await count('events');
      assert.ok(events >= 2);
      await runNotify(env.deps); // relayed (no endpoint, no e-mail address): nothing holds them

      clock.advance(24 * 3_600_000); // a day: nothing is old enough yet
      assert.deepEqual(await runRetention(env.deps), { idempotency_keys: 0, web_sessions: 0, sign_in_failures: 0, events: 0, login_records: 0 });
      clock.advance(2 * 24 * 3_600_000); // three days: the idempotency record goes
      assert.equal((await runRetention(env.deps)).idempotency_keys, 1);
      assert.equal(await count('idempotency_keys'), 0);
      clock.advance(30 * 24 * 3_600_000); // past a month: the events go
      assert.equal((await runRetention(env.deps)).events, events);
      assert.equal(await count('events'), 0);

      assert.equal(await balancesOf(env.deps, user.fund_id), balances, 'money is untouched');
      assert.equal((await call(env.app, 'GET', `/v1/donations/${made.body.id}`, { key: user.key })).status, 200);
      await assertLedgerBalanced(env.deps);
      const cli = await runCli(['retention', 'run'], env.platform.deps.config.databaseUrl);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /^Deleted \d+ idempotency keys, \d+ expired sessions, \d+ failed sign-ins, \d+ events and \d+ expired sign-in records past their age\.$/m);
    } finally {
      await env.close();
    }
  });
}
