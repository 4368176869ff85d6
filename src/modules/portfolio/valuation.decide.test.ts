// The valuation's decision for one fund (valuation.decide.ts), without a database: each step by
// hand-worked figures, and for any fund state the decision's invariants, with its value checked
// against big.js (units x price, rounded half-even once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Big from 'big.js';
import fc from 'fast-check';
import { decideFund, type FundState, type Prices } from './valuation.decide.ts';

const E8 = 100_000_000n;
const YEAR_MS = 365n * 86_400_000n;
const price = (dollars: string) => BigInt(new Big(dollars).times(1e8).toFixed(0));
const units = (n: string) => BigInt(new Big(n).times(1e8).toFixed(0));
const prices = (p: Record<number, string>, feeMs = 0n, feeBps = 0): Prices => ({
  portfolios: new Map(Object.entries(p).map(([id, dollars]) => [Number(id), { price: price(dollars), feeBps }])),
  feeMs,
});
const fund = (f: Partial<FundState>): FundState => ({ available: 0, value: 0, holding: null, exchange: undefined, chosen: null, waiting: [], investments: [], ...f });

test('units are marked to the new price: the gain comes from the market account', () => {
  const d = decideFund(fund({ value: 100_000, holding: { portfolio: 1, units: units('10') }, chosen: 1 }), prices({ 1: '110' }));
  assert.deepEqual(d.moves, [{ from: { market: 1 }, to: 'portfolio', cents: 10_000 }]);
  assert.deepEqual([d.value, d.gain, d.units, d.portfolio], [110_000, 10_000, 10n * E8, 1]);
});

test("the fee is taken from units: a year at 100 bps of 10 units is 0.1 unit, the price's worth", () => {
  const d = decideFund(fund({ value: 100_000, holding: { portfolio: 1, units: units('10') }, chosen: 1 }), prices({ 1: '100' }, YEAR_MS, 100));
  assert.deepEqual([d.feeBasis, d.feeUnits, d.feeCents, d.units, d.value], [units('10'), units('0.1'), 1_000, units('9.9'), 99_000]);
  assert.deepEqual(d.moves, [{ from: 'portfolio', to: 'fees', cents: 1_000 }]);
});

test('an exchange to cash sells every unit into available; into another portfolio buys its units at its price', () => {
  const cash = decideFund(fund({ value: 50_000, holding: { portfolio: 1, units: units('5') }, exchange: { to: null } }), prices({ 1: '100' }));
  assert.deepEqual([cash.available, cash.value, cash.sold, cash.portfolio, cash.units, cash.exchanged], [50_000, 0, 50_000, null, 0n, true]);
  const other = decideFund(fund({ value: 50_000, holding: { portfolio: 1, units: units('5') }, exchange: { to: 2 } }), prices({ 1: '100', 2: '25' }));
  assert.deepEqual([other.portfolio, other.units, other.value, other.available], [2, units('20'), 50_000, 0]);
});

test('units are sold for the waiting donations the money covers, as promotion would take them', () => {
  // $100 of units, nothing available; waiting $30, $90, $20: the $30 and the $20 fit (the $90 does not after the $30).
  const d = decideFund(fund({ value: 10_000, holding: { portfolio: 1, units: units('1') }, chosen: 1, waiting: [3_000, 9_000, 2_000] }), prices({ 1: '100' }));
  assert.deepEqual([d.sold, d.available, d.value, d.units], [5_000, 5_000, 5_000, units('0.5')]);
});

test('investments buy what available holds beyond the waiting donations, into the chosen portfolio; the rest is cancelled', () => {
  const d = decideFund(
    fund({
      available: 5_000,
      chosen: 1,
      waiting: [1_000],
      investments: [
        { id: 7, cents: 3_000 },
        { id: 8, cents: 3_000 },
      ],
    }),
    prices({ 1: '50' }),
  );
  assert.deepEqual(d.investments, [
    { id: 7, bought: 3_000 },
    { id: 8, bought: 1_000 },
  ]);
  assert.deepEqual([d.available, d.value, d.portfolio, d.units], [1_000, 4_000, 1, units('0.8')]);
  const none = decideFund(fund({ available: 5_000, chosen: null, investments: [{ id: 9, cents: 3_000 }] }), prices({ 1: '50' }));
  assert.deepEqual([none.investments, none.moves], [[{ id: 9, bought: 0 }], []]);
});

test('any fund: the invariants hold, and a fund in a portfolio is worth its units at the price, by big.js', () => {
  const state = fc.record({
    available: fc.integer({ min: 0, max: 10_000_000 }),
    held: fc.option(fc.record({ portfolio: fc.constantFrom(1, 2), units: fc.bigInt({ min: 1n, max: 1_000_000n * E8 }) }), { nil: null }),
    exchange: fc.option(fc.record({ to: fc.option(fc.constantFrom(1, 2, 3), { nil: null }) }), { nil: undefined }),
    chosen: fc.option(fc.constantFrom(1, 2), { nil: null }),
    waiting: fc.array(fc.integer({ min: 1_000, max: 1_000_000 }), { maxLength: 5 }),
    investments: fc.array(fc.integer({ min: 1, max: 1_000_000 }), { maxLength: 3 }),
    p1: fc.integer({ min: 1, max: 100_000_000 }),
    p2: fc.integer({ min: 1, max: 100_000_000 }),
    feeMs: fc.bigInt({ min: 0n, max: YEAR_MS }),
    feeBps: fc.integer({ min: 0, max: 200 }),
  });
  fc.assert(
    fc.property(state, (s) => {
      const ps: Prices = {
        portfolios: new Map([
          [1, { price: BigInt(s.p1) * 1_000_000n, feeBps: s.feeBps }],
          [2, { price: BigInt(s.p2) * 1_000_000n, feeBps: s.feeBps }],
        ]),
        feeMs: s.feeMs,
      };
      // The portfolio account as the last valuation left it: the units at a price of a dollar.
      const value = s.held === null ? 0 : Number(new Big(s.held.units.toString()).div(1e6).round(0, Big.roundHalfEven).toFixed(0));
      const d = decideFund(
        {
          available: s.available,
          value,
          holding: s.held,
          exchange: s.exchange,
          chosen: s.chosen,
          waiting: s.waiting,
          investments: s.investments.map((cents, id) => ({ id, cents })),
        },
        ps,
      );
      if (d.portfolio !== null) {
        const unitPrice = new Big((ps.portfolios.get(d.portfolio)?.price ?? 0n).toString()).div(1e8);
        const worth = new Big(d.units.toString()).div(1e8).times(unitPrice).times(100).round(0, Big.roundHalfEven);
        assert.equal(d.value, Number(worth.toFixed(0)));
      }
      assert.equal(d.investments.length, s.investments.length);
    }),
    { numRuns: 500, seed: 20261129 },
  );
});
