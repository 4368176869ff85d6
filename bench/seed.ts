// Seeds a benchmark database: the demo non-profits, 10 users, and 1,000,000
// donations, 100,000 of them the bench user's. The bulk donations are
// written straight into the tables (status completed), each with the journal
// a paid donation has (its hold, then its payment: two entries, four
// postings), funded by a contribution recorded through the real use case, so
// that the database is one `almoner check` passes and its journal is the size
// a platform with a million donations has: writes then meet the indexes and
// the query plans of a full journal, not an empty one. Every donation the
// benchmark creates goes through the real use case.
import { dialectOf } from '../src/db/dialect.ts';
import assert from 'node:assert/strict';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import type { Deps } from '../src/deps.ts';
import { loadDemoNonProfits } from '../src/demo/seed.ts';
import { createUser } from '../src/modules/users/index.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

export interface Seeded {
  key: string;
  ein: string;
  /** One key each of SPREAD_FUNDS other donors, each fund holding plenty: many donors giving at once. */
  spreadKeys: string[];
  /** An operator's token: the bench reads the server's /metrics with it (the writer's rounds). */
  operatorToken: string;
}

/** How many donors the spread scenario gives from. */
export const SPREAD_FUNDS = 100;

/**
 * The journal of a fund's bulk donations as if each had been held and paid:
 * a contribution of their sum (the real use case), then per donation the
 * entries 'donation scheduled: hold' (available -x, reserved +x) and
 * 'donation pay' (reserved -x, grants_paid +x), and the cached balances moved
 * by the same sums.
 */
async function journalOfPaidDonations(deps: Deps, userId: number, fundId: number): Promise<void> {
  const { sum } = await deps.db
    .selectFrom('donations')
    .where('fund_id', '=', fundId)
    .select((eb) => eb.fn.sum<number>('amount_cents').as('sum'))
    .executeTakeFirstOrThrow();
  const total = Number(sum);
  assert(Number.isSafeInteger(total) && total > 0);
  // The dollars as exact decimal text (cents never pass through a float).
  await fundByWire(deps, { user_id: userId, fund_id: fundId }, `${(total - (total % 100)) / 100}.${String(total % 100).padStart(2, '0')}`);
  await deps.db.transaction().execute(async (trx) => {
    for (const memo of ['donation scheduled: hold', 'donation pay']) {
      await sql`insert into journal_entries (memo, donation_id, created_at)
        select ${memo}, id, created_at from donations where fund_id = ${fundId} order by id`.execute(trx);
    }
    // Each entry's two postings: the amount leaves the first account and reaches the second.
    await sql`insert into postings (entry_id, account_id, amount_cents)
      select j.id, a.id, m.sign * d.amount_cents
      from donations d
      join journal_entries j on j.donation_id = d.id
      join (select 'donation scheduled: hold' as memo, 'available' as kind, -1 as sign, 0 as outside
            union all select 'donation scheduled: hold', 'reserved', 1, 0
            union all select 'donation pay', 'reserved', -1, 0
            union all select 'donation pay', 'grants_paid', 1, 1) m on m.memo = j.memo
      join ledger_accounts a on a.kind = m.kind and a.book = 'live' and (case when m.outside = 1 then a.fund_id is null else a.fund_id = d.fund_id end)
      where d.fund_id = ${fundId}
      order by j.id`.execute(trx);
    await sql`update ledger_accounts set balance_cents = balance_cents - ${total} where fund_id = ${fundId} and kind = 'available'`.execute(trx);
    await sql`update ledger_accounts set balance_cents = balance_cents + ${total} where fund_id is null and kind = 'grants_paid' and book = 'live'`.execute(trx);
  });
}

/** Money into a donor's fund as a wire that arrived (the real use case): `units` dollars. */
export async function fundByWire(deps: Deps, donor: { user_id: number; fund_id: number }, units: string): Promise<void> {
  await recordContribution(deps, {
    user_id: donor.user_id,
    fund_id: donor.fund_id,
    type: 'wire_payment',
    units,
    valuation: '1',
    currency: 'USD',
    frequency: 'OneTime',
    status: 'success',
  });
}

export async function seedBench(databaseUrl: string, users: number, perUser: number, log: (line: string) => void): Promise<Seeded> {
  // A bulk load is no request: no statement timeout (0), so a busy machine slows it and never stops it.
  const platform = await openPlatform(loadConfig({}, { databaseUrl, dbStatementTimeoutMs: 0 }), { log: pino({ level: 'warn' }) });
  const { deps } = platform;
  try {
    const { eligible } = await loadDemoNonProfits(deps);
    const npCount = Number(
      (
        await deps.db
          .selectFrom('non_profits')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    let key = '';
    for (let u = 0; u < users; u++) {
      const started = Date.now();
      const created = await deps.db.transaction().execute((trx) => createUser(deps, { name: `Bench User ${u}` }, trx));
      // The seeded history begins on 2025-01-01: the donor was their fund's organizer from then (rules §20).
      await sql`update member_roles set since = '2025-01-01T00:00:00.000Z' where user_id = ${created.user_id}`.execute(deps.db);
      if (u === 0) {
        key = (await createKey(deps, created.user_id, 'bench', 'live')).key;
        await fundByWire(deps, created, '100000000');
      }
      if (dialectOf(deps.db).engine === 'sqlite') {
        await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${perUser})
          insert into donations (user_id, actor_id, fund_id, non_profit_id, amount_cents, status, note, private_memo, visibility, scheduled_donation_id, created_at, updated_at)
          select ${created.user_id}, ${created.user_id}, ${created.fund_id}, (i % ${npCount}) + 1, 1000 + (i % 5000), 'completed', case when i % 3 = 0 then 'bench note' end, null, 'public', null,
            strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds'), strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds')
          from s`.execute(deps.db);
      } else {
        await sql`insert into donations (user_id, actor_id, fund_id, non_profit_id, amount_cents, status, note, private_memo, visibility, scheduled_donation_id, created_at, updated_at)
          select ${created.user_id}, ${created.user_id}, ${created.fund_id}, (i % ${npCount}) + 1, 1000 + (i % 5000), 'completed', case when i % 3 = 0 then 'bench note' end, null, 'public', null,
            to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char(timestamp '2025-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
          from generate_series(1, ${perUser}) as i`.execute(deps.db);
      }
      await sql`insert into donation_counts (user_id, total, public_total) values (${created.user_id}, ${perUser}, ${perUser})`.execute(deps.db);
      // The journal's insert joins the donations just written: planned on statistics of the
      // tables as they are now, not as they were several users ago (a PostgreSQL without
      // autovacuum never updates them; each user then took longer, 10 s to 57 s by the tenth).
      if (dialectOf(deps.db).engine === 'postgres') await sql`analyze donations, journal_entries, ledger_accounts`.execute(deps.db);
      await journalOfPaidDonations(deps, created.user_id, created.fund_id);
      log(`  user ${u + 1}/${users}: ${perUser} donations and their journal in ${Date.now() - started} ms`);
    }
    const spreadKeys: string[] = [];
    for (let u = 0; u < SPREAD_FUNDS; u++) {
      const created = await deps.db.transaction().execute((trx) => createUser(deps, { name: `Spread Donor ${u}` }, trx));
      spreadKeys.push((await createKey(deps, created.user_id, 'bench', 'live')).key);
      await fundByWire(deps, created, '10000000');
    }
    log(`  ${SPREAD_FUNDS} more donors with a funded key each`);
    await sql`analyze`.execute(deps.db);
    const { token: operatorToken } = await createAdminToken(deps, 'bench metrics', 'bench');
    return { key, ein: eligible[0] as string, spreadKeys, operatorToken };
  } finally {
    await platform.close();
  }
}
