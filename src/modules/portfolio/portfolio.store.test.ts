// Every function of portfolio.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine } from '../../../test/harness.ts';
import * as store from './portfolio.store.ts';

describeEachEngine('portfolio store', (env) => {
  test('portfolios: one per name, found, listed, retired once', async () => {
    const { db } = env().deps;
    const row = { name: 'Balanced', description: '', risk: 'medium', fee_bps: 15, holdings: '[{"symbol":"VTI","weight":100}]', created_at: '2026-10-01T00:00:00Z' };
    const id = (await db.transaction().execute((trx) => store.insertPortfolio(trx, row))) as number;
    assert.ok(id > 0);
    assert.equal(await db.transaction().execute((trx) => store.insertPortfolio(trx, row)), undefined, 'a name is taken once');
    const other = (await db.transaction().execute((trx) => store.insertPortfolio(trx, { ...row, name: 'Growth' }))) as number;
    assert.equal((await store.findPortfolio(db, id))?.status, 'active');
    assert.deepEqual(
      await db
        .transaction()
        .execute(async (trx) => [await store.retirePortfolio(trx, other, '2026-10-02T00:00:00Z'), await store.retirePortfolio(trx, other, '2026-10-03T00:00:00Z')]),
      [true, false],
    );
    assert.deepEqual(
      (await store.listPortfolios(db, true)).map((p) => Number(p.id)),
      [id],
    );
    assert.deepEqual(
      (await store.listPortfolios(db, false)).map((p) => Number(p.id)),
      [id, other],
    );
  });

  test('prices: stored pairs found, the latest at or before a time; valuations after the last, their unit prices', async () => {
    const { db } = env().deps;
    const imported_at = '2026-10-05T00:00:00Z';
    await db.transaction().execute((trx) =>
      store.insertPrices(trx, [
        { symbol: 'VTI', at: '2026-10-01T21:00:00.000Z', price: '250.00000000', imported_at },
        { symbol: 'VTI', at: '2026-10-02T21:00:00.000Z', price: '251.50000000', imported_at },
        { symbol: 'BND', at: '2026-10-02T21:00:00.000Z', price: '72.10000000', imported_at },
      ]),
    );
    assert.deepEqual(
      (
        await store.storedPrices(db, [
          { symbol: 'VTI', at: '2026-10-02T21:00:00.000Z' },
          { symbol: 'BND', at: '2026-10-01T21:00:00.000Z' },
        ])
      ).map((p) => `${p.symbol} ${p.at}`),
      ['VTI 2026-10-02T21:00:00.000Z'],
    );
    const at = await store.pricesAt(db, ['VTI', 'BND', 'GLD'], '2026-10-02T12:00:00.000Z');
    assert.deepEqual([...at], [['VTI', { price: '250.00000000', at: '2026-10-01T21:00:00.000Z' }]]);
    assert.equal((await store.pricesAt(db, ['VTI'], '2026-10-03T00:00:00.000Z')).get('VTI')?.price, '251.50000000');

    assert.equal(await store.lastValuation(db), undefined);
    const first = (await db
      .transaction()
      .execute((trx) => store.insertValuation(trx, { at: '2026-10-01T21:00:00.000Z', created_at: imported_at, created_by: 'op', stage: 'done', monthly_fee_cents: 0 }))) as number;
    assert.equal(
      await db
        .transaction()
        .execute((trx) => store.insertValuation(trx, { at: '2026-10-01T21:00:00.000Z', created_at: imported_at, created_by: 'op', stage: 'done', monthly_fee_cents: 0 })),
      undefined,
    );
    const second = (await db
      .transaction()
      .execute((trx) => store.insertValuation(trx, { at: '2026-10-02T21:00:00.000Z', created_at: imported_at, created_by: 'op', stage: 'done', monthly_fee_cents: 0 }))) as number;
    assert.deepEqual(await store.lastValuation(db), { id: second, at: '2026-10-02T21:00:00.000Z' });
    await db.transaction().execute(async (trx) => {
      await store.insertPortfolioValuations(trx, [
        { valuation_id: first, portfolio_id: 7, unit_price: '10.00000000', prices: '{"VTI":"250.00000000"}', units_outstanding: '0.00000000' },
      ]);
      await store.insertPortfolioValuations(trx, [
        { valuation_id: second, portfolio_id: 7, unit_price: '10.06000000', prices: '{"VTI":"251.50000000"}', units_outstanding: '0.00000000' },
      ]);
      await store.insertPortfolioValuations(trx, []);
    });
    assert.deepEqual(
      await store.latestUnitPrices(db, [7, 8]),
      new Map([[7, { unit_price: '10.06000000', prices: '{"VTI":"251.50000000"}', at: '2026-10-02T21:00:00.000Z', units_outstanding: '0.00000000' }]]),
    );
  });

  test("a running valuation: found, its progress kept, its prices and units outstanding read; not yet a portfolio's latest", async () => {
    const { db } = env().deps;
    const row = { name: 'Rounds', description: '', risk: 'low', fee_bps: 25, holdings: '[{"symbol":"BND","weight":100}]', created_at: '2026-10-01T00:00:00Z' };
    const portfolio = (await db.transaction().execute((trx) => store.insertPortfolio(trx, row))) as number;
    const made = (at: string, stage: 'funds' | 'done') =>
      db.transaction().execute(async (trx) => {
        const id = (await store.insertValuation(trx, { at, created_at: at, created_by: 'op', stage, monthly_fee_cents: 500 })) as number;
        await store.insertPortfolioValuations(trx, [
          { valuation_id: id, portfolio_id: portfolio, unit_price: stage === 'done' ? '10.00000000' : '10.50000000', prices: '{}', units_outstanding: '0.00000000' },
        ]);
        return id;
      });
    const done = await made('2026-11-01T21:00:00.000Z', 'done');
    assert.equal(await store.runningValuation(db), undefined);
    const running = await made('2026-11-02T21:00:00.000Z', 'funds');
    assert.equal(await store.valuationBefore(db, '2026-11-02T21:00:00.000Z'), '2026-11-01T21:00:00.000Z');
    assert.equal(await store.valuationBefore(db, '2026-01-01T00:00:00.000Z'), undefined);
    assert.equal(Number((await store.runningValuation(db))?.id), running);
    assert.equal((await store.latestUnitPrices(db, [portfolio])).get(portfolio)?.unit_price, '10.00000000', "a running valuation's price is not yet the latest");
    await db.transaction().execute(async (trx) => {
      await store.updateValuation(trx, running, { after_fund_id: 42, audit_ids: '{"live":1,"test":2}' });
      await store.setUnitsOutstanding(trx, running, portfolio, '12.50000000');
    });
    const found = await store.findValuation(db, running);
    assert.deepEqual([found?.stage, found?.after_fund_id, found?.audit_ids, found?.monthly_fee_cents], ['funds', 42, '{"live":1,"test":2}', 500]);
    // The cursor moves only from where it is, in its stage: a round that finds it elsewhere moves nothing.
    const advance = (stage: 'monthly_fees' | 'funds', from: number, to: number) => db.transaction().execute((trx) => store.advanceValuation(trx, running, stage, from, to));
    assert.deepEqual([await advance('funds', 40, 50), await advance('monthly_fees', 42, 50)], [false, false]);
    assert.equal((await store.findValuation(db, running))?.after_fund_id, 42);
    assert.deepEqual([await advance('funds', 42, 50), await advance('funds', 42, 60)], [true, false]);
    assert.equal((await store.findValuation(db, running))?.after_fund_id, 50);
    assert.deepEqual(await store.portfolioValuationsOf(db, running), [{ portfolio_id: portfolio, unit_price: '10.50000000', units_outstanding: '12.50000000', fee_bps: 25 }]);
    await db.transaction().execute((trx) => store.updateValuation(trx, running, { stage: 'done' }));
    assert.equal(await store.runningValuation(db), undefined);
    assert.equal((await store.latestUnitPrices(db, [portfolio])).get(portfolio)?.unit_price, '10.50000000');
    assert.equal(await store.findValuation(db, done + running + 1), undefined);
  });
});
