// Portfolios, prices and valuations (docs/rules.md §19) on both engines: an
// operator offers three portfolios, imports 30 days of prices from a seeded
// random walk, and values them each day; every unit price equals a model
// computed here with big.js (decimal arithmetic the code does not use),
// rounded half-even to 8 places once per valuation. Bad input changes nothing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Big from 'big.js';
import { engines, openEnv, makeUser, call, fingerprint, TestClock, type TestEnv } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { seededRandom } from '../src/demo/prices.ts';

const SYMBOLS = ['VTI', 'VXUS', 'BND', 'BNDX', 'VNQ'] as const;
const PORTFOLIOS = [
  {
    name: 'Conservative',
    risk_level: 'low',
    annual_fee_bps: 10,
    holdings: [
      { symbol: 'BND', weight: 60 },
      { symbol: 'BNDX', weight: 20 },
      { symbol: 'VTI', weight: 20 },
    ],
  },
  {
    name: 'Balanced',
    risk_level: 'medium',
    annual_fee_bps: 15,
    holdings: [
      { symbol: 'VTI', weight: 40 },
      { symbol: 'VXUS', weight: 20 },
      { symbol: 'BND', weight: 40 },
    ],
  },
  {
    name: 'Growth',
    risk_level: 'high',
    annual_fee_bps: 20,
    holdings: [
      { symbol: 'VTI', weight: 55 },
      { symbol: 'VXUS', weight: 30 },
      { symbol: 'VNQ', weight: 15 },
    ],
  },
];

/** A seeded random walk: the same prices on every run. */
function walk(seed: number, days: number): Array<Record<string, string>> {
  const random = seededRandom(seed);
  let prices = new Map<string, Big>(SYMBOLS.map((s, i) => [s, new Big(50 + i * 23.5)]));
  const out: Array<Record<string, string>> = [];
  for (let d = 0; d < days; d++) {
    prices = new Map([...prices].map(([s, p]) => [s, p.times(new Big(1).plus(new Big(Math.round((random() - 0.5) * 400)).div(10_000))).round(8, Big.roundHalfEven)]));
    out.push(Object.fromEntries([...prices].map(([s, p]) => [s, p.toFixed(8)])));
  }
  return out;
}

/** The model: unit × Σ weight/100 × price/previous, rounded half-even to 8 places once. */
function modelUnit(unit: Big, holdings: ReadonlyArray<{ symbol: string; weight: number }>, previous: Record<string, string>, prices: Record<string, string>): Big {
  Big.DP = 40;
  const factor = holdings.reduce(
    (sum, h) =>
      sum.plus(
        new Big(h.weight)
          .div(100)
          .times(new Big(prices[h.symbol] as string))
          .div(new Big(previous[h.symbol] as string)),
      ),
    new Big(0),
  );
  return unit.times(factor).round(8, Big.roundHalfEven);
}

for (const { name: engine } of engines()) {
  describe(`portfolios, prices and valuations on ${engine}`, () => {
    let env: TestEnv;
    let operator: string;
    const clock = new TestClock('2026-10-01T12:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });
    const day = (d: number) => new Date(Date.parse('2026-10-01T21:00:00.000Z') + d * 86_400_000).toISOString();
    const days = walk(20261127, 30);
    const ids: number[] = [];

    before(async () => {
      env = await openEnv(engine, {}, { clock });
      operator = (await createAdminToken(env.deps, 'portfolios test', 'test')).token;
    });
    after(async () => env.close());

    test('an operator offers portfolios; bad ones are refused whole and write nothing', async () => {
      const before = await fingerprint(env.deps);
      for (const [body, field] of [
        [
          {
            ...PORTFOLIOS[0],
            holdings: [
              { symbol: 'BND', weight: 60 },
              { symbol: 'VTI', weight: 30 },
            ],
          },
          'holdings',
        ],
        [{ ...PORTFOLIOS[0], holdings: [{ symbol: 'bnd!', weight: 100 }] }, 'holdings'],
        [
          {
            ...PORTFOLIOS[0],
            holdings: [
              { symbol: 'BND', weight: 50 },
              { symbol: 'BND', weight: 50 },
            ],
          },
          'holdings',
        ],
        [{ ...PORTFOLIOS[0], holdings: [] }, 'holdings'],
        [{ ...PORTFOLIOS[0], annual_fee_bps: 501 }, 'annual_fee_bps'],
        [{ ...PORTFOLIOS[0], risk_level: 'wild' }, 'risk_level'],
        [{ ...PORTFOLIOS[0], name: ' ' }, 'name'],
      ] as const) {
        const res = await admin('POST', '/portfolios', { description: '', ...body });
        assert.deepEqual([res.status, res.body.code, res.body.errors?.[0]?.field], [422, 'validation_failed', field], JSON.stringify(body));
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      for (const p of PORTFOLIOS) {
        const made = await admin('POST', '/portfolios', { description: `${p.name} pool`, ...p });
        assert.equal(made.status, 201);
        assert.deepEqual([made.body.name, made.body.unit_price, made.body.status], [p.name, null, 'active']);
        ids.push(made.body.id);
      }
      const twice = await admin('POST', '/portfolios', { description: '', ...PORTFOLIOS[0] });
      assert.deepEqual([twice.status, twice.body.code], [409, 'portfolio_exists']);
    });

    test('a price file with a missing symbol, a zero or negative price, a duplicate row or a future time is refused whole', async () => {
      const before = await fingerprint(env.deps);
      const head = 'symbol,price,time\n';
      for (const [file, reason] of [
        [`${head},10.00,2026-09-30T21:00:00Z\n`, /symbol "" is not a symbol/],
        [`${head}VTI,0,2026-09-30T21:00:00Z\n`, /price "0" is not a positive amount/],
        [`${head}VTI,-3.50,2026-09-30T21:00:00Z\n`, /price "-3.50" is not a positive amount/],
        [`${head}VTI,1.123456789,2026-09-30T21:00:00Z\n`, /at most 8 decimals/],
        [`${head}VTI,10,2026-09-30T21:00:00Z\nVTI,11,2026-09-30T21:00:00Z\n`, /VTI at 2026-09-30T21:00:00.000Z is listed twice/],
        [`${head}VTI,10,2026-12-01T00:00:00Z\n`, /is still to come/],
        [`${head}VTI,10,yesterday\n`, /is not a time/],
        ['symbol,price\nVTI,10\n', /the header lacks time/],
        [head, /no price is listed/],
      ] as const) {
        const { importPriceFile } = await import('../src/modules/portfolio/index.ts');
        await assert.rejects(importPriceFile(env.deps, file, 'test'), (error: { code: string; errors: Array<{ message: string }> }) => {
          assert.equal(error.code, 'prices_malformed');
          assert.match(error.errors.map((e) => e.message).join('\n'), reason, file);
          return true;
        });
      }
      const api = await admin('POST', '/prices', {
        prices: [
          { symbol: 'VTI', price: '10', time: '2026-09-30T21:00:00Z' },
          { symbol: 'VTI', price: 'ten', time: '2026-10-01T22:00:00Z' },
        ],
      });
      assert.deepEqual([api.status, api.body.code, api.body.errors[0].field], [422, 'prices_malformed', 'line 2']);
      assert.deepEqual(await fingerprint(env.deps), before);
    });

    test('thirty days of prices, valued each day: every unit price is the model, half-even once; errors change nothing', async () => {
      const valuationAt = (d: number) => day(d);
      // Nothing to value at before any price: price_missing names the portfolios and their symbols.
      clock.set(valuationAt(0));
      const early = await admin('POST', '/valuations', {});
      assert.deepEqual([early.status, early.body.code], [422, 'price_missing']);
      assert.match(early.body.detail, /Conservative: BND, BNDX, VTI/);
      const model = new Map<number, { unit: Big; prices: Record<string, string> }>();
      for (const [d, prices] of days.entries()) {
        clock.set(new Date(Date.parse(valuationAt(d)) + 60_000).toISOString());
        const imported = await admin('POST', '/prices', { prices: Object.entries(prices).map(([symbol, price]) => ({ symbol, price, time: valuationAt(d) })) });
        assert.equal(imported.status, 201, JSON.stringify(imported.body));
        const valued = await admin('POST', '/valuations', { at: valuationAt(d) });
        assert.equal(valued.status, 201, JSON.stringify(valued.body));
        for (const [i, p] of PORTFOLIOS.entries()) {
          const id = ids[i] as number;
          const last = model.get(id);
          const unit = last === undefined ? new Big('10') : modelUnit(last.unit, p.holdings, last.prices, prices);
          model.set(id, { unit, prices });
          const got = (valued.body.portfolios as Array<{ id: number; unit_price: string }>).find((v) => v.id === id);
          assert.equal(got?.unit_price, unit.toFixed(8), `${p.name} on day ${d}`);
        }
      }
      // The units moved: the walk is not flat.
      assert.ok(new Set([...model.values()].map((m) => m.unit.toFixed(8))).size === 3);

      const before = await fingerprint(env.deps);
      const again = await admin('POST', '/valuations', { at: valuationAt(29) });
      assert.deepEqual([again.status, again.body.code], [409, 'valuation_not_after_last']);
      const future = await admin('POST', '/valuations', { at: '2027-01-01T00:00:00Z' });
      assert.deepEqual([future.status, future.body.code], [422, 'valuation_in_future']);
      const garbage = await admin('POST', '/valuations', { at: 'soon' });
      assert.deepEqual([garbage.status, garbage.body.code], [422, 'validation_failed']);
      assert.deepEqual(await fingerprint(env.deps), before);

      const donor = await makeUser(env.deps);
      const listed = await call(env.app, 'GET', '/v1/portfolios', { key: donor.key });
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.items.map((p: { name: string; unit_price: string; valued_at: string }) => [p.name, p.unit_price, p.valued_at]),
        PORTFOLIOS.map((p, i) => [p.name, model.get(ids[i] as number)?.unit.toFixed(8), valuationAt(29)]),
      );
      assert.deepEqual(listed.body.meta, { count: 3, page: 1, last: 1 });
    });

    test('a retired portfolio is no longer offered and is still valued; a new one without prices stops the valuation', async () => {
      const retired = await admin('POST', `/portfolios/${ids[2]}/retire`, {});
      assert.deepEqual([retired.status, retired.body.status], [200, 'retired']);
      assert.equal((await admin('POST', `/portfolios/${ids[2]}/retire`, {})).body.code, 'portfolio_retired');
      assert.equal((await admin('POST', '/portfolios/999999/retire', {})).body.code, 'portfolio_not_found');
      const donor = await makeUser(env.deps);
      assert.deepEqual(
        (await call(env.app, 'GET', '/v1/portfolios', { key: donor.key })).body.items.map((p: { name: string }) => p.name),
        ['Conservative', 'Balanced'],
      );
      assert.equal((await admin('GET', '/portfolios')).body.items.length, 3);
      const made = await admin('POST', '/portfolios', { name: 'Gold', description: '', risk_level: 'high', annual_fee_bps: 25, holdings: [{ symbol: 'GLD', weight: 100 }] });
      assert.equal(made.status, 201);
      clock.set(day(31));
      const before = await fingerprint(env.deps);
      const stopped = await admin('POST', '/valuations', { at: day(30) });
      assert.deepEqual([stopped.status, stopped.body.code], [422, 'price_missing']);
      assert.match(stopped.body.detail, /Gold: GLD/);
      assert.deepEqual(await fingerprint(env.deps), before);
      await admin('POST', '/prices', { prices: [{ symbol: 'GLD', price: '180.25', time: day(30) }] });
      const valued = await admin('POST', '/valuations', { at: day(30) });
      assert.equal(valued.status, 201);
      const units = Object.fromEntries((valued.body.portfolios as Array<{ name: string; unit_price: string }>).map((p) => [p.name, p.unit_price]));
      assert.equal(units.Gold, '10.00000000', 'its first valuation');
      assert.ok(units.Growth !== undefined, 'the retired one is still valued');
    });
  });
}
