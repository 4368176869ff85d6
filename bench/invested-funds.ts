// Funds holding units of some portfolios, written straight into the tables
// a thousand at a time (a user, a fund, its four accounts, its units): each
// fund's portfolio balance is its units at the first unit price ($10), so
// that the units check passes before the next valuation. Nothing else stands
// behind the money (no contribution, no journal entry): for measuring and
// crashing valuations, not for the other invariants of `almoner check`.
import type { Db } from '../src/db/database.ts';
import { bulkInsert } from '../src/db/bulk.ts';

const BATCH = 1_000;

/** `count` funds, the i-th holding (i mod 1000) + 1.12345678 units of portfolios[i mod their number]. */
export async function writeInvestedFunds(db: Db, portfolios: readonly number[], count: number): Promise<void> {
  const at = new Date().toISOString();
  for (let i = 0; i < count; i += BATCH) {
    const n = Math.min(BATCH, count - i);
    const users = await bulkInsert<{ id: number }>(
      db,
      'users',
      ['name', 'slug', 'created_at', 'book'],
      Array.from({ length: n }, (_, j) => [`Bench ${i + j}`, `bench-${i + j}`, at, 'live']),
      ['id'],
    );
    const funds = await bulkInsert<{ id: number }>(
      db,
      'funds',
      ['user_id', 'name', 'summary', 'created_at', 'book'],
      users.map((u) => [Number(u.id), 'Fund', '', at, 'live']),
      ['id'],
    );
    // Units of 1.12345678 to 1,000.12345678, worth units × $10 at the first unit price (half-even to the cent).
    const units = funds.map((f, j) => {
      const whole = ((i + j) % 1000) + 1;
      return { fund: Number(f.id), portfolio: portfolios[(i + j) % portfolios.length] as number, units: `${whole}.12345678`, cents: whole * 1000 + 123 };
    });
    await bulkInsert(
      db,
      'ledger_accounts',
      ['fund_id', 'kind', 'balance_cents', 'book'],
      units.flatMap((u) => [
        [u.fund, 'pending_deposit', 0, 'live'],
        [u.fund, 'available', 0, 'live'],
        [u.fund, 'reserved', 0, 'live'],
        [u.fund, 'portfolio', u.cents, 'live'],
      ]),
    );
    await bulkInsert(
      db,
      'fund_units',
      ['fund_id', 'portfolio_id', 'units'],
      units.map((u) => [u.fund, u.portfolio, u.units]),
    );
  }
}
