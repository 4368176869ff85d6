// A valuation commits a round of funds at a time (docs/rules.md §19), on both
// engines: two platforms given the same funds (a waiting donation, an
// exchange, money invested now, a cash-only fund, the monthly fee) value them
// at the same prices, one without a stop, the other stopped after a round of
// its monthly fees and again after a round of its funds, as a crash would stop
// it. While it is stopped its books hold (`almoner check`), a new valuation is
// refused and changes nothing, and the portfolios still show the last finished
// unit price; once finished, every fund's record, units and balance are those
// of the run that never stopped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, makeNonProfit, fund, call, fingerprint, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { finishRunningValuation, runValuation } from '../src/modules/portfolio/index.ts';

const FIRST = '2026-10-31T21:00:00.000Z';
const NEXT = '2026-11-02T21:00:00.000Z';
const PRICES: Record<string, Record<string, string>> = {
  [FIRST]: { VTI: '250', BND: '72.5' },
  [NEXT]: { VTI: '253.1', BND: '72.25' },
};

interface Platform {
  env: TestEnv;
  donors: TestUser[];
  admin: (method: string, url: string, body?: unknown) => ReturnType<typeof call>;
}

class Crash extends Error {}

/** The same funds on a fresh platform: seven donors, two portfolios, one valuation behind them. */
async function platform(engine: 'sqlite' | 'postgres'): Promise<Platform> {
  const clock = new TestClock('2026-10-31T21:30:00.000Z');
  const env = await openEnv(engine, { schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0, fundMonthlyFeeCents: 150, valuationRoundFunds: 2 }, { clock });
  const operator = (await createAdminToken(env.deps, 'rounds test', 'test')).token;
  const admin = (method: string, url: string, body?: unknown) =>
    call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
  await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
  const ids: number[] = [];
  for (const [name, holdings] of [
    ['Steady', [{ symbol: 'BND', weight: 100 }]],
    [
      'Mixed',
      [
        { symbol: 'VTI', weight: 60 },
        { symbol: 'BND', weight: 40 },
      ],
    ],
  ] as const)
    ids.push((await admin('POST', '/portfolios', { name, description: '', risk_level: 'low', annual_fee_bps: 20, holdings })).body.id);
  const donors: TestUser[] = [];
  for (let i = 0; i < 7; i++) donors.push(await makeUser(env.deps));
  for (const [i, donor] of donors.entries()) {
    if (i < 6) {
      const body = { portfolio_id: ids[i < 4 ? 0 : 1], invest_share: i === 5 ? 50 : 100 };
      assert.equal((await call(env.app, 'PUT', '/v1/users/me/allocation', { key: donor.key, body })).status, 200);
    }
    await fund(env.deps, donor, 1_000_00 + i * 123_45);
  }
  const value = async (at: string) => {
    const day = PRICES[at] as Record<string, string>;
    assert.equal((await admin('POST', '/prices', { prices: Object.entries(day).map(([symbol, price]) => ({ symbol, price, time: at })) })).status, 201);
  };
  await value(FIRST);
  assert.equal((await admin('POST', '/valuations', { at: FIRST })).status, 201);
  clock.set('2026-11-02T22:00:00.000Z');
  await value(NEXT);
  // What the next valuation acts on: a donation that waits for units, an exchange, money invested now.
  const waiting = await call(env.app, 'POST', '/v1/donations', { key: (donors[0] as TestUser).key, body: { ein: '261544963', amount: 400 } });
  assert.deepEqual([waiting.status, waiting.body.status], [201, 'waiting_for_funds']);
  assert.equal((await call(env.app, 'PUT', '/v1/users/me/allocation', { key: (donors[1] as TestUser).key, body: { portfolio_id: ids[1], invest_share: 100 } })).status, 200);
  assert.equal((await call(env.app, 'POST', '/v1/users/me/allocation/investments', { key: (donors[5] as TestUser).key, body: { amount: 100 } })).status, 201);
  return { env, donors, admin };
}

/** What a valuation leaves that must not depend on how its rounds ran. */
async function outcome(env: TestEnv) {
  const { db } = env.deps;
  return {
    funds: await db.selectFrom('fund_valuations').selectAll().orderBy('valuation_id').orderBy('fund_id').execute(),
    monthly: await db.selectFrom('monthly_fees').selectAll().orderBy('valuation_id').orderBy('fund_id').execute(),
    units: await db.selectFrom('fund_units').selectAll().orderBy('fund_id').execute(),
    portfolios: await db.selectFrom('portfolio_valuations').selectAll().orderBy('valuation_id').orderBy('portfolio_id').execute(),
    accounts: await db.selectFrom('ledger_accounts').select(['fund_id', 'kind', 'book', 'balance_cents']).orderBy('fund_id').orderBy('kind').orderBy('book').execute(),
    donations: await db.selectFrom('donations').select(['id', 'status']).orderBy('id').execute(),
    investments: await db.selectFrom('investments').select(['id', 'status', 'bought_cents']).orderBy('id').execute(),
    exchanges: await db.selectFrom('exchanges').select(['id', 'status']).orderBy('id').execute(),
    valuations: await db.selectFrom('valuations').select(['id', 'at', 'stage', 'after_fund_id', 'monthly_fee_cents']).orderBy('id').execute(),
  };
}

const failures = async (env: TestEnv) => (await runCheck(env.deps)).flatMap((c) => c.failures);

for (const { name: engine } of engines()) {
  describe(`a valuation a round at a time on ${engine}`, () => {
    let whole: Platform;
    let stopped: Platform;
    before(async () => {
      whole = await platform(engine);
      stopped = await platform(engine);
    });
    after(async () => {
      await whole?.env.close();
      await stopped?.env.close();
    });

    test('stopped twice and finished, it leaves what the valuation that never stopped left', async () => {
      assert.equal((await whole.admin('POST', '/valuations', { at: NEXT })).status, 201);
      const running = await stopped.env.deps.db.selectFrom('valuations').select('id').where('stage', '<>', 'done').execute();
      assert.deepEqual(running, [], 'nothing runs before');
      const priceBefore = (await stopped.admin('GET', '/portfolios')).body.items.map((p: { unit_price: string }) => p.unit_price);

      // Stopped after the first round of its monthly fees.
      await assert.rejects(
        runValuation(stopped.env.deps, NEXT, 'op', {
          afterRound: (p) => {
            if (p.stage === 'monthly_fees') throw new Crash();
          },
        }),
        Crash,
      );
      const [first] = await stopped.env.deps.db.selectFrom('valuations').selectAll().where('stage', '<>', 'done').execute();
      assert.deepEqual([first?.stage, first?.after_fund_id], ['monthly_fees', stopped.donors[1]?.fund_id], 'two funds charged, in a committed round');
      assert.deepEqual(await failures(stopped.env), [], 'the books hold while it runs');

      // Carried on, and stopped again after the first round of its funds.
      let rounds = 0;
      await assert.rejects(
        finishRunningValuation(stopped.env.deps, {
          afterRound: (p) => {
            rounds += 1;
            if (p.stage === 'funds' && p.afterFundId > 0) throw new Crash();
          },
        }),
        Crash,
      );
      assert.ok(rounds >= 4, `the monthly fees' rounds, the change of stage and a round of funds (${rounds})`);
      const [second] = await stopped.env.deps.db.selectFrom('valuations').selectAll().where('stage', '<>', 'done').execute();
      assert.deepEqual([second?.stage, second?.after_fund_id], ['funds', stopped.donors[1]?.fund_id]);
      assert.deepEqual(await failures(stopped.env), [], 'the books hold with some funds valued and others not');

      // While it runs: a new valuation is refused and changes nothing; the portfolios show the last finished price.
      const fingerprintBefore = await fingerprint(stopped.env.deps);
      const refused = await stopped.admin('POST', '/valuations', { at: '2026-11-02T21:30:00.000Z' });
      assert.deepEqual([refused.status, refused.body.code], [409, 'valuation_running']);
      assert.deepEqual(await fingerprint(stopped.env.deps), fingerprintBefore);
      assert.deepEqual(
        (await stopped.admin('GET', '/portfolios')).body.items.map((p: { unit_price: string }) => p.unit_price),
        priceBefore,
      );

      const finished = await finishRunningValuation(stopped.env.deps);
      assert.equal(finished?.id, Number(second?.id));
      assert.ok((finished?.rounds ?? 0) >= 2, 'the rest of its funds, then done');
      assert.equal(await finishRunningValuation(stopped.env.deps), undefined, 'nothing left to finish');
      assert.deepEqual(await outcome(stopped.env), await outcome(whole.env));
      assert.deepEqual(await failures(stopped.env), []);
      assert.notDeepEqual(
        (await stopped.admin('GET', '/portfolios')).body.items.map((p: { unit_price: string }) => p.unit_price),
        priceBefore,
        'the new price once done',
      );
      const donations = await stopped.env.deps.db.selectFrom('donations').select('status').execute();
      assert.deepEqual(
        donations.map((d) => d.status),
        ['scheduled'],
        'units were sold for the waiting donation',
      );
    });
  });

  describe(`runners at once on ${engine}`, () => {
    let whole: Platform;
    let racing: Platform;
    before(async () => {
      whole = await platform(engine);
      racing = await platform(engine);
    });
    after(async () => {
      await whole?.env.close();
      await racing?.env.close();
    });

    test('three runners finishing one valuation at once value each fund once, as one runner does', async () => {
      // A round of one fund at a time, so that the runners' rounds (on PostgreSQL, two of each
      // under way) meet on the same funds: whichever moves the cursor first commits, the others
      // write nothing and carry on from where it is.
      assert.equal((await whole.admin('POST', '/valuations', { at: NEXT })).status, 201);
      await assert.rejects(
        runValuation(racing.env.deps, NEXT, 'op', {
          afterRound: () => {
            throw new Crash();
          },
        }),
        Crash,
      );
      await Promise.all([1, 2, 3].map(() => finishRunningValuation(racing.env.deps, { fundsPerRound: 1 })));
      assert.equal(await finishRunningValuation(racing.env.deps), undefined, 'done');
      assert.deepEqual(await outcome(racing.env), await outcome(whole.env));
      assert.deepEqual(await failures(racing.env), []);
    });
  });

  describe(`what changes between rounds on ${engine}`, () => {
    // Each test runs the same valuation, so each has a platform of its own.
    let cancelling: Platform;
    let asking: Platform;
    before(async () => {
      cancelling = await platform(engine);
      asking = await platform(engine);
    });
    after(async () => {
      await cancelling?.env.close();
      await asking?.env.close();
    });

    test('an exchange cancelled between rounds is made whole or not at all', async () => {
      // Rounds of one fund: donor 0's fund, then donor 1's, whose exchange waits; the donor cancels
      // once the first round has committed. On SQLite the next round has not begun: not made. On
      // PostgreSQL it may be under way, holding the exchange it read: then the cancel waits for it
      // and finds the exchange made (404), or it came first and the round does not make it.
      const donor = cancelling.donors[1] as TestUser;
      const { db } = cancelling.env.deps;
      const held = await db.selectFrom('fund_units').select('portfolio_id').where('fund_id', '=', donor.fund_id).executeTakeFirstOrThrow();
      const exchange = await db.selectFrom('exchanges').select('to_portfolio_id').where('fund_id', '=', donor.fund_id).executeTakeFirstOrThrow();
      let cancel: number | undefined;
      const valuation = await runValuation(cancelling.env.deps, NEXT, 'op', {
        fundsPerRound: 1,
        afterRound: async (progress) => {
          if (progress.stage !== 'funds' || progress.afterFundId !== cancelling.donors[0]?.fund_id) return;
          const res = await call(cancelling.env.app, 'DELETE', '/v1/users/me/allocation/exchange', { key: donor.key });
          assert.ok(res.status === 200 || (engine === 'postgres' && res.status === 404 && res.body.code === 'exchange_not_found'), JSON.stringify(res.body));
          cancel = res.status;
        },
      });
      assert.ok(cancel !== undefined, 'asked between the rounds');
      const exchanges = await db.selectFrom('exchanges').select(['fund_id', 'status', 'valuation_id']).execute();
      const units = await db.selectFrom('fund_units').select(['portfolio_id']).where('fund_id', '=', donor.fund_id).executeTakeFirst();
      const record = await db.selectFrom('fund_valuations').select('portfolio_id').where('fund_id', '=', donor.fund_id).orderBy('valuation_id', 'desc').executeTakeFirstOrThrow();
      const to = exchange.to_portfolio_id === null ? null : Number(exchange.to_portfolio_id);
      const now = units === undefined ? null : Number(units.portfolio_id);
      if (cancel === 200) {
        assert.deepEqual(
          exchanges.map((e) => [Number(e.fund_id), e.status, e.valuation_id]),
          [[donor.fund_id, 'cancelled', null]],
        );
        assert.deepEqual([now, Number(record.portfolio_id)], [Number(held.portfolio_id), Number(held.portfolio_id)], 'its units stay in the portfolio it held');
      } else {
        assert.deepEqual(
          exchanges.map((e) => [Number(e.fund_id), e.status, Number(e.valuation_id)]),
          [[donor.fund_id, 'executed', Number(valuation.id)]],
        );
        assert.deepEqual([now, record.portfolio_id === null ? null : Number(record.portfolio_id)], [to, to], 'its units moved as the exchange asked');
      }
      assert.deepEqual(await failures(cancelling.env), []);
    });

    test('an exchange or a waiting donation asked for after its round was read early is made now or at the next valuation', async () => {
      // A fund's cut is where its round read it: on PostgreSQL while the round before wrote. Donor 2
      // (units, nothing pending) asks for an exchange and gives more than its available money once
      // donor 1's round has committed: each is made by this valuation (SQLite) or waits, whole, for
      // the next (PostgreSQL, read early); neither is lost, half made, or undone by the early read.
      const [, , donor] = asking.donors as [TestUser, TestUser, TestUser];
      const { db } = asking.env.deps;
      const mixed = (await asking.admin('GET', '/portfolios')).body.items.find((x: { name: string }) => x.name === 'Mixed').id as number;
      const held = await db.selectFrom('fund_units').select('portfolio_id').where('fund_id', '=', donor.fund_id).executeTakeFirstOrThrow();
      let donationId: string | undefined;
      const valuation = await runValuation(asking.env.deps, NEXT, 'op', {
        fundsPerRound: 1,
        afterRound: async (progress) => {
          if (progress.stage !== 'funds' || progress.afterFundId !== asking.donors[1]?.fund_id) return;
          const asked = await call(asking.env.app, 'PUT', '/v1/users/me/allocation', { key: donor.key, body: { portfolio_id: mixed, invest_share: 100 } });
          assert.equal(asked.status, 200, JSON.stringify(asked.body));
          const given = await call(asking.env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 300 } });
          assert.deepEqual([given.status, given.body.status], [201, 'waiting_for_funds'], JSON.stringify(given.body));
          donationId = given.body.id;
        },
      });
      assert.ok(donationId !== undefined, 'asked for between the rounds');
      assert.deepEqual(await failures(asking.env), [], 'the books hold after the valuation');

      const exchangeOf = () => db.selectFrom('exchanges').select(['status', 'valuation_id']).where('fund_id', '=', donor.fund_id).executeTakeFirstOrThrow();
      const unitsOf = async () => Number((await db.selectFrom('fund_units').select('portfolio_id').where('fund_id', '=', donor.fund_id).executeTakeFirstOrThrow()).portfolio_id);
      const donationOf = async () => (await call(asking.env.app, 'GET', `/v1/donations/${donationId}`, { key: donor.key })).body.status as string;
      const exchange = await exchangeOf();
      if (exchange.status === 'executed') {
        assert.deepEqual(
          [Number(exchange.valuation_id), await unitsOf(), await donationOf()],
          [Number(valuation.id), mixed, 'scheduled'],
          'made now: units in the new portfolio, the donation covered',
        );
      } else {
        assert.deepEqual([exchange.status, await unitsOf(), await donationOf()], ['pending', Number(held.portfolio_id), 'waiting_for_funds'], 'both wait: units where they were');
      }

      // The next valuation makes whatever waited.
      const LATER = '2026-11-02T21:30:00.000Z';
      assert.equal(
        (
          await asking.admin('POST', '/prices', {
            prices: [
              { symbol: 'VTI', price: '251', time: LATER },
              { symbol: 'BND', price: '72.4', time: LATER },
            ],
          })
        ).status,
        201,
      );
      assert.equal((await asking.admin('POST', '/valuations', { at: LATER })).status, 201);
      assert.deepEqual([(await exchangeOf()).status, await unitsOf(), await donationOf()], ['executed', mixed, 'scheduled']);
      assert.deepEqual(await failures(asking.env), []);
    });
  });
}
