// Seeds a benchmark database: the demo non-profits, 10 users, and 1,000,000
// donations, 100,000 of them the bench user's. The bulk donations are
// written straight into the table (status completed, no journal entries):
// they exist to be read. Every donation the benchmark creates goes through
// the real use case.
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { loadDemoNonProfits } from '../src/demo/seed.ts';
import { createUser } from '../src/modules/users/index.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';

export interface Seeded {
  key: string;
  ein: string;
}

export async function seedBench(databaseUrl: string, users: number, perUser: number, log: (line: string) => void): Promise<Seeded> {
  const platform = await openPlatform(loadConfig({}, { databaseUrl }), { log: pino({ level: 'warn' }) });
  const { deps } = platform;
  try {
    const { eligible } = await loadDemoNonProfits(deps);
    const npCount = Number((await deps.db.selectFrom('non_profits').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    let key = '';
    for (let u = 0; u < users; u++) {
      const started = Date.now();
      const created = await deps.db.transaction().execute((trx) => createUser(deps, { name: `Bench User ${u}` }, trx));
      if (u === 0) {
        key = (await createKey(deps, created.user_id, 'bench', 'live')).key;
        await recordContribution(deps, { user_id: created.user_id, fund_id: created.fund_id, type: 'wire_payment', units: '100000000', valuation: '1', currency: 'USD', frequency: 'OneTime', status: 'success' });
      }
      if (deps.engine === 'sqlite') {
        await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${perUser})
          insert into donations (user_id, fund_id, non_profit_id, amount_cents, status, note, private_memo, visibility, scheduled_donation_id, created_at, updated_at)
          select ${created.user_id}, ${created.fund_id}, (i % ${npCount}) + 1, 1000 + (i % 5000), 'completed', case when i % 3 = 0 then 'bench note' end, null, 'public', null,
            strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds'), strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds')
          from s`.execute(deps.db);
      } else {
        await sql`insert into donations (user_id, fund_id, non_profit_id, amount_cents, status, note, private_memo, visibility, scheduled_donation_id, created_at, updated_at)
          select ${created.user_id}, ${created.fund_id}, (i % ${npCount}) + 1, 1000 + (i % 5000), 'completed', case when i % 3 = 0 then 'bench note' end, null, 'public', null,
            to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          from generate_series(1, ${perUser}) as i`.execute(deps.db);
      }
      await sql`insert into donation_counts (user_id, total, public_total) values (${created.user_id}, ${perUser}, ${perUser})`.execute(deps.db);
      log(`  user ${u + 1}/${users}: ${perUser} donations in ${Date.now() - started} ms`);
    }
    await sql`analyze`.execute(deps.db);
    return { key, ein: eligible[0] as string };
  } finally {
    await platform.close();
  }
}
