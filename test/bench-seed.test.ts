// The benchmark's database is one a real platform could hold: every bulk
// donation carries the journal of a paid donation, and `almoner check` passes.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, assertLedgerBalanced, type TestEnv } from './harness.ts';
import { seedBench } from '../bench/seed.ts';

for (const { name: engine } of engines()) {
  describe(`the benchmark seed on ${engine}`, () => {
    let env: TestEnv;
    before(async () => {
      env = await openEnv(engine);
    });
    after(async () => env.close());

    test('bulk donations come with their hold and payment entries, and the ledger balances', async () => {
      const seeded = await seedBench(env.deps.config.databaseUrl, 3, 40, () => {});
      assert.match(seeded.key, /^\S+$/);
      const bulk = await env.deps.db.selectFrom('donations').select(['id', 'amount_cents']).where('status', '=', 'completed').execute();
      assert.equal(bulk.length, 120);
      const entries = await env.deps.db.selectFrom('journal_entries').select(['donation_id', 'memo']).where('donation_id', 'is not', null).execute();
      assert.equal(entries.length, 240, 'two entries per donation');
      for (const memo of ['donation scheduled: hold', 'donation pay']) {
        assert.equal(new Set(entries.filter((e) => e.memo === memo).map((e) => e.donation_id)).size, 120, memo);
      }
      const paid = await env.deps.db.selectFrom('ledger_accounts').select('balance_cents').where('kind', '=', 'grants_paid').where('book', '=', 'live').executeTakeFirstOrThrow();
      assert.equal(
        paid.balance_cents,
        bulk.reduce((sum, d) => sum + d.amount_cents, 0),
      );
      await assertLedgerBalanced(env.deps);
    });
  });
}
