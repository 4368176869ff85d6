// A valuation at size: `npm run bench -- --only valuation`. On each engine,
// 1,000,000 funds (BENCH_VALUATION_FUNDS) holding units of three portfolios,
// written straight into the tables with portfolio balances that are their
// units at the first unit price; then prices move and one valuation marks
// every fund to the new unit price and takes a day's fee. Reports its time and
// the process's resident memory before and at its highest (sampled every
// 50 ms): bounded means it does not grow with the number of funds (they are
// valued 500 at a time). `almoner check` then proves every fund's units are its
// portfolio balance; the funds have no contributions behind their money, so
// the other invariants are not this database's to pass.
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { bulkInsert } from '../src/db/bulk.ts';
import { createPortfolio, importPrices, investingProblems, runValuation } from '../src/modules/portfolio/index.ts';
import { freshDatabase } from './processes.ts';
import { peakDuring } from './payments.ts';

const FUNDS = Number(process.env.BENCH_VALUATION_FUNDS ?? 1_000_000);
const BATCH = 1_000;
const DAY = '2026-01-01T21:00:00.000Z';
const NEXT = '2026-01-02T21:00:00.000Z';

export async function benchValuation(engines: readonly string[], log: (line: string) => void): Promise<string[]> {
  const rows = [
    `Valuations (rules §19): ${FUNDS.toLocaleString('en-US')} funds holding units of three portfolios; one valuation marks each to its new unit price and takes a day's fee.`,
    '',
    '| engine | step | time | resident memory before -> highest |',
    '|---|---|---|---|',
  ];
  for (const engine of engines) {
    const { databaseUrl, cleanup } = await freshDatabase(engine, 'valuation');
    const config = loadConfig({}, { databaseUrl, dbStatementTimeoutMs: 0 });
    const platform = await openPlatform(config, { log: pino({ level: 'warn' }) });
    const { deps } = platform;
    try {
      const portfolios: number[] = [];
      for (const [i, holdings] of [
        [
          { symbol: 'BND', weight: 70 },
          { symbol: 'VTI', weight: 30 },
        ],
        [
          { symbol: 'VTI', weight: 50 },
          { symbol: 'BND', weight: 50 },
        ],
        [
          { symbol: 'VTI', weight: 80 },
          { symbol: 'VNQ', weight: 20 },
        ],
      ].entries()) {
        portfolios.push((await createPortfolio(deps, { name: `Bench ${i}`, description: '', risk_level: 'medium', annual_fee_bps: 15 + i * 5, holdings }, 'bench')).id);
      }
      await importPrices(
        deps,
        [
          { symbol: 'VTI', price: '250', time: DAY },
          { symbol: 'BND', price: '72.5', time: DAY },
          { symbol: 'VNQ', price: '88.125', time: DAY },
        ],
        'bench',
      );
      await runValuation(deps, DAY, 'bench');
      log(`  ${engine}: seeding ${FUNDS.toLocaleString('en-US')} funds with units`);
      const seeded = performance.now();
      const at = new Date().toISOString();
      for (let i = 0; i < FUNDS; i += BATCH) {
        const n = Math.min(BATCH, FUNDS - i);
        const users = await bulkInsert<{ id: number }>(
          deps.db,
          'users',
          ['name', 'slug', 'created_at', 'book'],
          Array.from({ length: n }, (_, j) => [`Bench ${i + j}`, `bench-${i + j}`, at, 'live']),
          ['id'],
        );
        const funds = await bulkInsert<{ id: number }>(
          deps.db,
          'funds',
          ['user_id', 'name', 'summary', 'created_at', 'book'],
          users.map((u) => [Number(u.id), 'Fund', '', at, 'live']),
          ['id'],
        );
        // Units of 1 to 1,000 (with 8 decimals), worth units × $10 at the first unit price.
        const units = funds.map((f, j) => {
          const whole = ((i + j) % 1000) + 1;
          return { fund: Number(f.id), portfolio: portfolios[(i + j) % 3] as number, units: `${whole}.12345678`, cents: whole * 1000 + 1 };
        });
        await bulkInsert(
          deps.db,
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
          deps.db,
          'fund_units',
          ['fund_id', 'portfolio_id', 'units'],
          units.map((u) => [u.fund, u.portfolio, u.units]),
        );
      }
      // As autovacuum would before long: the planner's statistics know the million rows written.
      await sql`analyze`.execute(deps.db);
      log(`  ${engine}: seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s (statistics brought up to date)`);
      await importPrices(
        deps,
        [
          { symbol: 'VTI', price: '252.75', time: NEXT },
          { symbol: 'BND', price: '72.4', time: NEXT },
          { symbol: 'VNQ', price: '87.5', time: NEXT },
        ],
        'bench',
      );
      const valued = await peakDuring(() => runValuation(deps, NEXT, 'bench'));
      rows.push(
        `| ${engine} | value ${FUNDS.toLocaleString('en-US')} funds (${valued.value.portfolios.map((p) => `$${p.unit_price}`).join(', ')}) | ${valued.seconds.toFixed(1)} s | ${valued.rssMb.toFixed(0)} -> ${valued.peakMb.toFixed(0)} MiB |`,
      );
      const checked = await peakDuring(() => investingProblems(deps.db));
      rows.push(
        `| ${engine} | check every fund's units against its balance (${checked.value.length} problems) | ${checked.seconds.toFixed(1)} s | ${checked.rssMb.toFixed(0)} -> ${checked.peakMb.toFixed(0)} MiB |`,
      );
      log(`  ${engine}: ${rows.at(-2)}`);
    } finally {
      await platform.close();
      await cleanup();
    }
  }
  rows.push('');
  return rows;
}
