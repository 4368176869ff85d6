// Every function of holdings.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { runStatements } from '../../db/bulk.ts';
import * as store from './holdings.store.ts';
import { outsideAccount } from '../ledger/index.ts';

describeEachEngine('holdings store', (env) => {
  test('allocations, units, exchanges and investments: set, read, ended once', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    assert.equal(await store.allocationOf(db, a.fund_id), undefined);
    await db.transaction().execute(async (trx) => {
      await store.setAllocation(trx, { fund_id: a.fund_id, portfolio_id: 1, invest_share: 50, updated_at: 't1' });
      await store.setAllocation(trx, { fund_id: a.fund_id, portfolio_id: null, invest_share: 20, updated_at: 't2' });
    });
    assert.deepEqual({ ...(await store.allocationOf(db, a.fund_id)), fund_id: 0 }, { fund_id: 0, portfolio_id: null, invest_share: 20, updated_at: 't2' });

    assert.equal(await store.unitsOf(db, a.fund_id), undefined);
    await db.transaction().execute(async (trx) => {
      await store.setUnits(trx, a.fund_id, { portfolio_id: 1, units: '1.00000000' });
      await store.setUnits(trx, a.fund_id, { portfolio_id: 2, units: '2.50000000' });
      await store.setUnits(trx, b.fund_id, { portfolio_id: 2, units: '3.00000000' });
    });
    assert.deepEqual([(await store.unitsOf(db, a.fund_id))?.units, Number((await store.unitsOf(db, a.fund_id))?.portfolio_id)], ['2.50000000', 2]);
    assert.deepEqual(
      (await store.unitsPage(db, 0, 10)).map((u) => u.units),
      ['2.50000000', '3.00000000'],
    );
    assert.deepEqual(
      (await store.unitsPage(db, a.fund_id, 10)).map((u) => u.units),
      ['3.00000000'],
    );

    const exchange = await db.transaction().execute((trx) => store.insertExchange(trx, { fund_id: a.fund_id, to_portfolio_id: null, created_at: 't3', actor_id: null }));
    assert.equal(Number((await store.pendingExchange(db, a.fund_id))?.id), exchange);
    await assert.rejects(
      db.transaction().execute((trx) => store.insertExchange(trx, { fund_id: a.fund_id, to_portfolio_id: 1, created_at: 't4', actor_id: null })),
      'one pending exchange per fund',
    );
    assert.deepEqual(
      await db
        .transaction()
        .execute(async (trx) => [await store.endExchange(trx, a.fund_id, 'executed', 't5', 9), await store.endExchange(trx, a.fund_id, 'cancelled', 't6', null)]),
      [true, false],
    );
    assert.equal(await store.pendingExchange(db, a.fund_id), undefined);

    await db.transaction().execute(async (trx) => {
      await store.insertInvestment(trx, { fund_id: b.fund_id, contribution_id: 1, amount_cents: 500, created_at: 't7' });
      await store.insertInvestment(trx, { fund_id: b.fund_id, contribution_id: 2, amount_cents: 700, created_at: 't8' });
    });
    const pending = await store.pendingInvestments(db, [a.fund_id, b.fund_id]);
    assert.deepEqual(
      pending.map((i) => Number(i.amount_cents)),
      [500, 700],
    );
    assert.deepEqual(await store.pendingInvestments(db, []), []);
    await db.transaction().execute((trx) => store.endInvestment(trx, Number(pending[0]?.id), { status: 'executed', bought_cents: 400, valuation_id: 9 }));
    assert.deepEqual(
      (await store.pendingInvestments(db, [b.fund_id])).map((i) => Number(i.amount_cents)),
      [700],
    );
    // Money the fund held, invested now: no contribution; only the pending ones count.
    assert.equal(await store.pendingHeldInvestments(db, b.fund_id), 0);
    await db.transaction().execute(async (trx) => {
      await store.insertInvestment(trx, { fund_id: b.fund_id, contribution_id: null, amount_cents: 300, created_at: 't8', actor_id: 'user:1' });
      await store.insertInvestment(trx, { fund_id: b.fund_id, contribution_id: null, amount_cents: 200, created_at: 't8', actor_id: 'user:1' });
    });
    assert.equal(await store.pendingHeldInvestments(db, b.fund_id), 500);
    const heldNow = (await store.pendingInvestments(db, [b.fund_id])).filter((i) => i.contribution_id === null);
    await db.transaction().execute((trx) => store.endInvestment(trx, Number(heldNow[0]?.id), { status: 'executed', bought_cents: 300, valuation_id: 9 }));
    assert.equal(await store.pendingHeldInvestments(db, b.fund_id), 200);
    assert.equal(await store.pendingHeldInvestments(db, a.fund_id), 0);

    // The funds a valuation acts on: units, a pending exchange or investment.
    const c = await makeUser(env().deps);
    await db.transaction().execute((trx) => store.insertExchange(trx, { fund_id: c.fund_id, to_portfolio_id: 1, created_at: 't9', actor_id: null }));
    assert.deepEqual(
      await store.fundsToValue(db, 0, 10),
      [a.fund_id, b.fund_id, c.fund_id].sort((x, y) => x - y),
    );
    assert.deepEqual(await store.fundsToValue(db, 0, 1), [Math.min(a.fund_id, b.fund_id, c.fund_id)]);
    const held = await store.holdingsOf(db, [a.fund_id, c.fund_id]);
    assert.deepEqual(
      [held.units.has(a.fund_id), held.units.has(c.fund_id), held.allocations.has(a.fund_id), held.exchanges.has(c.fund_id), held.exchanges.has(a.fund_id)],
      [true, false, true, true, false],
    );
    assert.equal((await store.holdingsOf(db, [])).units.size, 0);
    await db.transaction().execute((trx) => store.setUnits(trx, a.fund_id, null));
    assert.equal(await store.unitsOf(db, a.fund_id), undefined);
    // The valuation's batch form: units set for some funds, removed for others, in one go.
    await db.transaction().execute((trx) =>
      runStatements(trx, [
        ...store.unitsStatements(
          [
            [a.fund_id, 1, '4.00000000'],
            [c.fund_id, 2, '5.00000000'],
          ],
          [b.fund_id],
        ),
      ]),
    );
    assert.deepEqual(
      (await store.unitsPage(db, 0, 10)).map((u) => [Number(u.fund_id), Number(u.portfolio_id), u.units]),
      [
        [a.fund_id, 1, '4.00000000'],
        [c.fund_id, 2, '5.00000000'],
      ].sort((x, y) => (x[0] as number) - (y[0] as number)),
    );
  });

  test('waiting donations, balances, outside accounts made once, valuation records and fee totals', async () => {
    const { deps, app } = env();
    const { db } = deps;
    await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const donor = await makeUser(deps);
    await fund(deps, donor, 10_00);
    for (const amount of [50, 70])
      assert.equal((await call(app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount } })).body.status, 'waiting_for_funds');
    assert.deepEqual(await store.waitingDonations(db, [donor.fund_id]), new Map([[donor.fund_id, [50_00, 70_00]]]));
    assert.deepEqual(await store.waitingDonations(db, []), new Map());
    // Funds a monthly fee reaches: available money, or units.
    const idle = await makeUser(deps);
    assert.ok((await store.fundsWithMoney(db, 0, 100)).includes(donor.fund_id));
    assert.ok(!(await store.fundsWithMoney(db, 0, 100)).includes(idle.fund_id), 'a fund with nothing pays nothing');
    await db.transaction().execute((trx) => store.setUnits(trx, idle.fund_id, { portfolio_id: 1, units: '1.00000000' }));
    assert.ok((await store.fundsWithMoney(db, 0, 100)).includes(idle.fund_id));
    assert.deepEqual(await store.fundsWithMoney(db, Math.max(donor.fund_id, idle.fund_id), 100), []);
    assert.deepEqual(await store.portfolioBalances(db, [donor.fund_id]), new Map([[donor.fund_id, 0]]));
    assert.deepEqual(await store.portfolioBalances(db, []), new Map());
    // A valuation's read of funds whose money stays: the available and portfolio accounts only.
    const accounts = await db.selectFrom('ledger_accounts').select(['id', 'kind', 'balance_cents']).where('fund_id', '=', idle.fund_id).execute();
    const idOf = (kind: string) => Number(accounts.find((x) => x.kind === kind)?.id);
    const balanceOf = (kind: string) => Number(accounts.find((x) => x.kind === kind)?.balance_cents);
    const still = await store.stillAccounts(db, [idle.fund_id, donor.fund_id]);
    assert.deepEqual([...still.keys()].sort(), [donor.fund_id, idle.fund_id].sort());
    assert.deepEqual(still.get(idle.fund_id), {
      book: 'live',
      ids: { available: idOf('available'), portfolio: idOf('portfolio') },
      balances: { available_cents: balanceOf('available'), portfolio_cents: balanceOf('portfolio') },
    });
    assert.equal(still.get(donor.fund_id)?.balances.available_cents, 10_00, 'waiting donations hold nothing');
    assert.deepEqual(await store.stillAccounts(db, []), new Map());
    // The fees accounts the totals below read, made as a valuation makes them (the ledger's find-or-make).
    const [first, again, other] = await db
      .transaction()
      .execute(async (trx) => [await outsideAccount(trx, 'fees', 'live'), await outsideAccount(trx, 'fees', 'live'), await outsideAccount(trx, 'fees', 'test')]);
    assert.equal(first, again, 'made once');
    assert.notEqual(first, other, 'each book its own');
    const row = {
      valuation_id: 3,
      fund_id: donor.fund_id,
      book: 'live',
      portfolio_id: 1,
      units: '1.00000000',
      value_cents: 1000,
      fee_basis_units: '1.00000000',
      fee_ms: 86_400_000,
      fee_bps: 10,
      fee_units: '0.00000003',
      fee_cents: 0,
      gain_cents: 5,
      bought_cents: 0,
      sold_cents: 0,
    };
    await db.transaction().execute((trx) => store.insertFundValuations(trx, [row]));
    await db.transaction().execute((trx) => runStatements(trx, store.fundValuationStatements([{ ...row, valuation_id: 4, fee_cents: 2 }])));
    await db
      .transaction()
      .execute((trx) => runStatements(trx, store.monthlyFeeStatements([{ valuation_id: 4, fund_id: donor.fund_id, book: 'live', cents: 150, from_units: '0.00000000' }])));
    assert.deepEqual(
      (await store.fundValuationsOf(db, 3)).map((r) => [r.units, Number(r.gain_cents)]),
      [['1.00000000', 5]],
    );
    // The chart's history joins each record to its valuation's time, oldest first.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('valuations').values({ id: 3, at: '2026-10-01T21:00:00.000Z', created_at: 'x', created_by: 'test' }).execute();
      await trx.insertInto('valuations').values({ id: 4, at: '2026-10-02T21:00:00.000Z', created_at: 'x', created_by: 'test' }).execute();
    });
    assert.deepEqual(await store.valueHistory(db, donor.fund_id, 10), [
      { at: '2026-10-01T21:00:00.000Z', value_cents: 1000, units: '1.00000000' },
      { at: '2026-10-02T21:00:00.000Z', value_cents: 1000, units: '1.00000000' },
    ]);
    assert.deepEqual(
      (await store.valueHistory(db, donor.fund_id, 1)).map((r) => r.at),
      ['2026-10-02T21:00:00.000Z'],
    );
    assert.deepEqual(await store.valuationTotals(db, donor.fund_id, '2026-10-01T00:00:00.000Z', '2026-10-03T00:00:00.000Z'), { gains: 10, fees: 152 });
    assert.deepEqual(await store.valuationTotals(db, donor.fund_id, '2026-10-02T00:00:00.000Z', '2026-10-03T00:00:00.000Z'), { gains: 5, fees: 152 });
    assert.deepEqual(await store.valuationTotals(db, donor.fund_id, '2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z'), { gains: 0, fees: 0 });
    assert.deepEqual(
      (await store.fundValuationsOf(db, 4)).map((r) => Number(r.fee_cents)),
      [2],
    );
    assert.deepEqual(await store.feeTotals(db), [
      { book: 'live', recorded: 152, posted: 0 },
      { book: 'test', recorded: 0, posted: 0 },
    ]);
    // Which funds paid a monthly fee partly from units: not one that paid it all from available money.
    assert.deepEqual([...(await store.paidFeeFromUnits(db, 4))], []);
    const payer = await makeUser(deps);
    await db
      .transaction()
      .execute((trx) => runStatements(trx, store.monthlyFeeStatements([{ valuation_id: 4, fund_id: payer.fund_id, book: 'live', cents: 150, from_units: '0.01500000' }])));
    assert.deepEqual([...(await store.paidFeeFromUnits(db, 4))], [payer.fund_id]);
    assert.deepEqual([...(await store.paidFeeFromUnits(db, 5))], []);
  });
});
