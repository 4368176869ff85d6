// A valuation killed with SIGKILL mid-way (docs/rules.md §19), on both
// engines: 20,000 invested funds are valued by `almoner valuation run` in
// rounds of 500; the command is killed once its rounds are under way, then
// `almoner valuation finish` is killed the same way, and a server started
// afterwards finishes it with its job. After each kill the valuation is still
// running with its rounds so far committed and the books hold; at the end every
// fund was valued once, at the unit prices fixed when the valuation started,
// and each portfolio's units outstanding are its funds' units.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { engines, freshDatabase, openEnv, runCli, startServerProcess, type TestEnv } from './harness.ts';
import { createPortfolio, importPrices, investingProblems, runValuation } from '../src/modules/portfolio/index.ts';
import { writeInvestedFunds } from '../bench/invested-funds.ts';

const FUNDS = 20_000;
const BIN = fileURLToPath(new URL('../bin/almoner.js', import.meta.url));
const ROUNDS = { VALUATION_ROUND_FUNDS: '500' };

const running = (env: TestEnv) => env.deps.db.selectFrom('valuations').select(['id', 'stage', 'after_fund_id']).where('stage', '<>', 'done').executeTakeFirst();

/** Runs the CLI and kills it with SIGKILL once the running valuation's rounds have passed `past`; returns where they were. */
async function killPast(env: TestEnv, databaseUrl: string, args: string[], past: number): Promise<number> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...ROUNDS }, stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let ended = false;
  void exited.then(() => (ended = true));
  for (;;) {
    const v = await running(env);
    if (v !== undefined && v.after_fund_id > past) break;
    assert.ok(!ended, `${args.join(' ')} ended before its rounds passed fund ${past}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  child.kill('SIGKILL');
  await exited;
  return (await running(env))?.after_fund_id ?? 0;
}

for (const { name: engine } of engines()) {
  describe(`a valuation killed mid-way on ${engine}`, () => {
    test('finishes once, at its prices, after two kills -9 and a restart', { timeout: 240_000 }, async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine);
      const env = await openEnv(engine, { databaseUrl });
      try {
        const { deps } = env;
        const portfolios: number[] = [];
        for (const [i, holdings] of [
          [{ symbol: 'BND', weight: 100 }],
          [
            { symbol: 'VTI', weight: 60 },
            { symbol: 'BND', weight: 40 },
          ],
        ].entries())
          portfolios.push((await createPortfolio(deps, { name: `P${i}`, description: '', risk_level: 'low', annual_fee_bps: 25, holdings }, 'test')).id);
        const day = (d: number) => `2026-01-0${d}T21:00:00.000Z`;
        await importPrices(
          deps,
          [1, 2].flatMap((d) => [
            { symbol: 'BND', price: d === 1 ? '72.5' : '72.75', time: day(d) },
            { symbol: 'VTI', price: d === 1 ? '250' : '247.125', time: day(d) },
          ]),
          'test',
        );
        await runValuation(deps, day(1), 'test');
        await writeInvestedFunds(deps.db, portfolios, FUNDS);
        const funds = await deps.db.selectFrom('fund_units').select('fund_id').orderBy('fund_id').execute();
        const [first, last] = [Number(funds[0]?.fund_id), Number(funds.at(-1)?.fund_id)];

        const killedAt = await killPast(env, databaseUrl, ['valuation', 'run', '--at', day(2)], first);
        const v = await running(env);
        assert.ok(v !== undefined && v.stage === 'funds' && killedAt < last, `still running after the kill, at fund ${killedAt}`);
        const prices = await deps.db.selectFrom('portfolio_valuations').select(['portfolio_id', 'unit_price']).where('valuation_id', '=', v.id).orderBy('portfolio_id').execute();
        assert.deepEqual(await investingProblems(deps.db), [], 'the books hold after the first kill');

        const killedAgain = await killPast(env, databaseUrl, ['valuation', 'finish'], killedAt);
        assert.ok(killedAgain > killedAt && killedAgain < last, `carried on, then killed again at fund ${killedAgain}`);
        assert.deepEqual(await investingProblems(deps.db), [], 'the books hold after the second kill');

        // A server's job finishes it.
        const { server, exited } = await startServerProcess(databaseUrl, { ...ROUNDS, SCHEDULER_INTERVAL_MS: '100' });
        try {
          while ((await running(env)) !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        } finally {
          server.kill('SIGTERM');
          await exited;
        }
        const valued = await deps.db.selectFrom('fund_valuations').select(['fund_id']).where('valuation_id', '=', v.id).orderBy('fund_id').execute();
        assert.deepEqual(
          valued.map((r) => Number(r.fund_id)),
          funds.map((f) => Number(f.fund_id)),
          'every fund valued, once',
        );
        assert.deepEqual(
          await deps.db.selectFrom('portfolio_valuations').select(['portfolio_id', 'unit_price']).where('valuation_id', '=', v.id).orderBy('portfolio_id').execute(),
          prices,
        );
        assert.deepEqual(await investingProblems(deps.db), [], 'every fund at the new price; the units outstanding are the funds’ units');
        const nothing = await runCli(['valuation', 'finish'], databaseUrl);
        assert.deepEqual([nothing.code, nothing.stdout], [0, 'No valuation is running.\n']);
      } finally {
        await env.close();
        await cleanup();
      }
    });
  });
}
