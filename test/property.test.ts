// A property test of the money rules: random sequences of 10,000 operations
// across users and both books (each user acts with a live key and with a
// sandbox key; contribute, receive, clear, fail, donate, cancel, approve,
// reject, pay, mail, cash, void, gift, accept, claim, deny, invest,
// liquidate, payment runs opened and submitted, checks cashed or voided,
// portfolios chosen and valuations made (units bought, sold for waiting
// donations, exchanged, charged their fee, marked to the new unit price);
// operators and gift recipients sometimes act from the other
// book; each user's live and sandbox apps donate with their tokens, held to
// the monthly limit the donor set) run against the real services and against
// a small in-memory model;
// after every step the outcome (or the error code), the balances of every
// fund and each book's outside accounts must agree, so a book's totals move
// only by that book's causes; at the end `almoner check` must pass. Then the
// same operations run with each donation writer (donations.writer.ts): the
// batched one must leave the books the simple one, the reference, leaves.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { engines, openEnv, makeUser, makeNonProfit, assertLedgerBalanced, testConfig, type TestEnv, type TestUser } from './harness.ts';
import type { Config } from '../src/config.ts';
import type { Deps } from '../src/deps.ts';
import { AppError } from '../src/shared/errors.ts';
import {
  advanceContribution,
  cancelContribution,
  correctReceivedValue,
  declareContribution,
  recordArrivalAudited,
  recordContribution,
} from '../src/modules/contributions/index.ts';
import {
  applyDonationEvent,
  cancelDonation,
  createDonation,
  decideRequest,
  donationWriterStats,
  DONATION_TRANSITIONS,
  type DonationEvent,
} from '../src/modules/donations/index.ts';
import { acceptInvitation, inviteMember } from '../src/modules/sharing/index.ts';
import { acceptGift, claimGift, createGift, denyGift, GIFT_MIN_CENTS } from '../src/modules/gifts/index.ts';
import { claimKey, type IdempotencyClaim } from '../src/modules/idempotency/index.ts';
import { callerOfKey } from '../src/modules/keys/index.ts';
import type { Caller } from '../src/shared/caller.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import type { Book } from '../src/shared/book.ts';
import { createPortfolio, importPrices, movePortfolio, runValuation, setAllocation } from '../src/modules/portfolio/index.ts';
import Big from 'big.js';
import { callerOfAccessToken } from '../src/modules/apps/index.ts';
import { connectApp } from './app-tokens.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { addDays, bankingDayFrom, openRun, settle, submitRun, withdrawRun } from '../src/modules/payments/index.ts';

const STEPS = Number(process.env.PROPERTY_STEPS ?? 10_000);
/** The writers' comparison runs the sequence twice more: its first steps are enough to meet every path. */
const COMPARED_STEPS = Math.min(STEPS, 2_500);
const USERS = 4;
/** Each user acts in both books: actor i < USERS is user i's live key, actor USERS + i their sandbox key. */
const ACTORS = USERS * 2;
const bookOf = (actor: number): Book => (actor < USERS ? 'live' : 'test');
/** What each actor's app may give in a month (each actor has one app, in its book). */
const APP_LIMIT_CENTS = 150_000;

type Op =
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
  | { kind: 'declare'; user: number; cents: number }
  | { kind: 'arrive'; pick: number; cents: number; book: Book }
  | { kind: 'correct'; pick: number; cents: number; book: Book }
  | { kind: 'withdraw'; pick: number; user: number }
  | { kind: 'run'; book: Book; submit: boolean; withdraw: boolean }
  | { kind: 'outcome'; pick: number; outcome: 'cash' | 'void'; book: Book }
  | { kind: 'allocate'; user: number; portfolio: number; share: number }
  | { kind: 'valuate'; changes: number[] };

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
);

/**
 * Shared funds (rules §20): the members of user 0's fund (and of its sandbox twin's) act on it at once: the
 * family member asks, the advisor gives, requests are approved and declined, an approve and a decline race
 * for one. Drawn apart and put between the other operations, so that those stay the sequence they were.
 */
const membersArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant('members' as const),
  user: fc.constantFrom(0, USERS),
  moves: fc.array(
    fc.record({ cents: fc.integer({ min: 1000, max: 30_000 }), who: fc.constantFrom('family' as const, 'advisor' as const, 'decide' as const, 'race' as const), pick }),
    { minLength: 2, maxLength: 6 },
  ),
});
/** One members' operation after every this many others. */
const MEMBERS_EVERY = 20;

/**
 * An operator corrects the value recorded for money received (rules §13): up or down, in the
 * contribution's book or the other; drawn apart like the members' operations, so the others stay
 * the sequence they were.
 */
const correctArb: fc.Arbitrary<Op> = fc.record({ kind: fc.constant('correct' as const), pick, cents: fc.integer({ min: 1, max: 60_000 }), book });
/** One correction after every this many other operations. */
const CORRECT_EVERY = 25;

/** The portfolios of the property: their holdings, and the fee each charges a year. */
const PROPERTY_PORTFOLIOS = [
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
const PROPERTY_SYMBOLS = ['VTI', 'BND', 'VNQ'] as const;
const HALF_EVEN = Big.roundHalfEven;
/** Valuations of the property, an hour apart from a fixed time: the fees are the same on every run. */
const valuationTime = (n: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 86_400_000).toISOString();
/** The platform's flat monthly fee here (FUND_MONTHLY_FEE_CENTS), charged at each month's first valuation. */
const MONTHLY_FEE_CENTS = 150;

/** What a fund chose and holds, for the model of valuations (rules §19). */
interface Invested {
  chosen: number | null;
  share: number;
  held: number | null;
  units: Big;
  exchange: { to: number | null } | null;
  investments: number[];
}

interface Fund {
  pending: number;
  available: number;
  reserved: number;
  portfolio: number;
}
interface Model {
  funds: Fund[];
  /** Per book: what its outside accounts hold (deposits received are negative there, grants paid positive; a portfolio's market account, the fees). */
  outside: Record<Book, { deposits: number; grants_paid: number; [kind: string]: number }>;
  donations: Array<{ id: number; user: number; cents: number; status: string; inPayment?: boolean }>;
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

const valueOf = (units: Big, price: Big) => Number(units.times(price).times(100).round(0, HALF_EVEN).toFixed(0));
const unitsFor = (cents: number, price: Big) => new Big(cents).div(100).div(price).round(8, HALF_EVEN);

/** A contribution clears: the fund's share of it waits to be invested at the next valuation. */
function investShare(m: Model, u: number, cents: number): void {
  const iv = m.invested[u] as Invested;
  if (iv.chosen !== null && iv.share > 0) iv.investments.push(Number(new Big(cents).times(iv.share).div(100).round(0, HALF_EVEN).toFixed(0)));
}

/** The model of a valuation (rules §19) on every fund: as valuation.funds.ts does it, in big.js. */
function modelValuation(m: Model, portfolioIds: readonly number[], feeMs: number, bookOfActor: (i: number) => Book, monthly: boolean): void {
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
    mark();
    if (iv.held !== null && iv.units.eq(0)) iv.held = null;
    if (sold > 0) promote(m, u);
  }
}

/** The model's promotion rule: waiting donations of the user, oldest first, each one that fits. */
/** The actor of `actor`'s book whose fund has the most available (`actor` on a tie). */
function fullestOf(m: Model, actor: number): number {
  return m.funds.reduce((best, fund, i) => (bookOf(i) === bookOf(actor) && fund.available > (m.funds[best] as Fund).available ? i : best), actor);
}

function promote(m: Model, u: number): void {
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
async function recordWire(deps: Deps, m: Model, u: TestUser, a: number, cents: number, status: 'waiting_for_funds' | 'pending' | 'success'): Promise<void> {
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

async function outcome(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/** What a run leaves: every step's outcome and, at the end, the books in an order that does not depend on ids. */
interface Books {
  outcomes: string[];
  funds: Array<Record<string, number>>;
  donations: string[];
  gifts: string[];
  contributions: string[];
  entries: string[];
}

/** Opens a database with `writer` creating donations, runs `fn` on it, closes it. */
async function withWriter<T>(engine: TestEnv['engine'], writer: Config['donationWriter'], fn: (env: TestEnv) => Promise<T>): Promise<T> {
  // Each run opens its own pay date: banking days as far ahead as the setting allows.
  const payments = { ...testConfig('sqlite::memory:').payments, payDateMaxDays: 3650 };
  const env = await openEnv(engine, { donationWriter: writer, fundMonthlyFeeCents: MONTHLY_FEE_CENTS, payments });
  try {
    return await fn(env);
  } finally {
    await env.close();
  }
}

for (const { name: engine } of engines()) {
  describe(`money rules property on ${engine}`, () => {
    test(`${STEPS} random operations agree with the model at every step (batched writer, bursts in parallel)`, { timeout: 600_000 }, async () => {
      await withWriter(engine, 'batched', (env) => runProperty(env, { steps: STEPS, parallelBursts: true }));
    });

    // The simple writer (one locked transaction per request) is the reference: the batched one, given
    // the same operations, must leave the same books. The batched one takes each burst's moves at
    // once, so that its rounds hold several requests; which of them a fund covers depends on the
    // order it decided them, so the simple one is given each burst's moves one after another in
    // that order. (The members' races stay one after another: who wins one is not a writer's order.)
    test(`both donation writers, given the same ${COMPARED_STEPS} operations, leave the same books`, { timeout: 600_000 }, async () => {
      const decided = new Map<number, number[]>();
      let stats = { requests: 0, transactions: 0 };
      const batched = await withWriter(engine, 'batched', async (env) => {
        const books = await runProperty(env, { steps: COMPARED_STEPS, parallelBursts: true, parallelMembers: false, bursts: { record: decided } });
        stats = donationWriterStats(env.deps);
        return books;
      });
      assert.ok(stats.requests > stats.transactions, `rounds formed: ${stats.requests} requests in ${stats.transactions} transactions`);
      assert.ok(decided.size > COMPARED_STEPS / 100, 'the sequence had bursts');
      const simple = await withWriter(engine, 'simple', (env) => runProperty(env, { steps: COMPARED_STEPS, parallelBursts: false, bursts: { replay: decided } }));
      assert.ok(batched.outcomes.length > COMPARED_STEPS * 0.9, 'nearly every step ran');
      assert.ok(simple.donations.length > COMPARED_STEPS / 10, 'the operations made donations');
      const first = simple.outcomes.findIndex((o, i) => batched.outcomes[i] !== o);
      assert.equal(first, -1, `the writers part at a step: the simple one's ${simple.outcomes[first]}, the batched one's ${batched.outcomes[first]}`);
      for (const key of Object.keys(simple) as Array<keyof Books>) assert.deepEqual(batched[key], simple[key], `the ${key} agree`);
    });
  });
}

/**
 * How a run goes: `parallelBursts` sends each burst's moves at once (a batched writer then forms
 * rounds of them), `parallelMembers` the members' operations too (default: as the bursts);
 * `bursts.record` notes, for each burst step, the order the platform decided its moves (the made
 * ones by donation id, then the refused), and `bursts.replay` sends each burst's moves one after
 * another in such an order.
 */
interface RunOptions {
  steps: number;
  parallelBursts: boolean;
  parallelMembers?: boolean;
  bursts?: { record?: Map<number, number[]>; replay?: ReadonlyMap<number, readonly number[]> };
}

async function runProperty(env: TestEnv, { steps, parallelBursts, parallelMembers = parallelBursts, bursts }: RunOptions): Promise<Books> {
  const outcomes: string[] = [];
  {
    {
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const people: TestUser[] = [];
      for (let i = 0; i < USERS; i++) people.push(await makeUser(env.deps));
      // Actors: the live keys, then a sandbox key of each user (a real key, resolved as a request's would be).
      const users: TestUser[] = [...people];
      for (const person of people) {
        const made = await createKeyForOwner(env.deps, person.user_id, 'property', 'test');
        const caller = (await callerOfKey(env.deps, made.key)) as Caller;
        assert.equal(caller.book, 'test');
        users.push({ user_id: caller.user_id, fund_id: caller.fund_id, slug: '', key: made.key, caller });
      }
      // Each actor's app: a live app of the user for a live actor, a sandbox app for a sandbox one,
      // resolved from its access token as a request's would be; it acts on the same fund as the key.
      const appCallers: Caller[] = [];
      for (const [i, u] of users.entries()) {
        const tokens = await connectApp(env.deps, (people[i % USERS] as TestUser).user_id, {
          scopes: ['read', 'donate', 'gifts'],
          book: bookOf(i),
          monthlyLimitCents: APP_LIMIT_CENTS,
        });
        const caller = await callerOfAccessToken(env.deps, tokens.oidc, tokens.accessToken);
        assert.ok(caller !== undefined);
        assert.deepEqual([caller.book, caller.fund_id], [bookOf(i), u.fund_id], `actor ${i}'s app acts on its fund, in its book`);
        appCallers.push(caller);
      }
      // The members of user 0's fund: a family member and an advisor, invited and accepted; each acts with a
      // live key and a sandbox key, and the sandbox twins follow the membership into the twin's fund.
      const members = new Map<number, { family: Caller; advisor: Caller; organizer: Caller }>();
      {
        const made: Record<'family' | 'advisor', { live: Caller; test: Caller }> = {} as never;
        for (const role of ['family', 'advisor'] as const) {
          const person = await makeUser(env.deps, { name: `Property ${role}` });
          const email = `property-${role}@example.org`;
          await env.deps.db
            .insertInto('accounts')
            .values({ user_id: person.user_id, email, password_hash: 'x', created_at: new Date().toISOString(), email_confirmed_at: new Date().toISOString() })
            .execute();
          const { token } = await inviteMember(env.deps, (users[0] as TestUser).caller, { email, role });
          await acceptInvitation(env.deps, person.user_id, token);
          const test = await createKeyForOwner(env.deps, person.user_id, 'property', 'test');
          made[role] = { live: (await callerOfKey(env.deps, person.key)) as Caller, test: (await callerOfKey(env.deps, test.key)) as Caller };
          assert.deepEqual([made[role].live.fund_id, made[role].live.role], [(users[0] as TestUser).fund_id, role]);
          assert.deepEqual([made[role].test.fund_id, made[role].test.role], [(users[USERS] as TestUser).fund_id, role], 'the twin follows');
        }
        members.set(0, { family: made.family.live, advisor: made.advisor.live, organizer: (users[0] as TestUser).caller });
        members.set(USERS, { family: made.family.test, advisor: made.advisor.test, organizer: (users[USERS] as TestUser).caller });
      }
      const appSpent = users.map(() => 0);
      const m: Model = {
        funds: users.map(() => ({ pending: 0, available: 0, reserved: 0, portfolio: 0 })),
        donations: [],
        requests: [],
        payments: [],
        gifts: [],
        contributions: [],
        outside: { live: { deposits: 0, grants_paid: 0 }, test: { deposits: 0, grants_paid: 0 } },
        invested: users.map(() => ({ chosen: null, share: 0, held: null, units: new Big(0), exchange: null, investments: [] })),
        units: new Map(),
        valuations: 0,
        prices: { VTI: new Big('250'), BND: new Big('72.5'), VNQ: new Big('88.125') },
      };
      const portfolioIds: number[] = [];
      for (const p of PROPERTY_PORTFOLIOS) portfolioIds.push((await createPortfolio(env.deps, { description: '', ...p }, 'property')).id);
      const seed = Number(process.env.PROPERTY_SEED ?? 20261122);
      const others = fc.sample(fc.array(opArb, { minLength: steps, maxLength: steps }), { numRuns: 1, seed })[0] as Op[];
      const shared = fc.sample(membersArb, { numRuns: Math.ceil(steps / MEMBERS_EVERY), seed: seed + 1 });
      const corrections = fc.sample(correctArb, { numRuns: Math.ceil(steps / CORRECT_EVERY), seed: seed + 2 });
      const ops = others.flatMap((op, i) => [
        op,
        ...(i % MEMBERS_EVERY === MEMBERS_EVERY - 1 ? [shared[Math.floor(i / MEMBERS_EVERY)] as Op] : []),
        ...(i % CORRECT_EVERY === CORRECT_EVERY - 1 ? [corrections[Math.floor(i / CORRECT_EVERY)] as Op] : []),
      ]);
      const seen = new Map<string, number>();
      const { deps } = env;
      const today = deps.clock.now().toISOString().slice(0, 10);
      const lastPayDate: Record<Book, string> = { live: today, test: today };
      // On one node a donation made later has a larger id (waiting donations are promoted oldest
      // first, by id): checked where the steps run one after another, so that "later" is defined.
      let lastMade = 0;
      const madeAfter = (id: number, label: string) => {
        if (parallelBursts) return;
        assert.ok(id > lastMade, `${label}: donation ${id} was made after donation ${lastMade}, so its id is larger`);
        lastMade = id;
      };

      for (const [step, op] of ops.entries()) {
        let expected = 'ok';
        let actual: string;
        const label = `step ${step} (PROPERTY_SEED=${seed} replays it): ${JSON.stringify(op)}`;
        switch (op.kind) {
          case 'contribute': {
            actual = await outcome(() => recordWire(deps, m, users[op.user] as TestUser, op.user, op.cents, op.status));
            break;
          }
          case 'receive':
          case 'clear':
          case 'fail': {
            const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
            if (c === undefined) continue;
            const to = op.kind === 'receive' ? 'pending' : op.kind === 'clear' ? 'success' : 'failed';
            const inBook = bookOf(c.user) === op.book;
            const allowed =
              inBook && ((c.status === 'waiting_for_funds' && (to === 'pending' || to === 'failed')) || (c.status === 'pending' && (to === 'success' || to === 'failed')));
            expected = !inBook ? 'contribution_not_found' : allowed ? 'ok' : 'invalid_transition';
            actual = await outcome(() => advanceContribution(deps, op.book, c.id, to, 'property'));
            if (allowed) {
              const f = m.funds[c.user] as Fund;
              const outside = m.outside[bookOf(c.user)];
              if (c.status === 'waiting_for_funds' && to === 'pending') {
                f.pending += c.cents;
                outside.deposits -= c.cents;
              }
              if (c.status === 'pending' && to === 'success') {
                f.pending -= c.cents;
                f.available += c.cents;
              }
              if (c.status === 'pending' && to === 'failed') {
                f.pending -= c.cents;
                outside.deposits += c.cents;
              }
              c.status = to;
              if (to === 'success') {
                promote(m, c.user);
                investShare(m, c.user, c.cents);
              }
            }
            break;
          }
          case 'declare': {
            const u = users[op.user] as TestUser;
            let id = 0;
            actual = await outcome(async () => {
              id = (await declareContribution(deps, u.caller, { type: 'wire_payment', amount: op.cents / 100 })).id;
            });
            // Declared: waiting for its money, nothing moved.
            m.contributions.push({ id, user: op.user, cents: op.cents, status: 'waiting_for_funds', declared: true });
            break;
          }
          case 'arrive': {
            const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
            if (c === undefined) continue;
            const inBook = bookOf(c.user) === op.book;
            // What arrives more than 10% away from the declaration is refused unless the operator forces it (half the time).
            const force = op.pick % 2 === 0;
            const differs = c.declared === true && c.cents > 0 && !force && Math.abs(op.cents - c.cents) * 10 > c.cents;
            const allowed = inBook && c.declared === true && c.status === 'waiting_for_funds' && !differs;
            expected = !inBook ? 'contribution_not_found' : c.declared !== true ? 'invalid_transition' : differs ? 'received_differs' : allowed ? 'ok' : 'invalid_transition';
            actual = await outcome(() => recordArrivalAudited(deps, op.book, c.id, { units: (op.cents / 100).toFixed(2), valuation: '1', force }, 'property'));
            // What arrived replaces what was declared; money moves when it is received (pending).
            if (allowed) c.cents = op.cents;
            break;
          }
          case 'correct': {
            // Half the picks among the contributions with money received, the others among all.
            const received = m.contributions.filter((x) => x.status === 'pending' || x.status === 'success');
            const among = op.pick % 2 === 0 && received.length > 0 ? received : m.contributions;
            const c = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
            if (c === undefined) continue;
            const f = m.funds[c.user] as Fund;
            const delta = op.cents - c.cents;
            const held = c.status === 'pending' ? f.pending : f.available;
            expected =
              bookOf(c.user) !== op.book
                ? 'contribution_not_found'
                : c.status !== 'pending' && c.status !== 'success'
                  ? 'invalid_transition'
                  : delta < 0 && held < -delta
                    ? 'insufficient_funds'
                    : 'ok';
            actual = await outcome(() => correctReceivedValue(deps, op.book, c.id, { units: (op.cents / 100).toFixed(2), valuation: '1', reason: 'property' }, 'property'));
            if (expected === 'ok') {
              // The difference moves between the deposits account and the money the contribution made.
              if (c.status === 'pending') f.pending += delta;
              else f.available += delta;
              m.outside[bookOf(c.user)].deposits -= delta;
              c.cents = op.cents;
              if (c.status === 'success' && delta > 0) promote(m, c.user);
            }
            break;
          }
          case 'withdraw': {
            const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
            if (c === undefined) continue;
            const u = users[op.user] as TestUser;
            const own = c.user === op.user;
            const allowed = own && c.declared === true && c.status === 'waiting_for_funds';
            expected = !own ? 'contribution_not_found' : allowed ? 'ok' : 'contribution_not_cancellable';
            actual = await outcome(() => cancelContribution(deps, u.caller, c.id));
            if (allowed) c.status = 'failed';
            break;
          }
          case 'donate':
          case 'app_donate': {
            const caller = op.kind === 'donate' ? (users[op.user] as TestUser).caller : (appCallers[op.user] as Caller);
            let created = { id: 0, status: '' };
            const donate = async (claim?: IdempotencyClaim) => {
              created = await createDonation(deps, caller, { amount_cents: op.cents, ein: '261544963' }, claim);
            };
            // With an Idempotency-Key, as a careful client sends: claimed, the outcome recorded with the donation.
            const key = `step-${step}`;
            const claimed = op.keyed ? await claimKey(deps, caller.user_id, key, 'hash') : undefined;
            if (claimed !== undefined && claimed.kind !== 'claimed') assert.fail(`${label}: a fresh key is claimed`);
            actual = await outcome(() => donate(claimed?.claim));
            if (claimed !== undefined && actual === 'ok') {
              const record = await deps.db
                .selectFrom('idempotency_keys')
                .select(['state', 'resource'])
                .where('user_id', '=', caller.user_id)
                .where('key', '=', key)
                .executeTakeFirstOrThrow();
              assert.deepEqual(record, { state: 'committed', resource: `donation:${created.id}` }, label);
            }
            if (op.kind === 'app_donate') {
              if ((appSpent[op.user] as number) + op.cents > APP_LIMIT_CENTS) {
                expected = 'app_limit_exceeded';
                break;
              }
              appSpent[op.user] = (appSpent[op.user] as number) + op.cents;
            }
            const f = m.funds[op.user] as Fund;
            const status = f.available >= op.cents ? 'scheduled' : 'waiting_for_funds';
            if (status === 'scheduled') {
              f.available -= op.cents;
              f.reserved += op.cents;
            }
            m.donations.push({ id: created.id, user: op.user, cents: op.cents, status });
            assert.equal(created.status, status, label);
            madeAfter(created.id, label);
            break;
          }
          case 'cancel': {
            const d = m.donations[op.pick % Math.max(1, m.donations.length)];
            if (d === undefined) continue;
            const ok = d.status === 'scheduled' || d.status === 'waiting_for_funds';
            expected = ok ? 'ok' : 'donation_not_cancellable';
            actual = await outcome(() => cancelDonation(deps, (users[d.user] as TestUser).caller, d.id));
            if (ok) {
              const f = m.funds[d.user] as Fund;
              const wasScheduled = d.status === 'scheduled';
              d.status = 'not_completed';
              if (wasScheduled) {
                f.reserved -= d.cents;
                f.available += d.cents;
                promote(m, d.user);
              }
            }
            break;
          }
          case 'event': {
            // Half the picks among the donations the event applies to (so that every transition is exercised
            // whatever the bursts' interleaving left waiting), the others among all (wrong transitions, other books).
            const rule = DONATION_TRANSITIONS[op.event];
            const fitting = m.donations.filter((x) => (rule.from as readonly string[]).includes(x.status));
            const among = op.pick % 2 === 0 && fitting.length > 0 ? fitting : m.donations;
            const d = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
            if (d === undefined) continue;
            const inBook = bookOf(d.user) === op.book;
            const ok = inBook && (rule.from as readonly string[]).includes(d.status);
            expected = !inBook ? 'donation_not_found' : !ok ? 'invalid_transition' : d.inPayment === true ? 'donation_in_payment' : 'ok';
            actual = await outcome(() => applyDonationEvent(deps, op.book, d.id, op.event, { actor: 'property', reason: 'property test' }));
            if (expected === 'ok') {
              const f = m.funds[d.user] as Fund;
              const outside = m.outside[bookOf(d.user)];
              d.status = rule.to;
              if (rule.move === 'reserved_to_available') {
                f.reserved -= d.cents;
                f.available += d.cents;
                promote(m, d.user);
              }
              if (rule.move === 'reserved_to_grants_paid') {
                f.reserved -= d.cents;
                outside.grants_paid += d.cents;
              }
              if (rule.move === 'grants_paid_to_available') {
                f.available += d.cents;
                outside.grants_paid -= d.cents;
                promote(m, d.user);
              }
            }
            break;
          }
          case 'gift': {
            // Half the gifts come from the actor of the book with the most available and fit what it has (when it has
            // a gift's minimum), so that gifts are made, and then answered, whatever the bursts' interleaving left
            // available (donations keep most funds below a gift's minimum); the others are as drawn.
            const fits = op.cents % 2 === 0;
            const giver = fits ? fullestOf(m, op.user) : op.user;
            const u = users[giver] as TestUser;
            const f = m.funds[giver] as Fund;
            const cents = fits && f.available >= GIFT_MIN_CENTS ? Math.min(op.cents, f.available) : op.cents;
            // An app's gift is counted first; one that is then not made is given back.
            const pastLimit = op.viaApp && (appSpent[giver] as number) + cents > APP_LIMIT_CENTS;
            expected = pastLimit ? 'app_limit_exceeded' : f.available >= cents ? 'ok' : 'insufficient_funds';
            if (op.viaApp && expected === 'ok') appSpent[giver] = (appSpent[giver] as number) + cents;
            let code = '';
            actual = await outcome(async () => {
              code = (await createGift(deps, op.viaApp ? (appCallers[giver] as Caller) : u.caller, { name: 'Someone', amount_cents: cents })).code;
            });
            if (expected === 'ok') {
              f.available -= cents;
              f.reserved += cents;
              const row = await deps.db.selectFrom('gifts').select('id').where('code', '=', code).executeTakeFirstOrThrow();
              m.gifts.push({ id: row.id, code, user: giver, cents: cents, status: 'new' });
            }
            break;
          }
          case 'accept':
          case 'claim':
          case 'deny': {
            // Half the picks among the gifts still open in the recipient's book, the others among all.
            const open = m.gifts.filter((x) => x.status === 'new' && bookOf(x.user) === bookOf(op.user) && x.user !== op.user);
            const among = op.pick % 2 === 0 && open.length > 0 ? open : m.gifts;
            const g = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
            if (g === undefined) continue;
            const recipient = op.viaApp ? (appCallers[op.user] as Caller) : (users[op.user] as TestUser).caller;
            // A gift of the other book is not there for the recipient (rules §14): no money crosses.
            // An app's claim sends the gift's money to a charity: counted against its limit before the gift is locked.
            const counted = op.kind === 'claim' && op.viaApp;
            expected =
              bookOf(op.user) !== bookOf(g.user)
                ? 'gift_not_found'
                : counted && (appSpent[op.user] as number) + g.cents > APP_LIMIT_CENTS
                  ? 'app_limit_exceeded'
                  : op.user === g.user
                    ? 'forbidden'
                    : g.status !== 'new'
                      ? 'invalid_transition'
                      : 'ok';
            if (counted && expected === 'ok') appSpent[op.user] = (appSpent[op.user] as number) + g.cents;
            actual = await outcome(async () => {
              if (op.kind === 'accept') await acceptGift(deps, recipient, g.code);
              else if (op.kind === 'deny') await denyGift(deps, recipient, g.code);
              else await claimGift(deps, recipient, g.code, '261544963');
            });
            if (expected === 'ok') {
              const giver = m.funds[g.user] as Fund;
              giver.reserved -= g.cents;
              if (op.kind === 'accept') {
                g.status = 'accepted';
                (m.funds[op.user] as Fund).available += g.cents;
                promote(m, op.user);
              } else if (op.kind === 'deny') {
                g.status = 'denied';
                giver.available += g.cents;
                promote(m, g.user);
              } else {
                g.status = 'claimed';
                giver.reserved += g.cents;
                const row = await deps.db.selectFrom('gifts').select('donation_id').where('id', '=', g.id).executeTakeFirstOrThrow();
                madeAfter(row.donation_id as number, label);
                m.donations.push({ id: row.donation_id as number, user: g.user, cents: g.cents, status: 'scheduled' });
              }
            }
            break;
          }
          case 'burst': {
            // Which of them the fund covers depends on the order they reach it: the model takes each
            // donation's status from the platform and checks it could be so, and that the app's
            // donations that passed fit its limit while each refused one did not. Half the bursts come
            // from the actor of the book with the most available, so that some of a burst fit and some
            // do not (donations keep most funds empty) and the order decides which.
            const full = (op.moves[0]?.cents ?? 0) % 2 === 0;
            const burster = full ? fullestOf(m, op.user) : op.user;
            const f = m.funds[burster] as Fund;
            // Money for three fifths of the burst arrives first: some of its moves fit, the others wait.
            if (full) await recordWire(deps, m, users[burster] as TestUser, burster, Math.ceil((op.moves.reduce((n, x) => n + x.cents, 0) * 3) / 5), 'success');
            const availableBefore = f.available;
            const all = parallelBursts ? <T>(tasks: Array<() => Promise<T>>) => Promise.all(tasks.map((t) => t())) : oneAfterAnother;
            const order = bursts?.replay?.get(step) ?? op.moves.map((_, i) => i);
            assert.equal(order.length, op.moves.length, `${label}: a replayed burst has every move`);
            const answers = await all(
              order.map((i) => async () => {
                const move = op.moves[i] as (typeof op.moves)[number];
                const caller = move.viaApp ? (appCallers[burster] as Caller) : (users[burster] as TestUser).caller;
                try {
                  return { i, move, made: await createDonation(deps, caller, { amount_cents: move.cents, ein: '261544963' }) };
                } catch (error) {
                  if (error instanceof AppError) return { i, move, refused: error.code };
                  throw error;
                }
              }),
            );
            // The order the platform decided them: the donations made by id (the order a round wrote them), then the refused.
            bursts?.record?.set(step, [
              ...answers
                .filter((a) => a.made !== undefined)
                .sort((a, b) => (a.made?.id ?? 0) - (b.made?.id ?? 0))
                .map((a) => a.i),
              ...answers.filter((a) => a.made === undefined).map((a) => a.i),
            ]);
            for (const a of answers) {
              if (a.refused !== undefined) assert.ok(a.move.viaApp && a.refused === 'app_limit_exceeded', `${label}: only an app's donation is refused, for its limit`);
              else if (a.move.viaApp) appSpent[burster] = (appSpent[burster] as number) + a.move.cents;
            }
            assert.ok((appSpent[burster] as number) <= APP_LIMIT_CENTS, `${label}: the app moved no more than its limit`);
            for (const a of answers) {
              if (a.refused !== undefined) assert.ok((appSpent[burster] as number) + a.move.cents > APP_LIMIT_CENTS, `${label}: a refused donation did not fit`);
              if (a.made === undefined) continue;
              madeAfter(a.made.id, label);
              const status = a.made.status;
              assert.ok(status === 'scheduled' || status === 'waiting_for_funds', label);
              if (status === 'scheduled') {
                f.available -= a.move.cents;
                f.reserved += a.move.cents;
              }
              m.donations.push({ id: a.made.id, user: burster, cents: a.move.cents, status });
            }
            // The platform promotes waiting donations oldest first (by id): the model keeps that order.
            m.donations.sort((a, b) => a.id - b.id);
            assert.ok(f.available >= 0 && f.available <= availableBefore, `${label}: the holds fit what was available`);
            for (const a of answers) {
              if (a.made?.status === 'waiting_for_funds') assert.ok(a.move.cents > f.available, `${label}: a waiting donation did not fit`);
            }
            actual = answers.some((a) => a.refused !== undefined) ? 'app_limit_exceeded' : 'ok';
            expected = actual;
            break;
          }
          case 'members': {
            // Run at once: who wins a race, and which donations the fund covers, depends on the order they
            // reach it; the model takes each status from the platform and checks it could be so.
            const f = m.funds[op.user] as Fund;
            const availableBefore = f.available;
            const team = members.get(op.user);
            assert.ok(team !== undefined);
            const open = m.requests.filter((r) => r.user === op.user);
            const taken = new Set<number>();
            const decide = async (caller: Caller, id: number, approve: boolean) => {
              try {
                return { status: (await decideRequest(deps, caller, id, approve ? { approve: true } : { approve: false, reason: 'property' })).status };
              } catch (error) {
                if (error instanceof AppError) return { refused: error.code };
                throw error;
              }
            };
            const all = parallelMembers ? <T>(tasks: Array<() => Promise<T>>) => Promise.all(tasks.map((t) => t())) : oneAfterAnother;
            const answers = await all(
              op.moves.map((move) => async () => {
                if (move.who === 'family' || move.who === 'advisor') {
                  const made = await createDonation(deps, team[move.who], { amount_cents: move.cents, ein: '261544963' });
                  return { move, made: { id: made.id, status: made.status, cents: move.cents } };
                }
                const free = open.filter((r) => !taken.has(r.id));
                const r = free[move.pick % Math.max(1, free.length)];
                if (r === undefined) return { move };
                taken.add(r.id);
                if (move.who === 'decide') return { move, request: r, decisions: [await decide(move.pick % 2 === 0 ? team.advisor : team.organizer, r.id, move.pick % 2 === 0)] };
                return { move, request: r, decisions: await all([() => decide(team.advisor, r.id, true), () => decide(team.organizer, r.id, false)]) };
              }),
            );
            const held: Array<{ id: number; status: string; cents: number }> = [];
            for (const a of answers) {
              if (a.made !== undefined) {
                madeAfter(a.made.id, label);
                if (a.move.who === 'family') {
                  assert.equal(a.made.status, 'requested', `${label}: a family member's donation is a request`);
                  m.requests.push({ id: a.made.id, user: op.user, cents: a.made.cents });
                } else held.push(a.made);
              }
              if (a.request === undefined || a.decisions === undefined) continue;
              const won = a.decisions.filter((d) => d.status !== undefined);
              assert.equal(won.length, 1, `${label}: one decision wins`);
              for (const lost of a.decisions.filter((d) => d.refused !== undefined)) assert.equal(lost.refused, 'donation_not_requested', label);
              m.requests = m.requests.filter((r) => r.id !== a.request?.id);
              const status = won[0]?.status as string;
              if (status !== 'rejected') held.push({ id: a.request.id, status, cents: a.request.cents });
            }
            for (const d of held) {
              assert.ok(d.status === 'scheduled' || d.status === 'waiting_for_funds', label);
              if (d.status === 'scheduled') {
                f.available -= d.cents;
                f.reserved += d.cents;
              }
              m.donations.push({ id: d.id, user: op.user, cents: d.cents, status: d.status });
            }
            m.donations.sort((a, b) => a.id - b.id);
            assert.ok(f.available >= 0 && f.available <= availableBefore, `${label}: the holds fit what was available`);
            for (const d of held) if (d.status === 'waiting_for_funds') assert.ok(d.cents > f.available, `${label}: a waiting donation did not fit`);
            actual = 'ok';
            break;
          }
          case 'run': {
            // Every approved donation of the book in no payment joins the run: one organisation, one payment by check.
            const joining = m.donations.filter((d) => bookOf(d.user) === op.book && d.status === 'approved' && d.inPayment !== true);
            let paymentId: number | undefined;
            // A run with nothing to pay is refused (the bank rejects a batch with no entry).
            if (joining.length === 0) expected = 'payment_run_empty';
            // Each run its own banking day, in order: the next after the book's last run.
            const payDate = bankingDayFrom(addDays(lastPayDate[op.book], 1));
            if (joining.length > 0) lastPayDate[op.book] = payDate;
            actual = await outcome(async () => {
              const opened = await openRun(deps, op.book, payDate, 'property');
              assert.deepEqual([opened.rejected, opened.held], [[], []], label);
              paymentId = opened.run.payments[0]?.id;
              if (op.submit) await submitRun(deps, op.book, opened.run.id, 'property');
              // A run not submitted is withdrawn half the time: its donations wait, approved, for the next.
              else if (op.withdraw) await withdrawRun(deps, op.book, opened.run.id, 'property', 'property test');
            });
            if (joining.length === 0) {
              assert.equal(paymentId, undefined, `${label}: no payment without grants`);
              break;
            }
            assert.ok(paymentId !== undefined, `${label}: one payment for the approved donations`);
            const withdrawn = !op.submit && op.withdraw;
            for (const d of joining) d.inPayment = !withdrawn;
            m.payments.push({ id: paymentId, book: op.book, status: op.submit ? 'sent' : withdrawn ? 'withdrawn' : 'open', donations: withdrawn ? [] : joining });
            if (op.submit) {
              for (const d of joining) {
                d.status = 'check_mailed';
                (m.funds[d.user] as Fund).reserved -= d.cents;
                m.outside[op.book].grants_paid += d.cents;
              }
            }
            break;
          }
          case 'outcome': {
            // Half the picks among the payments sent (so that cashing and voiding are exercised whatever the
            // bursts' interleaving made of the runs), the others among all (so that wrong transitions are too).
            const sent = m.payments.filter((x) => x.status === 'sent');
            const among = op.pick % 2 === 0 && sent.length > 0 ? sent : m.payments;
            const p = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
            if (p === undefined) continue;
            const inBook = p.book === op.book;
            expected = !inBook ? 'payment_not_found' : p.status === 'sent' ? 'ok' : 'invalid_transition';
            actual = await outcome(() => settle(deps, op.book, p.id, op.outcome, { actor: 'property', reason: 'property test' }));
            if (expected === 'ok') {
              p.status = op.outcome === 'cash' ? 'cashed' : 'voided';
              // The platform gives each grant back in turn and promotes its fund's waiting donations after each.
              for (const d of [...p.donations].sort((x, y) => x.id - y.id)) {
                d.status = op.outcome === 'cash' ? 'completed' : 'not_completed';
                if (op.outcome === 'void') {
                  (m.funds[d.user] as Fund).available += d.cents;
                  m.outside[p.book].grants_paid -= d.cents;
                  promote(m, d.user);
                }
              }
            }
            break;
          }
          case 'allocate': {
            const iv = m.invested[op.user] as Invested;
            const chosen = op.portfolio === 2 ? null : (portfolioIds[op.portfolio] as number);
            actual = await outcome(() => setAllocation(deps, (users[op.user] as TestUser).caller, { portfolio_id: chosen, invest_share: op.share }));
            const invested = iv.held !== null || (m.funds[op.user] as Fund).portfolio > 0;
            iv.chosen = chosen;
            iv.share = op.share;
            iv.exchange = invested && chosen !== iv.held ? { to: chosen } : null;
            break;
          }
          case 'valuate': {
            const n = m.valuations;
            const at = valuationTime(n);
            for (const [i, s] of PROPERTY_SYMBOLS.entries()) m.prices[s] = (m.prices[s] as Big).times(new Big(1).plus(new Big(op.changes[i] ?? 0).div(10_000))).round(8, HALF_EVEN);
            actual = await outcome(async () => {
              await importPrices(
                deps,
                PROPERTY_SYMBOLS.map((s) => ({ symbol: s, price: (m.prices[s] as Big).toFixed(8), time: at })),
                'property',
              );
              await runValuation(deps, at, 'property');
            });
            modelValuation(m, portfolioIds, n === 0 ? 0 : 86_400_000, bookOf, n === 0 || valuationTime(n).slice(0, 7) !== valuationTime(n - 1).slice(0, 7));
            m.valuations += 1;
            break;
          }
          case 'invest':
          case 'liquidate': {
            const u = users[op.user] as TestUser;
            const f = m.funds[op.user] as Fund;
            const source = op.kind === 'invest' ? f.available : f.portfolio;
            const iv = m.invested[op.user] as Invested;
            expected = iv.held !== null || iv.chosen !== null ? 'fund_holds_units' : source >= op.cents ? 'ok' : 'insufficient_funds';
            actual = await outcome(() => movePortfolio(deps, u.fund_id, op.kind, op.cents, 'property'));
            if (expected === 'ok') {
              if (op.kind === 'invest') {
                f.available -= op.cents;
                f.portfolio += op.cents;
              } else {
                f.portfolio -= op.cents;
                f.available += op.cents;
                promote(m, op.user);
              }
            }
            break;
          }
        }
        assert.equal(actual, expected, label);
        // The step and its operation with the outcome: a divergence between two runs names its first step.
        outcomes.push(`${step} ${JSON.stringify(op)}: ${actual}`);
        seen.set(`${op.kind}:${actual}`, (seen.get(`${op.kind}:${actual}`) ?? 0) + 1);

        // Each book's outside accounts move only by that book's own causes.
        const outsideRows = await deps.db.selectFrom('ledger_accounts').select(['kind', 'book', 'balance_cents']).where('fund_id', 'is', null).execute();
        for (const r of outsideRows) assert.equal(r.balance_cents, m.outside[r.book][r.kind] ?? 0, `${label}: ${r.book} ${r.kind}`);
        for (const b of ['live', 'test'] as const)
          for (const [kind, cents] of Object.entries(m.outside[b]))
            if (cents !== 0)
              assert.ok(
                outsideRows.some((r) => r.book === b && r.kind === kind),
                `${label}: ${b} ${kind} exists`,
              );
        // Every fund's four figures agree with the model after every step.
        const rows = await deps.db
          .selectFrom('ledger_accounts')
          .select(['fund_id', 'kind', 'balance_cents'])
          .where(
            'fund_id',
            'in',
            users.map((u) => u.fund_id),
          )
          .execute();
        for (const [i, u] of users.entries()) {
          const f = m.funds[i] as Fund;
          const got = Object.fromEntries(rows.filter((r) => r.fund_id === u.fund_id).map((r) => [r.kind, r.balance_cents]));
          assert.deepEqual(got, { pending_deposit: f.pending, available: f.available, reserved: f.reserved, portfolio: f.portfolio }, `${label}: fund of user ${i}`);
        }
        if (step % 1000 === 999 || step === ops.length - 1) {
          const statuses = await deps.db.selectFrom('donations').select(['id', 'status']).execute();
          const byId = new Map(statuses.map((d) => [d.id, d.status]));
          for (const d of m.donations) assert.equal(byId.get(d.id), d.status, `${label}: donation ${d.id}`);
        }
      }
      // The sequence reached every kind of outcome that matters.
      for (const k of [
        'contribute:ok',
        'clear:ok',
        'fail:ok',
        'clear:contribution_not_found',
        'donate:ok',
        'app_donate:ok',
        'app_donate:app_limit_exceeded',
        'cancel:ok',
        'cancel:donation_not_cancellable',
        'event:ok',
        'event:invalid_transition',
        'event:donation_not_found',
        'gift:ok',
        'gift:insufficient_funds',
        'gift:app_limit_exceeded',
        'burst:ok',
        'members:ok',
        'burst:app_limit_exceeded',
        'accept:ok',
        'accept:gift_not_found',
        'claim:ok',
        'claim:gift_not_found',
        'deny:ok',
        'deny:gift_not_found',
        'invest:ok',
        'liquidate:ok',
        'run:ok',
        'run:payment_run_empty',
        'outcome:ok',
        'outcome:invalid_transition',
        'event:donation_in_payment',
        'allocate:ok',
        'correct:ok',
        'correct:insufficient_funds',
        'correct:invalid_transition',
        'valuate:ok',
        'invest:fund_holds_units',
      ]) {
        assert.ok((seen.get(k) ?? 0) > 0, `the sequence exercised ${k}`);
      }
      // What each app moved, read from the platform: its donations, gifts and claims, within its limit and as the model counted.
      const moved = await deps.db
        .selectFrom('donations')
        .select(['app_connection_id', 'amount_cents'])
        .where('app_connection_id', 'is not', null)
        .unionAll(deps.db.selectFrom('gifts').select(['app_connection_id', 'amount_cents']).where('app_connection_id', 'is not', null))
        .execute();
      const byConnection = new Map<number, number>();
      for (const r of moved) byConnection.set(Number(r.app_connection_id), (byConnection.get(Number(r.app_connection_id)) ?? 0) + Number(r.amount_cents));
      for (const [i, caller] of appCallers.entries()) {
        const total = byConnection.get(caller.app?.connection_id ?? 0) ?? 0;
        assert.ok(total <= APP_LIMIT_CENTS, `actor ${i}'s app moved ${total} cents, past its limit`);
        assert.equal(total, appSpent[i], `actor ${i}'s app moved what the model counted`);
      }
      assert.deepEqual(
        (await runCheck(deps)).flatMap((c) => c.failures),
        [],
        'almoner check holds',
      );
      await assertLedgerBalanced(env.deps);
      return booksOf(env, users, outcomes);
    }
  }
}

/** Runs the tasks one after another, in order. */
async function oneAfterAnother<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (const task of tasks) out.push(await task());
  return out;
}

/** The books of a run, each part in creation order or sorted, never by id (ids may be taken ahead). */
async function booksOf(env: TestEnv, users: readonly TestUser[], outcomes: string[]): Promise<Books> {
  const { db } = env.deps;
  const actorOf = new Map(users.map((u, i) => [u.fund_id, i]));
  const accounts = await db.selectFrom('ledger_accounts').select(['fund_id', 'kind', 'balance_cents']).execute();
  const funds = users.map((u) => Object.fromEntries(accounts.filter((a) => a.fund_id === u.fund_id).map((a) => [a.kind, Number(a.balance_cents)])));
  const byCreation = <R extends { created_at: string; id: number }>(rows: R[]) => rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id);
  const donations = byCreation(await db.selectFrom('donations').select(['id', 'fund_id', 'amount_cents', 'status', 'created_at']).execute()).map(
    (d) => `${actorOf.get(d.fund_id)} ${d.amount_cents} ${d.status}`,
  );
  const gifts = byCreation(await db.selectFrom('gifts').select(['id', 'fund_id', 'amount_cents', 'status', 'created_at']).execute()).map(
    (g) => `${actorOf.get(g.fund_id)} ${g.amount_cents} ${g.status}`,
  );
  const contributions = byCreation(await db.selectFrom('contributions').select(['id', 'fund_id', 'amount_cents', 'status', 'created_at']).execute()).map(
    (c) => `${actorOf.get(c.fund_id)} ${c.amount_cents} ${c.status}`,
  );
  const entries = (
    await db
      .selectFrom('postings as p')
      .innerJoin('journal_entries as e', 'e.id', 'p.entry_id')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select(['e.memo', 'e.book', 'a.fund_id', 'a.kind', 'p.amount_cents'])
      .execute()
  )
    .map((p) => `${p.book} ${p.memo}: ${p.fund_id === null ? 'outside' : actorOf.get(p.fund_id)} ${p.kind} ${p.amount_cents}`)
    .sort();
  return { outcomes, funds, donations, gifts, contributions, entries };
}
