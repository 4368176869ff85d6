// Funds in portfolios (docs/rules.md §19) on both engines: three donors in
// three portfolios over 30 simulated days of prices, with contributions that
// buy units, a donation that needs units sold, an exchange, an exchange
// cancelled, and the annual fee. After every valuation each fund's units,
// portfolio balance and available money equal a model computed here with
// big.js (decimal arithmetic the code does not use), and `almoner check`
// holds. Bad allocations change nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Big from 'big.js';
import { engines, openEnv, makeUser, makeNonProfit, fund, call, fingerprint, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { runCheck } from '../src/modules/check/index.ts';

Big.DP = 40;
const HALF_EVEN = Big.roundHalfEven;
const PORTFOLIOS = [
  {
    name: 'Conservative',
    risk_level: 'low',
    annual_fee_bps: 10,
    holdings: [
      { symbol: 'BND', weight: 70 },
      { symbol: 'VTI', weight: 30 },
    ],
  },
  {
    name: 'Balanced',
    risk_level: 'medium',
    annual_fee_bps: 15,
    holdings: [
      { symbol: 'VTI', weight: 50 },
      { symbol: 'BND', weight: 50 },
    ],
  },
  {
    name: 'Growth',
    risk_level: 'high',
    annual_fee_bps: 25,
    holdings: [
      { symbol: 'VTI', weight: 80 },
      { symbol: 'VNQ', weight: 20 },
    ],
  },
];
const SYMBOLS = ['VTI', 'BND', 'VNQ'];
const DAY_MS = 86_400_000;
const YEAR_MS = new Big(365 * DAY_MS);

/** Prices of a seeded walk (a linear congruential generator: the same every run). */
function prices(days: number): Array<Record<string, string>> {
  let state = 42;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  let now: Record<string, Big> = { VTI: new Big('250'), BND: new Big('72.5'), VNQ: new Big('88.125') };
  const out: Array<Record<string, string>> = [];
  for (let d = 0; d < days; d++) {
    now = Object.fromEntries(SYMBOLS.map((s) => [s, (now[s] as Big).times(new Big(1).plus(new Big(Math.round((next() - 0.5) * 600)).div(10_000))).round(8, HALF_EVEN)]));
    out.push(Object.fromEntries(SYMBOLS.map((s) => [s, (now[s] as Big).toFixed(8)])));
  }
  return out;
}

interface ModelFund {
  portfolio: number | null;
  units: Big;
  value: number;
  available: number;
  reserved: number;
  waiting: number[];
  investments: number[];
  share: number;
  chosen: number | null;
  exchange: { to: number | null } | null;
}

const cents = (dollars: Big) => Number(dollars.times(100).round(0, HALF_EVEN).toFixed(0));
const valueOf = (units: Big, price: Big) => cents(units.times(price));
const unitsFor = (c: number, price: Big) => new Big(c).div(100).div(price).round(8, HALF_EVEN);

for (const { name: engine } of engines()) {
  describe(`funds in portfolios over 30 days on ${engine}`, () => {
    let env: TestEnv;
    let operator: string;
    const clock = new TestClock('2026-10-01T22:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const at = (d: number) => new Date(Date.parse('2026-10-01T21:00:00.000Z') + d * DAY_MS).toISOString();
    const ids: number[] = [];
    const walk = prices(31);
    const units = new Map<number, { price: Big; prices: Record<string, string>; bps: number }>();
    let donors: TestUser[] = [];
    const model: ModelFund[] = [];
    let lastAt: number | null = null;

    before(async () => {
      // A round of one fund: the model holds whatever the rounds (rules §19).
      env = await openEnv(engine, { schedulerIntervalMs: 0, notifyIntervalMs: 0, sandboxTickMs: 0, valuationRoundFunds: 1 }, { clock });
      operator = (await createAdminToken(env.deps, 'investing test', 'test')).token;
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      for (const p of PORTFOLIOS) ids.push((await admin('POST', '/portfolios', { description: '', ...p })).body.id);
      donors = [await makeUser(env.deps), await makeUser(env.deps), await makeUser(env.deps)];
      for (let i = 0; i < 3; i++)
        model.push({ portfolio: null, units: new Big(0), value: 0, available: 0, reserved: 0, waiting: [], investments: [], share: 0, chosen: null, exchange: null });
    });
    after(async () => env.close());

    /** The model of one valuation at day d (rules §19, step by step). */
    function modelValuation(d: number): void {
      const ms = lastAt === null ? new Big(0) : new Big(Date.parse(at(d)) - lastAt);
      for (const [i, p] of PORTFOLIOS.entries()) {
        const id = ids[i] as number;
        const before = units.get(id);
        const now = walk[d] as Record<string, string>;
        if (before === undefined) units.set(id, { price: new Big(10), prices: now, bps: p.annual_fee_bps });
        else {
          const factor = p.holdings.reduce(
            (s, h) =>
              s.plus(
                new Big(h.weight)
                  .div(100)
                  .times(new Big(now[h.symbol] as string))
                  .div(new Big(before.prices[h.symbol] as string)),
              ),
            new Big(0),
          );
          units.set(id, { price: before.price.times(factor).round(8, HALF_EVEN), prices: now, bps: p.annual_fee_bps });
        }
      }
      for (const f of model) {
        const price = () => (units.get(f.portfolio as number) as { price: Big }).price;
        const mark = () => {
          if (f.portfolio !== null) f.value = valueOf(f.units, price());
        };
        mark();
        if (f.portfolio !== null) {
          const bps = (units.get(f.portfolio) as { bps: number }).bps;
          const fee = f.units.times(bps).div(10_000).times(ms).div(YEAR_MS).round(8, HALF_EVEN);
          if (fee.gt(0)) {
            f.units = f.units.minus(fee);
            f.value -= valueOf(fee, price());
            mark();
          }
        }
        if (f.exchange !== null) {
          if (f.exchange.to === null) {
            f.available += f.value;
            f.value = 0;
            f.units = new Big(0);
            f.portfolio = null;
          } else if (f.exchange.to !== f.portfolio) {
            f.portfolio = f.exchange.to;
            f.units = unitsFor(f.value, price());
            mark();
          }
          f.exchange = null;
        }
        let covered = 0;
        for (const w of f.waiting) if (covered + w <= f.available + f.value) covered += w;
        if (f.portfolio !== null && covered > f.available && f.value > 0) {
          const need = Math.min(covered - f.available, f.value);
          const sold = need === f.value ? f.units : unitsFor(need, price()).gt(f.units) ? f.units : unitsFor(need, price());
          f.available += need;
          f.value -= need;
          f.units = f.units.minus(sold);
          mark();
          // Waiting donations are scheduled oldest first, each the money now covers.
          const still: number[] = [];
          for (const w of f.waiting) {
            if (w <= f.available) {
              f.available -= w;
              f.reserved += w;
            } else still.push(w);
          }
          f.waiting = still;
        }
        for (const amount of f.investments) {
          const spare = Math.max(0, f.available - f.waiting.reduce((n, w) => n + w, 0));
          const bought = f.chosen === null || (f.portfolio !== null && f.portfolio !== f.chosen) ? 0 : Math.min(amount, spare);
          if (bought > 0) {
            f.available -= bought;
            f.value += bought;
            f.portfolio = f.chosen;
            f.units = f.units.plus(unitsFor(bought, price()));
          }
        }
        f.investments = [];
        mark();
        if (f.portfolio !== null && f.units.eq(0)) f.portfolio = null;
      }
      lastAt = Date.parse(at(d));
    }

    const contribute = async (i: number, c: number) => {
      await fund(env.deps, donors[i] as TestUser, c);
      const f = model[i] as ModelFund;
      f.available += c;
      if (f.chosen !== null && f.share > 0) f.investments.push(Number(new Big(c).times(f.share).div(100).round(0, HALF_EVEN).toFixed(0)));
    };
    const allocate = async (i: number, portfolio: number | null, share: number) => {
      const res = await call(env.app, 'PUT', '/v1/users/me/allocation', { key: (donors[i] as TestUser).key, body: { portfolio_id: portfolio, invest_share: share } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const f = model[i] as ModelFund;
      f.share = share;
      f.chosen = portfolio;
      f.exchange = (f.portfolio !== null || f.value > 0) && portfolio !== f.portfolio ? { to: portfolio } : null;
      return res.body;
    };
    const value = async (d: number) => {
      clock.set(new Date(Date.parse(at(d)) + 60_000).toISOString());
      const day = walk[d] as Record<string, string>;
      assert.equal((await admin('POST', '/prices', { prices: SYMBOLS.map((s) => ({ symbol: s, price: day[s], time: at(d) })) })).status, 201);
      const res = await admin('POST', '/valuations', { at: at(d) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      modelValuation(d);
      for (const [i, donor] of donors.entries()) {
        const f = model[i] as ModelFund;
        const balance = (await call(env.app, 'GET', '/v1/users/me/balance', { key: donor.key })).body;
        const allocation = (await call(env.app, 'GET', '/v1/users/me/allocation', { key: donor.key })).body;
        assert.deepEqual(
          { units: allocation.units, portfolio: balance.portfolio_balance, available: balance.available_balance, amount: balance.amount },
          { units: f.units.toFixed(8), portfolio: f.value / 100, available: f.available / 100, amount: (f.value + f.available + f.reserved) / 100 },
          `donor ${i} after the valuation of day ${d}`,
        );
      }
      assert.deepEqual(
        (await runCheck(env.deps)).flatMap((c) => c.failures),
        [],
        `almoner check after day ${d}`,
      );
    };

    test('bad allocations are refused and change nothing', async () => {
      await admin('POST', '/portfolios', { name: 'Retired', description: '', risk_level: 'low', annual_fee_bps: 5, holdings: [{ symbol: 'BND', weight: 100 }] });
      const retired = (await admin('GET', '/portfolios')).body.items.find((p: { name: string }) => p.name === 'Retired');
      await admin('POST', `/portfolios/${retired.id}/retire`, {});
      const key = (donors[0] as TestUser).key;
      const before = await fingerprint(env.deps);
      for (const [body, status, code] of [
        [{ portfolio_id: ids[0], invest_share: 101 }, 422, 'validation_failed'],
        [{ portfolio_id: ids[0], invest_share: -1 }, 422, 'validation_failed'],
        [{ portfolio_id: ids[0], invest_share: 12.5 }, 422, 'validation_failed'],
        [{ portfolio_id: 999_999, invest_share: 50 }, 422, 'portfolio_not_found'],
        [{ portfolio_id: retired.id, invest_share: 50 }, 422, 'portfolio_retired'],
        [{ invest_share: 50 }, 422, 'validation_failed'],
      ] as const) {
        const res = await call(env.app, 'PUT', '/v1/users/me/allocation', { key, body });
        assert.deepEqual([res.status, res.body.code], [status, code], JSON.stringify(body));
      }
      assert.deepEqual((await call(env.app, 'DELETE', '/v1/users/me/allocation/exchange', { key })).body.code, 'exchange_not_found');
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('thirty days: contributions buy units, a donation sells them, an exchange, a cancelled exchange, fees; every balance is the model', async () => {
      await value(0);
      await allocate(0, ids[0] as number, 100);
      await allocate(1, ids[1] as number, 50);
      await allocate(2, ids[2] as number, 100);
      await contribute(0, 10_000_00);
      await contribute(1, 8_000_00);
      await contribute(2, 12_345_67);
      const waiting = (await call(env.app, 'GET', '/v1/users/me/allocation', { key: (donors[1] as TestUser).key })).body;
      assert.equal(waiting.pending_investment, 4_000, 'half of the contribution waits for the valuation');
      for (let d = 1; d <= 30; d++) {
        if (d === 3) await contribute(2, 5_000_00);
        if (d === 10) {
          // All of donor 0's money is in units: the donation waits, and the next valuation sells units for it.
          const res = await call(env.app, 'POST', '/v1/donations', { key: (donors[0] as TestUser).key, body: { ein: '261544963', amount: 600 } });
          assert.deepEqual([res.status, res.body.status], [201, 'waiting_for_funds']);
          (model[0] as ModelFund).waiting.push(600_00);
        }
        if (d === 15) {
          const asked = await allocate(1, ids[2] as number, 50);
          assert.equal(asked.pending_exchange?.to_portfolio_id, ids[2], 'the exchange waits, visible');
        }
        if (d === 20) {
          await allocate(2, null, 0);
          const cancelled = await call(env.app, 'DELETE', '/v1/users/me/allocation/exchange', { key: (donors[2] as TestUser).key });
          assert.deepEqual([cancelled.status, cancelled.body.pending_exchange, cancelled.body.portfolio_id], [200, null, ids[2]]);
          const f = model[2] as ModelFund;
          f.exchange = null;
          f.chosen = ids[2] as number;
        }
        if (d === 25) await allocate(1, ids[2] as number, 0);
        await value(d);
      }
      const donations = (await call(env.app, 'GET', '/v1/donations', { key: (donors[0] as TestUser).key })).body;
      assert.equal(donations[0]?.status ?? donations.items?.[0]?.status, 'scheduled', 'the waiting donation was covered by units sold');
      assert.ok((model[1] as ModelFund).portfolio === ids[2], 'donor 1 moved to Growth');
      const fees = await env.deps.db.selectFrom('ledger_accounts').select('balance_cents').where('kind', '=', 'fees').where('book', '=', 'live').executeTakeFirstOrThrow();
      assert.ok(Number(fees.balance_cents) > 0, 'the fee accrued');
      // The statements say what each fund gained and paid: together, what the market and fees accounts hold.
      const markets = await env.deps.db.selectFrom('ledger_accounts').select('balance_cents').where('kind', 'like', 'market:%').where('book', '=', 'live').execute();
      const statements = await Promise.all(donors.map(async (d) => (await call(env.app, 'GET', '/v1/tax_statements?from=2026-01-01&to=2026-12-31', { key: d.key })).body));
      const cents = (dollars: number) => Math.round(dollars * 100);
      assert.equal(
        statements.reduce((n, s) => n + cents(s.investment_fees), 0),
        Number(fees.balance_cents),
      );
      assert.equal(
        statements.reduce((n, s) => n + cents(s.investment_gains), 0),
        -markets.reduce((n, m) => n + Number(m.balance_cents), 0),
      );
      assert.match(statements[0].investment_note, /not taxed/);
    });

    test('money invested by hand cannot be moved by hand once the fund chose a portfolio', async () => {
      const user = (await admin('GET', '/users?per_page=100')).body.items[0];
      const res = await admin('POST', `/users/${user.id}/portfolio`, { move: 'invest', amount: 1 });
      assert.deepEqual([res.status, res.body.code], [409, 'fund_holds_units']);
    });
  });
}
