// The database goes away under load and comes back (PostgreSQL). The app
// reaches PostgreSQL through a TCP proxy that this test cuts: every open
// connection is reset and new ones are refused, as when the database server
// restarts. Requests during the cut get 503 `unavailable`, the service
// recovers by itself once the database is back, and every write that was
// acknowledged is in the database afterwards.
// With OUTAGE_RESTART_COMMAND set (e.g. `pg_ctlcluster --skip-systemctl-redirect 15 main restart`)
// the cut is a real restart of the PostgreSQL server instead: run it by hand, never in CI, where
// other work shares that server.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { CuttableProxy, openEnv, makeUser, fund, makeNonProfit, assertLedgerBalanced, slowConnectsRetried, type TestEnv, type TestUser } from './harness.ts';
import { loadConfig } from '../src/config.ts';
import { openPlatform, type Platform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { sql } from 'kysely';
import { createDonation } from '../src/modules/donations/index.ts';
import { lockFundAccounts } from '../src/modules/ledger/index.ts';

const EIN = '261544963';

describe('the database restarts under load (postgres)', { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set' }, () => {
  let env: TestEnv;
  let user: TestUser;
  let proxy: CuttableProxy;
  let platform: Platform;
  let app: FastifyInstance;
  let base: string;

  before(async () => {
    env = await openEnv('postgres');
    user = await makeUser(env.deps);
    await makeNonProfit(env.deps, { ein: EIN, name: 'Khan Academy' });
    await fund(env.deps, user, 1_000_000_00);
    const direct = new URL(env.deps.config.databaseUrl);
    proxy = new CuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.up();
    const viaProxy = new URL(direct);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const config = loadConfig(
      {},
      {
        databaseUrl: viaProxy.toString(),
        publicUrl: 'https://almoner.test',
        rateLimitPerMinute: 1_000_000,
        dbConnectTimeoutMs: 500,
        dbPoolMax: 8,
        schedulerIntervalMs: 0,
        sandboxTickMs: 0,
      },
    );
    platform = await slowConnectsRetried(() => openPlatform(config, { log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) }));
    app = await buildApp(platform.deps);
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await app?.close();
    await platform?.close();
    await proxy?.cut();
    await env?.close();
  });

  test('requests during the cut get 503, service resumes within seconds, nothing acknowledged is lost', async () => {
    const phase = { name: 'before' as 'before' | 'cut' | 'after' };
    const outcomes: Record<string, Map<string, number>> = { before: new Map(), cut: new Map(), after: new Map() };
    const acknowledged: number[] = [];
    let restoredAt = 0;
    let firstSuccessAfterRestore = 0;
    let stop = false;
    const count = (status: string) => {
      const m = outcomes[phase.name]!;
      m.set(status, (m.get(status) ?? 0) + 1);
    };
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const write = (i + n) % 2 === 0;
        const started = Date.now();
        try {
          const response = write
            ? await fetch(`${base}/v1/donations`, {
                method: 'POST',
                headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
                body: JSON.stringify({ ein: EIN, amount: 10 }),
              })
            : await fetch(`${base}/v1/donations?per_page=5`, { headers: { 'x-api-key': user.key } });
          const body = (await response.json()) as { id?: number; code?: string };
          count(`${response.status}${body.code === undefined ? '' : ` ${body.code}`}`);
          if (response.status === 201 && body.id !== undefined) acknowledged.push(body.id);
          if (response.status < 300 && phase.name === 'after' && firstSuccessAfterRestore === 0 && started >= restoredAt) firstSuccessAfterRestore = Date.now();
          if (response.status === 503) await new Promise((r) => setTimeout(r, 50));
        } catch (error) {
          count(`transport error ${(error as Error).message}`);
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, n) => worker(n));
    await new Promise((r) => setTimeout(r, 2_000));
    phase.name = 'cut';
    const cutAt = Date.now();
    const restart = process.env.OUTAGE_RESTART_COMMAND;
    if (restart !== undefined && restart !== '') {
      await promisify(exec)(restart);
    } else {
      await proxy.cut();
      await new Promise((r) => setTimeout(r, 3_000));
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 503, '/readyz reports the database unreachable');
      await proxy.up();
    }
    restoredAt = Date.now();
    phase.name = 'after';
    await new Promise((r) => setTimeout(r, 4_000));
    stop = true;
    await Promise.all(workers);
    const report = Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [k, Object.fromEntries(v)]));
    process.stderr.write(
      `database cut for ${restoredAt - cutAt} ms; recovered ${firstSuccessAfterRestore - restoredAt} ms after it returned; outcomes: ${JSON.stringify(report)}\n`,
    );

    for (const [name, m] of Object.entries(outcomes)) {
      for (const status of m.keys()) {
        assert.ok(/^(200|201|503 unavailable)$/.test(status), `${name}: only 2xx or 503 unavailable, never ${status}`);
      }
    }
    assert.ok((outcomes.before!.get('201') ?? 0) > 0 && (outcomes.before!.get('200') ?? 0) > 0, 'served before the cut');
    assert.ok((outcomes.cut!.get('503 unavailable') ?? 0) > 0 || process.env.OUTAGE_RESTART_COMMAND !== undefined, 'refused with 503 during the cut');
    assert.ok(firstSuccessAfterRestore > 0, 'served again after the database returned');
    assert.ok(firstSuccessAfterRestore - restoredAt < 5_000, `recovered in ${firstSuccessAfterRestore - restoredAt} ms`);
    assert.ok((outcomes.after!.get('201') ?? 0) > 0, 'writes resumed');
    assert.equal((await fetch(`${base}/readyz`)).status, 200);

    const stored = new Set((await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', user.user_id).execute()).map((r) => r.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], 'every acknowledged donation is in the database');
    // A connection reset during COMMIT leaves its outcome unknown to the app: such a request got
    // 503, yet its donation may exist. That is the only way a row may exist without a 201.
    const unacknowledged = stored.size - acknowledged.length;
    assert.ok(unacknowledged >= 0 && unacknowledged <= (outcomes.cut!.get('503 unavailable') ?? 0), `${unacknowledged} donations without a 201`);
    await assertLedgerBalanced(env.deps);
  });
  test('a write cut off while the database still runs it is not made again: its requests fail and it exists once', async () => {
    const donor = await makeUser(env.deps);
    await fund(env.deps, donor, 1_000 * 100);
    const caller = donor.caller;
    // Another node holds the fund's accounts: the batch's guarded statement waits in the database.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const blocker = env.deps.db.transaction().execute(async (trx) => {
      await lockFundAccounts(trx, donor.fund_id);
      locked();
      await held;
    });
    await isLocked;
    const made = Promise.allSettled(Array.from({ length: 3 }, () => createDonation(platform.deps, caller, { amount_cents: 1000, ein: EIN })));
    const waiting = async () =>
      Number((await sql<{ n: number }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'with g as%'`.execute(env.deps.db)).rows[0]?.n);
    for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await waiting(), 1, 'the batch waits for the fund in one statement');
    // The connection is lost; the statement goes on in the database and commits once the fund is free.
    await proxy.cut();
    await proxy.up();
    release();
    await blocker;
    const results = await made;
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
      'the app cannot know: each request fails (503 at the edge)',
    );
    const count = async () =>
      Number(
        (
          await env.deps.db
            .selectFrom('donations')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', '=', donor.user_id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (let i = 0; i < 100 && (await count()) < 3; i++) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await count(), 3, 'written once by the statement that was cut off, never again by a retry');
    await assertLedgerBalanced(env.deps);
  });
});
