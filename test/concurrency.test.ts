// Races for the last dollars, over real HTTP: 200 parallel donations against
// a fund that can afford 50 give exactly 50 scheduled and 150 waiting, and
// 100 parallel gifts against a fund that can afford 10 give exactly 10.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { engines, openEnv, makeUser, fund, makeNonProfit, assertLedgerBalanced, type TestEnv } from './harness.ts';
import { openPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';

for (const { name: engine } of engines()) {
  describe(`concurrency on ${engine}`, () => {
    let env: TestEnv;
    let base: string;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      await env.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    });
    after(async () => env.close());

    const post = (key: string, path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })
        .then(async (res) => ({ status: res.status, body: (await res.json()) as { status?: string; code?: string } }));

    test('200 parallel donations against a fund that can afford 50', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 50 * 1000);
      const results = await Promise.all(Array.from({ length: 200 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' })));
      assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
      const count = (s: string) => results.filter((r) => r.body.status === s).length;
      assert.equal(count('scheduled'), 50);
      assert.equal(count('waiting_for_funds'), 150);
      const accounts = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', user.fund_id).execute();
      const balance = Object.fromEntries(accounts.map((a) => [a.kind, a.balance_cents]));
      assert.equal(balance.available, 0);
      assert.equal(balance.reserved, 50_000);
      await assertLedgerBalanced(env.deps);
    });

    test('100 parallel gifts against a fund that can afford 10', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 10 * 1800);
      const results = await Promise.all(Array.from({ length: 100 }, () => post(user.key, '/v1/gifts', { amount: 18, name: 'Someone' })));
      assert.equal(results.filter((r) => r.status === 201).length, 10);
      assert.equal(results.filter((r) => r.status === 422 && r.body.code === 'insufficient_funds').length, 90);
      await assertLedgerBalanced(env.deps);
    });

    // Many nodes share one PostgreSQL (an SQLite file is served by one process).
    if (engine === 'postgres') test('two nodes on one database: 200 donations spread over both, still exactly 50 scheduled', async () => {
      const second = await openPlatform(env.platform.deps.config, { log: pino({ level: 'silent' }) }); // its own pool, as another node has
      const secondApp = await buildApp(second.deps);
      await secondApp.listen({ host: '127.0.0.1', port: 0 });
      try {
        const bases = [base, `http://127.0.0.1:${(secondApp.server.address() as AddressInfo).port}`];
        const user = await makeUser(env.deps);
        await fund(env.deps, user, 50 * 1000);
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
          fetch(`${bases[i % 2]}/v1/donations`, { method: 'POST', headers: { 'x-api-key': user.key, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 10, ein: '261544963' }) })
            .then(async (res) => ({ status: res.status, body: (await res.json()) as { status?: string } }))));
        assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
        assert.equal(results.filter((r) => r.body.status === 'scheduled').length, 50);
        assert.equal(results.filter((r) => r.body.status === 'waiting_for_funds').length, 150);
        await assertLedgerBalanced(env.deps);
      } finally {
        await secondApp.close();
        await second.close();
      }
    });

    test('parallel cancels and creates on one fund keep the journal balanced and never overdraw', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 20 * 1000);
      const created = await Promise.all(Array.from({ length: 40 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' })));
      const ids = created.map((r) => (r.body as { id?: number }).id);
      const work = [
        ...ids.slice(0, 30).map((id) => fetch(`${base}/v1/donations/${id}`, { method: 'DELETE', headers: { 'x-api-key': user.key } }).then((r) => r.status)),
        ...Array.from({ length: 30 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' }).then((r) => r.status)),
      ];
      const statuses = await Promise.all(work);
      assert.ok(statuses.every((s) => s === 200 || s === 201), statuses.join(','));
      const reserved = await env.deps.db.selectFrom('ledger_accounts').select('balance_cents').where('fund_id', '=', user.fund_id).where('kind', '=', 'reserved').executeTakeFirstOrThrow();
      const scheduled = await env.deps.db.selectFrom('donations').select((eb) => eb.fn.sum<number>('amount_cents').as('s')).where('fund_id', '=', user.fund_id).where('status', '=', 'scheduled').executeTakeFirstOrThrow();
      assert.equal(reserved.balance_cents, Number(scheduled.s ?? 0), 'the hold equals the scheduled donations');
      assert.ok(reserved.balance_cents <= 20_000);
      await assertLedgerBalanced(env.deps);
    });
  });
}
