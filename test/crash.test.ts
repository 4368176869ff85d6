// Crash test: a write load of donations, cancels and contributions against
// a real server process, killed with SIGKILL at random moments, 20 times.
// After each restart every request that got a 2xx is in the database, none
// that failed is half there, and `almoner check` passes. Donations carry an
// Idempotency-Key; those the crash left unanswered are retried with the same
// key after the restart, and each key makes exactly one donation.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines, freshDatabase, openEnv, runCli, startServerProcess } from './harness.ts';

const KILLS = Number(process.env.CRASH_KILLS ?? 20);
// The ledger's log is taken up and checkpointed every 200 ms, so that kills land while it runs too.
const SERVER_ENV = { RATE_LIMIT_PER_MINUTE: '1000000', IDEMPOTENCY_LOCK_MS: '500', LEDGER_CHECKPOINT_INTERVAL_MS: '200' };

for (const { name: engine } of engines()) {
  describe(`crash test on ${engine}`, () => {
    test(`${KILLS} kills -9 under a write load lose nothing acknowledged and leave nothing half done`, { timeout: 300_000 }, async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine);
      try {
        // A platform with an organisation, a user and an operator, set up by the CLI.
        const setup = await openEnv(engine, { databaseUrl });
        const { makeNonProfit } = await import('./harness.ts');
        await makeNonProfit(setup.deps, { ein: '261544963', name: 'Vermont Foodbank' });
        await setup.app.close();
        await setup.platform.close();
        const user = await runCli(['users', 'create', '--name', 'Crash Donor'], databaseUrl);
        const key = /(alm_live_[0-9A-Za-z]{40})/.exec(user.stdout)?.[1] as string;
        const userId = Number(/Created user (\d+)/.exec(user.stdout)?.[1]);
        const token = /(alm_admin_[0-9A-Za-z]{40})/.exec((await runCli(['admin', 'token', 'create', '--name', 'crash'], databaseUrl)).stdout)?.[1] as string;
        assert.ok(key && token && userId > 0);

        const created = new Set<number>();
        /** Idempotency keys sent whose answer the crash took, and the donation each key made once answered. */
        const unanswered = new Set<string>();
        const answered = new Map<string, number>();
        const retried = { replayed: 0, done_now: 0, waited: 0 };
        const unexpected: number[] = [];
        const donate = (base: string, idempotencyKey: string) =>
          fetch(`${base}/v1/donations`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
            body: JSON.stringify({ amount: 10, ein: '261544963', note: idempotencyKey }),
          });
        /** After a restart: the same request again, until it is answered (a key still held by a dead attempt answers 409 until its lock runs out). */
        const retryUnanswered = async (base: string) => {
          for (const k of [...unanswered]) {
            for (let attempt = 0; ; attempt++) {
              const res = await donate(base, k);
              if (res.status === 201) {
                retried[res.headers.get('idempotent-replayed') === 'true' ? 'replayed' : 'done_now'] += 1;
                const id = ((await res.json()) as { id: number }).id;
                created.add(id);
                answered.set(k, id);
                unanswered.delete(k);
                break;
              }
              assert.equal(res.status, 409, `a retry is answered or told to wait, got ${res.status}`);
              retried.waited += 1;
              assert.ok(attempt < 50, `key ${k} answered within the lock time`);
              await new Promise((r) => setTimeout(r, 100));
            }
          }
        };
        const cancelled = new Set<number>();
        const contributions = new Set<number>();
        for (let round = 0; round < KILLS; round++) {
          const { server, base, exited } = await startServerProcess(databaseUrl, SERVER_ENV);
          await retryUnanswered(base);
          let stop = false;
          const worker = async (n: number) => {
            for (let i = 0; !stop; i++) {
              try {
                if ((n + i) % 5 === 0) {
                  const res = await fetch(`${base}/admin/v1/contributions`, {
                    method: 'POST',
                    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
                    body: JSON.stringify({ user_id: userId, type: 'wire_payment', units: '25', valuation: '1', currency: 'USD', status: 'success' }),
                  });
                  if (res.status === 201) contributions.add(((await res.json()) as { id: number }).id);
                } else if ((n + i) % 3 === 0 && created.size > 0) {
                  const id = [...created][Math.floor(Math.random() * created.size)] as number;
                  const res = await fetch(`${base}/v1/donations/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
                  if (res.status === 200) cancelled.add(id);
                } else {
                  const k = `k-${round}-${n}-${i}`;
                  unanswered.add(k);
                  const res = await donate(base, k);
                  if (res.status !== 201) {
                    unexpected.push(res.status);
                    continue;
                  }
                  const id = ((await res.json()) as { id: number }).id;
                  created.add(id);
                  answered.set(k, id);
                  unanswered.delete(k);
                }
              } catch {
                return; // the server died under this request: it was never acknowledged
              }
            }
          };
          const load = Promise.all(Array.from({ length: 6 }, (_, n) => worker(n)));
          await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 350)));
          server.kill('SIGKILL');
          await exited;
          stop = true;
          await load;
        }

        // One more start to answer what the last kill left unanswered.
        const last = await startServerProcess(databaseUrl, SERVER_ENV);
        await retryUnanswered(last.base);
        last.server.kill('SIGTERM');
        await last.exited;
        assert.equal(unanswered.size, 0);
        assert.deepEqual(unexpected, [], 'every donation answered is a 201');
        process.stderr.write(
          `${engine}: ${answered.size} keys; after restarts ${retried.replayed} replayed (committed before the kill), ${retried.done_now} done then (not committed), ${retried.waited} told to wait\n`,
        );

        const after = await openEnv(engine, { databaseUrl });
        let journalSize = 0;
        try {
          const donations = await after.deps.db.selectFrom('donations').select(['id', 'status']).execute();
          const status = new Map(donations.map((d) => [d.id, d.status]));
          for (const id of created) assert.ok(status.has(id), `acknowledged donation ${id} is in the database`);
          for (const id of cancelled) assert.equal(status.get(id), 'not_completed', `acknowledged cancel of ${id} holds`);
          const stored = new Set((await after.deps.db.selectFrom('contributions').select('id').execute()).map((c) => c.id));
          for (const id of contributions) assert.ok(stored.has(id), `acknowledged contribution ${id} is in the database`);
          assert.ok(created.size > 20, `the load made ${created.size} donations`);
          const byKey = new Map<string, number>();
          for (const d of await after.deps.db.selectFrom('donations').select(['note']).where('note', 'like', 'k-%').execute()) byKey.set(d.note!, (byKey.get(d.note!) ?? 0) + 1);
          for (const [k, n] of byKey) assert.equal(n, 1, `key ${k} made ${n} donations`);
          assert.deepEqual([...byKey.keys()].sort(), [...answered.keys()].sort(), 'every key sent made its one donation, and was answered');
          journalSize = Number(
            (
              await after.deps.db
                .selectFrom('journal_entries')
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('book', '=', 'live')
                .executeTakeFirstOrThrow()
            ).n,
          );
        } finally {
          await after.app.close();
          await after.platform.close();
        }
        // The whole journal in its logs, and every checkpoint the killed servers signed verified (rules §26):
        // the log only grows, so a gap or a fork any restart made would be there now.
        const signed = await runCli(['ledger', 'checkpoint'], databaseUrl);
        assert.equal(signed.code, 0, signed.stderr);
        assert.equal(Number(/at size (\d+)/.exec(signed.stdout)?.[1]), journalSize, 'every journal entry is in the log');
        const check = await runCli(['check'], databaseUrl);
        assert.equal(check.code, 0, check.stdout + check.stderr);
        assert.match(check.stdout, /ok {4}every journal entry matches its hash/);
      } finally {
        await cleanup();
      }
    });
  });
}
