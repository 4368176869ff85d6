// The model of the money rules' property test (test/property.test.ts): the operations it draws,
// the small in-memory books each operation's expected outcome is computed from, and the rules
// (promotion, valuation) the model follows, each beside what the platform does.
import fc from 'fast-check';
import Big from 'big.js';
import type { Deps } from '../../src/deps.ts';
import type { Book } from '../../src/shared/book.ts';
import { AppError } from '../../src/shared/errors.ts';
import type { DonationEvent } from '../../src/modules/donations/index.ts';
import { recordContribution } from '../../src/modules/contributions/index.ts';
import type { TestUser } from '../harness.ts';
export const USERS = 4;
/** Each user acts in both books: actor i < USERS is user i's live key, actor USERS + i their sandbox key. */
export const ACTORS = USERS * 2;
export const bookOf = (actor: number): Book => (actor < USERS ? 'live' : 'test');
/** What each actor's app may give in a month (each actor has one app, in its book). */
export const APP_LIMIT_CENTS = 150_000;

export type Op =
  | { kind: 'contribute'; user: number; cents: number; status: 'waiting_for_funds' | 'pending' | 'success' }
  | { kind: 'receive' | 'clear' | 'fail'; pick: number; book: Book }
  | { kind: 'donate' | 'app_donate'; user: number; cents: number; keyed: boolean }
  | { kind: 'cancel'; pick: number }
  | { kind: 'event'; event: DonationEvent; pick: number; book: Book }
  | { kind: 'gift'; user: number; cents: number; viaApp: boolean }
  | { kind: 'accept' | 'claim' | 'deny'; pick: number; user: number; viaApp: boolean }
  | { kind: 'burst'; user: number; moves: Array<{ cents: number; viaApp: boolean }> }
  | { kind: 'members'; user: number; moves: Array<{ cents: number; who: 'family' | 'advisor' | 'decide' | 'race'; pick: number }> }
  | { kind: 'invest' | 'liquidate'; user: number; cents: number }
  | { kind: 'invest_now'; user: number; cents: number }
  | { kind: 'declare'; user: number; cents: number }
  | { kind: 'arrive'; pick: number; cents: number; book: Book }
  | { kind: 'correct'; pick: number; cents: number; book: Book }
  | { kind: 'withdraw'; pick: number; user: number }
  | { kind: 'run'; book: Book; submit: boolean; withdraw: boolean }
  | { kind: 'outcome'; pick: number; outcome: 'cash' | 'void'; book: Book }
  | { kind: 'allocate'; user: number; portfolio: number; share: number }
  | { kind: 'valuate'; changes: number[] }
  | { kind: 'match'; user: number; cents: number; ratio: number }
  | { kind: 'fundraise'; user: number; cents: number }
  | { kind: 'end_match'; pick: number }
  | { kind: 'grant'; user: number; who: 'advisor' | 'family' | 'stranger'; dollars: number };

const user = fc.nat(ACTORS - 1);
/** The book an operator acts in: mostly the object's own, sometimes the other. */
const book = fc.constantFrom<Book>('live', 'test');
const pick = fc.nat(1_000_000);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('contribute' as const),
      user,
      cents: fc.integer({ min: 1, max: 50_000 }),
      status: fc.constantFrom('waiting_for_funds' as const, 'pending' as const, 'success' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('receive' as const, 'clear' as const, 'fail' as const), pick, book }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('donate' as const), user, cents: fc.integer({ min: 1000, max: 30_000 }), keyed: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('app_donate' as const), user, cents: fc.integer({ min: 1000, max: 30_000 }), keyed: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      event: fc.constantFrom<DonationEvent>('approve', 'reject', 'pay', 'mail_check', 'cash_check', 'void_check'),
      pick,
      book,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('gift' as const), user, cents: fc.integer({ min: 1800, max: 20_000 }), viaApp: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('accept' as const, 'claim' as const, 'deny' as const), pick, user, viaApp: fc.boolean() }) },
  // An actor's app and its key give from one fund at the same moment: the app never passes its limit.
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      user,
      moves: fc.array(fc.record({ cents: fc.integer({ min: 1000, max: 40_000 }), viaApp: fc.boolean() }), { minLength: 2, maxLength: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('invest_now' as const), user, cents: fc.integer({ min: 1, max: 30_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('invest' as const, 'liquidate' as const), user, cents: fc.integer({ min: 1, max: 20_000 }) }) },
  // Declared contributions: the donor declares, the operator records what arrived (maybe another amount), the donor withdraws one.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('declare' as const), user, cents: fc.integer({ min: 100, max: 50_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('arrive' as const), pick, cents: fc.integer({ min: 1, max: 60_000 }), book }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), pick, user }) },
  // Paying charities (rules §17): an operator opens a run (and mostly submits it); a check is cashed or voided.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('run' as const), book, submit: fc.boolean(), withdraw: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('outcome' as const), pick, outcome: fc.constantFrom('cash' as const, 'void' as const), book }) },
  // Investing (rules §19): a donor chooses a portfolio (2: cash only) and a share; an operator values with new prices.
  // Half the actors (two users, in both books) invest; the others keep moving money by hand, which investing refuses.
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('allocate' as const), user: fc.constantFrom(0, 1, USERS, USERS + 1), portfolio: fc.nat(2), share: fc.constantFrom(0, 25, 50, 100) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('valuate' as const), changes: fc.array(fc.integer({ min: -400, max: 400 }), { minLength: 3, maxLength: 3 }) }) },
  // Fundraisers (rules §22): a donor pledges a match (its cap held), others give to the fundraiser and are matched, a match ends.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('match' as const), user, cents: fc.integer({ min: 100, max: 40_000 }), ratio: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fundraise' as const), user, cents: fc.integer({ min: 1000, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('end_match' as const), pick }) },
  // A checkout's grant (rules §24): a member of user 0's fund (or its twin's) grants from it while acting on their own.
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('grant' as const),
      user: fc.constantFrom(0, USERS),
      who: fc.constantFrom('advisor' as const, 'advisor' as const, 'family' as const, 'stranger' as const),
      dollars: fc.integer({ min: 10, max: 300 }),
    }),
  },
);

/**
 * Shared funds (rules §20): the members of user 0's fund (and of its sandbox twin's) act on it at once: the
 * family member asks, the advisor gives, requests are approved and declined, an approve and a decline race
 * for one. Drawn less often than the others (stepArb).
 */
const membersArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant('members' as const),
  user: fc.constantFrom(0, USERS),
  moves: fc.array(
    fc.record({ cents: fc.integer({ min: 1000, max: 30_000 }), who: fc.constantFrom('family' as const, 'advisor' as const, 'decide' as const, 'race' as const), pick }),
    { minLength: 2, maxLength: 6 },
  ),
});

/**
 * An operator corrects the value recorded for money received (rules §13): up or down, in the
 * contribution's book or the other; drawn less often than the others (stepArb).
 */
const correctArb: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('correct' as const), pick, cents: fc.integer({ min: 1, max: 60_000 }), book });

/**
 * One step of a sequence: the operations above, with a members' operation about one step in twenty
 * and a correction one in twenty-five.
 */
export const stepArb: fc.Arbitrary<Op> = fc.oneof({ weight: 91, arbitrary: opArb }, { weight: 5, arbitrary: membersArb }, { weight: 4, arbitrary: correctArb });

/** The portfolios of the property: their holdings, and the fee each charges a year. */
export const PROPERTY_PORTFOLIOS = [
  {
    name: 'Mixed',
    risk_level: 'medium',
    annual_fee_bps: 20,
    holdings: [
      { symbol: 'VTI', weight: 60 },
      { symbol: 'BND', weight: 40 },
    ],
  },
  { name: 'Property', risk_level: 'high', annual_fee_bps: 50, holdings: [{ symbol: 'VNQ', weight: 100 }] },
];
export const PROPERTY_SYMBOLS = ['VTI', 'BND', 'VNQ'] as const;
export const HALF_EVEN = Big.roundHalfEven;
/** Valuations of the property, an hour apart from a fixed time: the fees are the same on every run. */
export const valuationTime = (n: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 86_400_000).toISOString();
/** The platform's flat monthly fee here (FUND_MONTHLY_FEE_CENTS), charged at each month's first valuation. */
export const MONTHLY_FEE_CENTS = 150;

/** What a fund chose and holds, for the model of valuations (rules §19). */
export interface Invested {
  chosen: number | null;
  share: number;
  held: number | null;
  units: Big;
  exchange: { to: number | null } | null;
  investments: number[];
  /** What of `investments` is money the fund held, invested now (not a contribution's share). */
  heldPending: number;
}

export interface Fund {
  pending: number;
  available: number;
  reserved: number;
  portfolio: number;
}
export interface Model {
  funds: Fund[];
  /** Per book: what its outside accounts hold (deposits received are negative there, grants paid positive; a portfolio's market account, the fees). */
  outside: Record<Book, { deposits: number; grants_paid: number; [kind: string]: number }>;
  /** `bound`: matched, or made by a match (rules §22): its owner can no longer withdraw it. */
  donations: Array<{ id: number; user: number; cents: number; status: string; inPayment?: boolean; bound?: boolean }>;
  /** Matches pledged to each book's fundraiser, oldest first. */
  matches: Array<{ id: number; user: number; ratio: number; cap: number; matched: number; live: boolean }>;
  /** Family members' requests waiting (rules §20): no money held until approved, then a donation above. */
  requests: Array<{ id: number; user: number; cents: number }>;
  /** Payment runs' payments, each by check (no organisation has bank details here). */
  payments: Array<{ id: number; book: Book; status: 'open' | 'sent' | 'cashed' | 'voided' | 'withdrawn'; donations: Model['donations'] }>;
  gifts: Array<{ id: number; code: string; user: number; cents: number; status: string }>;
  contributions: Array<{ id: number; user: number; cents: number; status: string; declared?: boolean }>;
  invested: Invested[];
  /** Each portfolio's unit price and the prices it was valued at; the valuations made. */
  units: Map<number, { price: Big; prices: Record<string, Big>; bps: number }>;
  valuations: number;
  prices: Record<string, Big>;
}

export const valueOf = (units: Big, price: Big) => Number(units.times(price).times(100).round(0, HALF_EVEN).toFixed(0));
export const unitsFor = (cents: number, price: Big) => new Big(cents).div(100).div(price).round(8, HALF_EVEN);

/** A contribution clears: the fund's share of it waits to be invested at the next valuation. */
export function investShare(m: Model, u: number, cents: number): void {
  const iv = m.invested[u] as Invested;
  if (iv.chosen !== null && iv.share > 0) iv.investments.push(Number(new Big(cents).times(iv.share).div(100).round(0, HALF_EVEN).toFixed(0)));
}

/** The model of a valuation (rules §19) on every fund: as valuation.funds.ts does it, in big.js. */
export function modelValuation(m: Model, portfolioIds: readonly number[], feeMs: number, bookOfActor: (i: number) => Book, monthly: boolean): void {
  Big.DP = 40;
  for (const [i, p] of PROPERTY_PORTFOLIOS.entries()) {
    const id = portfolioIds[i] as number;
    const before = m.units.get(id);
    if (before === undefined) m.units.set(id, { price: new Big(10), prices: { ...m.prices }, bps: p.annual_fee_bps });
    else {
      const factor = p.holdings.reduce(
        (s, h) =>
          s.plus(
            new Big(h.weight)
              .div(100)
              .times(m.prices[h.symbol] as Big)
              .div(before.prices[h.symbol] as Big),
          ),
        new Big(0),
      );
      m.units.set(id, { price: before.price.times(factor).round(8, HALF_EVEN), prices: { ...m.prices }, bps: p.annual_fee_bps });
    }
  }
  // The month's first valuation: the flat fee, from available, then from units at the new price.
  if (monthly) {
    for (const [u, iv] of m.invested.entries()) {
      const f = m.funds[u] as Fund;
      if (f.available <= 0 && iv.held === null) continue;
      const fromAvailable = Math.min(MONTHLY_FEE_CENTS, f.available);
      let fromPortfolio = 0;
      if (iv.held !== null && fromAvailable < MONTHLY_FEE_CENTS) {
        const price = (m.units.get(iv.held) as { price: Big }).price;
        const worth = valueOf(iv.units, price);
        fromPortfolio = Math.min(MONTHLY_FEE_CENTS - fromAvailable, f.portfolio, worth);
        const wanted = unitsFor(fromPortfolio, price);
        iv.units = iv.units.minus(fromPortfolio === worth || wanted.gt(iv.units) ? iv.units : wanted);
      }
      f.available -= fromAvailable;
      f.portfolio -= fromPortfolio;
      const outside = m.outside[bookOfActor(u)];
      outside.fees = (outside.fees ?? 0) + fromAvailable + fromPortfolio;
    }
  }
  for (const [u, iv] of m.invested.entries()) {
    if (iv.held === null && iv.exchange === null && iv.investments.length === 0) continue;
    const f = m.funds[u] as Fund;
    const outside = m.outside[bookOfActor(u)];
    const price = () => (m.units.get(iv.held as number) as { price: Big }).price;
    const mark = () => {
      if (iv.held === null) return;
      const target = valueOf(iv.units, price());
      outside[`market:${iv.held}`] = (outside[`market:${iv.held}`] ?? 0) - (target - f.portfolio);
      f.portfolio = target;
    };
    mark();
    if (iv.held !== null) {
      const fee = iv.units
        .times((m.units.get(iv.held) as { bps: number }).bps)
        .times(feeMs)
        .div(new Big(10_000).times(365 * 86_400_000))
        .round(8, HALF_EVEN);
      if (fee.gt(0)) {
        iv.units = iv.units.minus(fee);
        const cents = valueOf(fee, price());
        if (cents > 0) {
          f.portfolio -= cents;
          outside.fees = (outside.fees ?? 0) + cents;
        }
        mark();
      }
    }
    let sold = 0;
    if (iv.exchange !== null) {
      if (iv.exchange.to === null) {
        f.available += f.portfolio;
        sold += f.portfolio;
        f.portfolio = 0;
        iv.held = null;
        iv.units = new Big(0);
      } else if (iv.exchange.to !== iv.held) {
        iv.held = iv.exchange.to;
        iv.units = unitsFor(f.portfolio, price());
        mark();
      }
      iv.exchange = null;
    } else if (iv.held === null && iv.chosen !== null && f.portfolio > 0) {
      iv.held = iv.chosen;
      iv.units = unitsFor(f.portfolio, price());
      mark();
    }
    const waitingNow = m.donations.filter((d) => d.user === u && d.status === 'waiting_for_funds').map((d) => d.cents);
    const owed = waitingNow.reduce((n, w) => n + w, 0);
    let covered = 0;
    for (const w of waitingNow) if (covered + w <= f.available + f.portfolio) covered += w;
    if (iv.held !== null && covered > f.available && f.portfolio > 0) {
      const need = Math.min(covered - f.available, f.portfolio);
      const units = need === f.portfolio ? iv.units : unitsFor(need, price()).gt(iv.units) ? iv.units : unitsFor(need, price());
      f.available += need;
      f.portfolio -= need;
      sold += need;
      iv.units = iv.units.minus(units);
      mark();
    }
    for (const amount of iv.investments) {
      const spare = Math.max(0, f.available - owed);
      const target = iv.chosen;
      const bought = target === null || (iv.held !== null && iv.held !== target) ? 0 : Math.min(amount, spare);
      if (bought > 0) {
        f.available -= bought;
        f.portfolio += bought;
        iv.held = target;
        iv.units = iv.units.plus(unitsFor(bought, price()));
      }
    }
    iv.investments = [];
    iv.heldPending = 0;
    mark();
    if (iv.held !== null && iv.units.eq(0)) iv.held = null;
    if (sold > 0) promote(m, u);
  }
}

/** The model's promotion rule: waiting donations of the user, oldest first, each one that fits. */
/** The actor of `actor`'s book whose fund has the most available (`actor` on a tie). */
export function fullestOf(m: Model, actor: number): number {
  return m.funds.reduce((best, fund, i) => (bookOf(i) === bookOf(actor) && fund.available > (m.funds[best] as Fund).available ? i : best), actor);
}

export function promote(m: Model, u: number): void {
  const f = m.funds[u] as Fund;
  for (const d of m.donations) {
    if (d.user === u && d.status === 'waiting_for_funds' && d.cents <= f.available) {
      d.status = 'scheduled';
      f.available -= d.cents;
      f.reserved += d.cents;
    }
  }
}

/** An operator records a wire of `cents` for the actor `a` (user `u`) in `status`, and the model follows it (rules §7). */
export async function recordWire(deps: Deps, m: Model, u: TestUser, a: number, cents: number, status: 'waiting_for_funds' | 'pending' | 'success'): Promise<void> {
  const base = { user_id: u.user_id, fund_id: u.fund_id, type: 'wire_payment' as const, valuation: '1', currency: 'USD', frequency: 'OneTime' as const };
  const id = await recordContribution(deps, { ...base, units: (cents / 100).toFixed(2), status }, 'property');
  m.contributions.push({ id, user: a, cents, status });
  const f = m.funds[a] as Fund;
  if (status !== 'waiting_for_funds') m.outside[bookOf(a)].deposits -= cents;
  if (status === 'pending') f.pending += cents;
  if (status === 'success') {
    f.available += cents;
    promote(m, a);
    investShare(m, a, cents);
  }
}

export async function outcome(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/** What a run leaves: every step's outcome and, at the end, the books in an order that does not depend on ids. */
export interface Books {
  outcomes: string[];
  funds: Array<Record<string, number>>;
  donations: string[];
  gifts: string[];
  contributions: string[];
  entries: string[];
}
