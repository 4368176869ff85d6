// A valuation at size: `npm run bench -- --only valuation`. On each engine,
// 1,000,000 funds (BENCH_VALUATION_FUNDS) holding units of three portfolios,
// written straight into the tables with portfolio balances that are their
// units at the first unit price; then prices move and one valuation marks
// every fund to the new unit price and takes a day's fee. Reports its time and
// the process's resident memory before and at its highest (sampled every
// 50 ms): bounded means it does not grow with the number of funds (they are
// valued a round at a time). Meanwhile ten donors with invested funds (five
// the first round reaches, five the last) give through the HTTP API of the same
// process, each request meant 20 ms after the one before: how long a donor
// waits during a valuation. `almoner check` then proves every fund's units are its
// portfolio balance; the funds have no contributions behind their money, so
// the other invariants are not this database's to pass. BENCH_CPU_PROF=<dir>:
// the process's CPU profile over the valuation alone, valuation-<engine>.cpuprofile.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import pino from 'pino';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { createPortfolio, importPrices, investingProblems, runValuation } from '../src/modules/portfolio/index.ts';
import { buildApp } from '../src/app.ts';
import type { Deps } from '../src/deps.ts';
import type { FastifyInstance } from 'fastify';
import { createUser } from '../src/modules/users/index.ts';
import { createKey } from '../src/modules/keys/index.ts';
import { loadDemoNonProfits } from '../src/demo/seed.ts';
import { fundByWire } from './seed.ts';
import { writeInvestedFunds } from './invested-funds.ts';
import { freshDatabase } from './processes.ts';
import { peakDuring } from './payments.ts';

/** `work`, with this process's CPU profile over it written to BENCH_CPU_PROF's directory when that is set. */
async function profiled<T>(engine: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROF;
  if (dir === undefined) return await work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(join(dir, `valuation-${engine}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const FUNDS = Number(process.env.BENCH_VALUATION_FUNDS ?? 1_000_000);
const DAY = '2026-01-01T21:00:00.000Z';
const NEXT = '2026-01-02T21:00:00.000Z';

/** A donor whose fund invests half of what comes in: the valuation locks it in its round. */
async function investedDonor(deps: Deps, portfolio: number, n: number): Promise<string> {
  const created = await deps.db.transaction().execute((trx) => createUser(deps, { name: `Probe Donor ${n}` }, trx));
  const key = (await createKey(deps, created.user_id, 'bench', 'live')).key;
  const app = await buildApp(deps);
  const res = await app.inject({ method: 'PUT', url: '/v1/users/me/allocation', headers: { 'x-api-key': key }, payload: { portfolio_id: portfolio, invest_share: 50 } });
  if (res.statusCode !== 200) throw new Error(`allocation: ${res.statusCode} ${res.body}`);
  await app.close();
  await fundByWire(deps, created, '1000000');
  return key;
}

/**
 * Donations made one after another until `done` settles, each meant 20 ms after the one before
 * ended: each one's wait, in ms, from when it was meant to start (so that a blocked event loop,
 * a timer firing late, counts too) to its answer. The last is the first meant after `done`.
 */
async function donateUntil(app: FastifyInstance, keys: readonly string[], ein: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  const waits: number[] = [];
  for (let i = 0; ; i++) {
    const meant = performance.now() + 20;
    const last = finished;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const res = await app.inject({ method: 'POST', url: '/v1/donations', headers: { 'x-api-key': keys[i % keys.length] as string }, payload: { ein, amount: 10 } });
    waits.push(performance.now() - meant);
    if (res.statusCode !== 201) throw new Error(`donation: ${res.statusCode} ${res.body}`);
    if (last) break;
  }
  return waits;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

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
      const ein = (await loadDemoNonProfits(deps)).eligible[0] as string;
      const keys: string[] = [];
      for (let i = 0; i < 5; i++) keys.push(await investedDonor(deps, portfolios[i % 3] as number, i));
      log(`  ${engine}: seeding ${FUNDS.toLocaleString('en-US')} funds with units`);
      const seeded = performance.now();
      await writeInvestedFunds(deps.db, portfolios, FUNDS);
      for (let i = 5; i < 10; i++) keys.push(await investedDonor(deps, portfolios[i % 3] as number, i));
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
      // The donors' app is ready before the valuation starts: a valuation that blocks the process blocks their requests, not its making.
      const app = await buildApp(deps);
      await app.ready();
      const valuing = peakDuring(() => profiled(engine, () => runValuation(deps, NEXT, 'bench')));
      const waits = (await donateUntil(app, keys, ein, valuing)).sort((a, b) => a - b);
      await app.close();
      const valued = await valuing;
      rows.push(
        `| ${engine} | value ${FUNDS.toLocaleString('en-US')} funds (${valued.value.portfolios.map((p) => `$${p.unit_price}`).join(', ')}) | ${valued.seconds.toFixed(1)} s (the process's CPU ${valued.cpuSeconds.toFixed(1)} s) | ${valued.rssMb.toFixed(0)} -> ${valued.peakMb.toFixed(0)} MiB |`,
        `| ${engine} | meanwhile ${waits.length} donations, one at a time: median / p99 / longest wait | ${quantile(waits, 0.5).toFixed(0)} / ${quantile(waits, 0.99).toFixed(0)} / ${(waits.at(-1) ?? 0).toFixed(0)} ms | |`,
      );
      const checked = await peakDuring(() => investingProblems(deps.db));
      rows.push(
        `| ${engine} | check every fund's units against its balance (${checked.value.length} problems) | ${checked.seconds.toFixed(1)} s | ${checked.rssMb.toFixed(0)} -> ${checked.peakMb.toFixed(0)} MiB |`,
      );
      log(`  ${engine}: ${rows.at(-3)}`);
      log(`  ${engine}: ${rows.at(-2)}`);
    } finally {
      await platform.close();
      await cleanup();
    }
  }
  rows.push('');
  return rows;
}
