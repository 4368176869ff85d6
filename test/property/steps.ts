// The steps of the money rules' property test, one per operation: each acts on the platform, as
// a request's use case would, and moves the model beside it (test/property/model.ts); it returns
// the outcome it expected and the one the platform gave (an error's code, or 'ok'), or nothing
// when the step found nothing to act on.
import assert from 'node:assert/strict';
import Big from 'big.js';
import { AppError } from '../../src/shared/errors.ts';
import type { Caller } from '../../src/shared/caller.ts';
import { advanceContribution, cancelContribution, correctReceivedValue, declareContribution, recordArrivalAudited } from '../../src/modules/contributions/index.ts';
import { applyDonationEvent, cancelDonation, createDonation, decideRequest, DONATION_TRANSITIONS } from '../../src/modules/donations/index.ts';
import { acceptGift, claimGift, createGift, denyGift, GIFT_MIN_CENTS } from '../../src/modules/gifts/index.ts';
import { claimKey, type IdempotencyClaim } from '../../src/modules/idempotency/index.ts';
import { importPrices, investNow, movePortfolio, runValuation, setAllocation } from '../../src/modules/portfolio/index.ts';
import { addDays, bankingDayFrom, openRun, settle, submitRun, withdrawRun } from '../../src/modules/payments/index.ts';
import type { TestUser } from '../harness.ts';
import {
  APP_LIMIT_CENTS,
  bookOf,
  fullestOf,
  HALF_EVEN,
  investShare,
  modelValuation,
  outcome,
  promote,
  PROPERTY_SYMBOLS,
  recordWire,
  valuationTime,
  type Fund,
  type Invested,
  type Model,
  type Op,
} from './model.ts';
import type { World } from './world.ts';
import { stepEndMatch, stepFundraise, stepMatch } from './steps.matching.ts';
import { stepGrant } from './steps.checkout.ts';

/** The operation of a kind. */
export type OpOf<K extends Op['kind']> = Extract<Op, { kind: K }>;
/** Where a step is in its sequence, and how a failure names it. */
export interface At {
  step: number;
  label: string;
}
/** What a step expected and what the platform answered. */
export interface Outcome {
  expected: string;
  actual: string;
}

/** Runs the tasks one after another, in order. */
async function oneAfterAnother<T>(tasks: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (const task of tasks) out.push(await task());
  return out;
}

async function stepContribute(m: Model, w: World, op: OpOf<'contribute'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users } = w;
  const expected = 'ok';
  const actual = await outcome(() => recordWire(deps, m, users[op.user] as TestUser, op.user, op.cents, op.status));
  return { expected, actual };
}

async function stepReceive(m: Model, w: World, op: OpOf<'receive' | 'clear' | 'fail'>, _at: At): Promise<Outcome | undefined> {
  const { deps } = w;
  const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
  if (c === undefined) return undefined;
  const to = op.kind === 'receive' ? 'pending' : op.kind === 'clear' ? 'success' : 'failed';
  const inBook = bookOf(c.user) === op.book;
  const allowed = inBook && ((c.status === 'waiting_for_funds' && (to === 'pending' || to === 'failed')) || (c.status === 'pending' && (to === 'success' || to === 'failed')));
  const expected = !inBook ? 'contribution_not_found' : allowed ? 'ok' : 'invalid_transition';
  const actual = await outcome(() => advanceContribution(deps, op.book, c.id, to, 'property'));
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
  return { expected, actual };
}

async function stepDeclare(m: Model, w: World, op: OpOf<'declare'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users } = w;
  const expected = 'ok';
  const u = users[op.user] as TestUser;
  let id = 0;
  const actual = await outcome(async () => {
    id = (await declareContribution(deps, u.caller, { type: 'wire_payment', amount: op.cents / 100 })).id;
  });
  // Declared: waiting for its money, nothing moved.
  m.contributions.push({ id, user: op.user, cents: op.cents, status: 'waiting_for_funds', declared: true });
  return { expected, actual };
}

async function stepArrive(m: Model, w: World, op: OpOf<'arrive'>, _at: At): Promise<Outcome | undefined> {
  const { deps } = w;
  const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
  if (c === undefined) return undefined;
  const inBook = bookOf(c.user) === op.book;
  // What arrives more than 10% away from the declaration is refused unless the operator forces it (half the time).
  const force = op.pick % 2 === 0;
  const differs = c.declared === true && c.cents > 0 && !force && Math.abs(op.cents - c.cents) * 10 > c.cents;
  const allowed = inBook && c.declared === true && c.status === 'waiting_for_funds' && !differs;
  const expected = !inBook ? 'contribution_not_found' : c.declared !== true ? 'invalid_transition' : differs ? 'received_differs' : allowed ? 'ok' : 'invalid_transition';
  const actual = await outcome(() => recordArrivalAudited(deps, op.book, c.id, { units: (op.cents / 100).toFixed(2), valuation: '1', force }, 'property'));
  // What arrived replaces what was declared; money moves when it is received (pending).
  if (allowed) c.cents = op.cents;
  return { expected, actual };
}

async function stepCorrect(m: Model, w: World, op: OpOf<'correct'>, _at: At): Promise<Outcome | undefined> {
  const { deps } = w;
  // Half the picks among the contributions with money received, the others among all.
  const received = m.contributions.filter((x) => x.status === 'pending' || x.status === 'success');
  const among = op.pick % 2 === 0 && received.length > 0 ? received : m.contributions;
  const c = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
  if (c === undefined) return undefined;
  const f = m.funds[c.user] as Fund;
  const delta = op.cents - c.cents;
  const held = c.status === 'pending' ? f.pending : f.available;
  const expected =
    bookOf(c.user) !== op.book
      ? 'contribution_not_found'
      : c.status !== 'pending' && c.status !== 'success'
        ? 'invalid_transition'
        : delta < 0 && held < -delta
          ? 'insufficient_funds'
          : 'ok';
  const actual = await outcome(() => correctReceivedValue(deps, op.book, c.id, { units: (op.cents / 100).toFixed(2), valuation: '1', reason: 'property' }, 'property'));
  if (expected === 'ok') {
    // The difference moves between the deposits account and the money the contribution made.
    if (c.status === 'pending') f.pending += delta;
    else f.available += delta;
    m.outside[bookOf(c.user)].deposits -= delta;
    c.cents = op.cents;
    if (c.status === 'success' && delta > 0) promote(m, c.user);
  }
  return { expected, actual };
}

async function stepWithdraw(m: Model, w: World, op: OpOf<'withdraw'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users } = w;
  const c = m.contributions[op.pick % Math.max(1, m.contributions.length)];
  if (c === undefined) return undefined;
  const u = users[op.user] as TestUser;
  const own = c.user === op.user;
  const allowed = own && c.declared === true && c.status === 'waiting_for_funds';
  const expected = !own ? 'contribution_not_found' : allowed ? 'ok' : 'contribution_not_cancellable';
  const actual = await outcome(() => cancelContribution(deps, u.caller, c.id));
  if (allowed) c.status = 'failed';
  return { expected, actual };
}

async function stepDonate(m: Model, w: World, op: OpOf<'donate' | 'app_donate'>, at: At): Promise<Outcome | undefined> {
  const { deps, users, appCallers, appSpent, madeAfter } = w;
  const { step, label } = at;
  let expected = 'ok';
  const caller = op.kind === 'donate' ? (users[op.user] as TestUser).caller : (appCallers[op.user] as Caller);
  let created = { id: 0, status: '' };
  const donate = async (claim?: IdempotencyClaim) => {
    created = await createDonation(deps, caller, { amount_cents: op.cents, ein: '261544963' }, claim);
  };
  // With an Idempotency-Key, as a careful client sends: claimed, the outcome recorded with the donation.
  const key = `step-${step}`;
  const claimed = op.keyed ? await claimKey(deps, caller.user_id, key, 'hash') : undefined;
  if (claimed !== undefined && claimed.kind !== 'claimed') assert.fail(`${label}: a fresh key is claimed`);
  const actual = await outcome(() => donate(claimed?.claim));
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
      return { expected, actual };
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
  return { expected, actual };
}

async function stepCancel(m: Model, w: World, op: OpOf<'cancel'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users } = w;
  // Half the picks among donations a match bound (rules §22), which are few.
  const bound = m.donations.filter((x) => x.bound === true);
  const pool = op.pick % 2 === 0 && bound.length > 0 ? bound : m.donations;
  const d = pool[Math.floor(op.pick / 2) % Math.max(1, pool.length)];
  if (d === undefined) return undefined;
  const ok = d.bound !== true && (d.status === 'scheduled' || d.status === 'waiting_for_funds');
  const expected = d.bound === true ? 'donation_matched' : ok ? 'ok' : 'donation_not_cancellable';
  const actual = await outcome(() => cancelDonation(deps, (users[d.user] as TestUser).caller, d.id));
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
  return { expected, actual };
}

async function stepEvent(m: Model, w: World, op: OpOf<'event'>, _at: At): Promise<Outcome | undefined> {
  const { deps } = w;
  // Half the picks among the donations the event applies to (so that every transition is exercised
  // whatever the bursts' interleaving left waiting), the others among all (wrong transitions, other books).
  const rule = DONATION_TRANSITIONS[op.event];
  const fitting = m.donations.filter((x) => (rule.from as readonly string[]).includes(x.status));
  const among = op.pick % 2 === 0 && fitting.length > 0 ? fitting : m.donations;
  const d = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
  if (d === undefined) return undefined;
  const inBook = bookOf(d.user) === op.book;
  const ok = inBook && (rule.from as readonly string[]).includes(d.status);
  const expected = !inBook ? 'donation_not_found' : !ok ? 'invalid_transition' : d.inPayment === true ? 'donation_in_payment' : 'ok';
  const actual = await outcome(() => applyDonationEvent(deps, op.book, d.id, op.event, { actor: 'property', reason: 'property test' }));
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
  return { expected, actual };
}

async function stepGift(m: Model, w: World, op: OpOf<'gift'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users, appCallers, appSpent } = w;
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
  const expected = pastLimit ? 'app_limit_exceeded' : f.available >= cents ? 'ok' : 'insufficient_funds';
  if (op.viaApp && expected === 'ok') appSpent[giver] = (appSpent[giver] as number) + cents;
  let code = '';
  const actual = await outcome(async () => {
    code = (await createGift(deps, op.viaApp ? (appCallers[giver] as Caller) : u.caller, { name: 'Someone', amount_cents: cents })).code;
  });
  if (expected === 'ok') {
    f.available -= cents;
    f.reserved += cents;
    const row = await deps.db.selectFrom('gifts').select('id').where('code', '=', code).executeTakeFirstOrThrow();
    m.gifts.push({ id: row.id, code, user: giver, cents: cents, status: 'new' });
  }
  return { expected, actual };
}

async function stepAccept(m: Model, w: World, op: OpOf<'accept' | 'claim' | 'deny'>, at: At): Promise<Outcome | undefined> {
  const { deps, users, appCallers, appSpent, madeAfter } = w;
  const { label } = at;
  // Half the picks among the gifts still open in the recipient's book, the others among all.
  const open = m.gifts.filter((x) => x.status === 'new' && bookOf(x.user) === bookOf(op.user) && x.user !== op.user);
  const among = op.pick % 2 === 0 && open.length > 0 ? open : m.gifts;
  const g = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
  if (g === undefined) return undefined;
  const recipient = op.viaApp ? (appCallers[op.user] as Caller) : (users[op.user] as TestUser).caller;
  // A gift of the other book is not there for the recipient (rules §14): no money crosses.
  // An app's claim sends the gift's money to a charity: counted against its limit before the gift is locked.
  const counted = op.kind === 'claim' && op.viaApp;
  const expected =
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
  const actual = await outcome(async () => {
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
  return { expected, actual };
}

async function stepBurst(m: Model, w: World, op: OpOf<'burst'>, at: At): Promise<Outcome | undefined> {
  const { deps, users, appCallers, appSpent, madeAfter, parallelBursts, bursts } = w;
  const { step, label } = at;
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
  const actual = answers.some((a) => a.refused !== undefined) ? 'app_limit_exceeded' : 'ok';
  const expected = actual;
  return { expected, actual };
}

async function stepMembers(m: Model, w: World, op: OpOf<'members'>, at: At): Promise<Outcome | undefined> {
  const { deps, members, madeAfter, parallelMembers } = w;
  const { label } = at;
  const expected = 'ok';
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
  const actual = 'ok';
  return { expected, actual };
}

async function stepRun(m: Model, w: World, op: OpOf<'run'>, at: At): Promise<Outcome | undefined> {
  const { deps, lastPayDate } = w;
  const { label } = at;
  let expected = 'ok';
  // Every approved donation of the book in no payment joins the run: one organisation, one payment by check.
  const joining = m.donations.filter((d) => bookOf(d.user) === op.book && d.status === 'approved' && d.inPayment !== true);
  let paymentId: number | undefined;
  // A run with nothing to pay is refused (the bank rejects a batch with no entry).
  if (joining.length === 0) expected = 'payment_run_empty';
  // Each run its own banking day, in order: the next after the book's last run.
  const payDate = bankingDayFrom(addDays(lastPayDate[op.book], 1));
  if (joining.length > 0) lastPayDate[op.book] = payDate;
  const actual = await outcome(async () => {
    const opened = await openRun(deps, op.book, payDate, 'property');
    assert.deepEqual([opened.rejected, opened.held], [[], []], label);
    paymentId = opened.run.payments[0]?.id;
    if (op.submit) await submitRun(deps, op.book, opened.run.id, 'property');
    // A run not submitted is withdrawn half the time: its donations wait, approved, for the next.
    else if (op.withdraw) await withdrawRun(deps, op.book, opened.run.id, 'property', 'property test');
  });
  if (joining.length === 0) {
    assert.equal(paymentId, undefined, `${label}: no payment without grants`);
    return { expected, actual };
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
  return { expected, actual };
}

async function stepOutcome(m: Model, w: World, op: OpOf<'outcome'>, _at: At): Promise<Outcome | undefined> {
  const { deps } = w;
  // Half the picks among the payments sent (so that cashing and voiding are exercised whatever the
  // bursts' interleaving made of the runs), the others among all (so that wrong transitions are too).
  const sent = m.payments.filter((x) => x.status === 'sent');
  const among = op.pick % 2 === 0 && sent.length > 0 ? sent : m.payments;
  const p = among[Math.floor(op.pick / 2) % Math.max(1, among.length)];
  if (p === undefined) return undefined;
  const inBook = p.book === op.book;
  const expected = !inBook ? 'payment_not_found' : p.status === 'sent' ? 'ok' : 'invalid_transition';
  const actual = await outcome(() => settle(deps, op.book, p.id, op.outcome, { actor: 'property', reason: 'property test' }));
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
  return { expected, actual };
}

async function stepAllocate(m: Model, w: World, op: OpOf<'allocate'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users, portfolioIds } = w;
  const expected = 'ok';
  const iv = m.invested[op.user] as Invested;
  const chosen = op.portfolio === 2 ? null : (portfolioIds[op.portfolio] as number);
  const actual = await outcome(() => setAllocation(deps, (users[op.user] as TestUser).caller, { portfolio_id: chosen, invest_share: op.share }));
  const invested = iv.held !== null || (m.funds[op.user] as Fund).portfolio > 0;
  iv.chosen = chosen;
  iv.share = op.share;
  iv.exchange = invested && chosen !== iv.held ? { to: chosen } : null;
  return { expected, actual };
}

async function stepValuate(m: Model, w: World, op: OpOf<'valuate'>, _at: At): Promise<Outcome | undefined> {
  const { deps, portfolioIds } = w;
  const expected = 'ok';
  const n = m.valuations;
  const at = valuationTime(n);
  for (const [i, s] of PROPERTY_SYMBOLS.entries()) m.prices[s] = (m.prices[s] as Big).times(new Big(1).plus(new Big(op.changes[i] ?? 0).div(10_000))).round(8, HALF_EVEN);
  const actual = await outcome(async () => {
    await importPrices(
      deps,
      PROPERTY_SYMBOLS.map((s) => ({ symbol: s, price: (m.prices[s] as Big).toFixed(8), time: at })),
      'property',
    );
    await runValuation(deps, at, 'property');
  });
  modelValuation(m, portfolioIds, n === 0 ? 0 : 86_400_000, bookOf, n === 0 || valuationTime(n).slice(0, 7) !== valuationTime(n - 1).slice(0, 7));
  m.valuations += 1;
  return { expected, actual };
}

async function stepInvest(m: Model, w: World, op: OpOf<'invest' | 'liquidate'>, _at: At): Promise<Outcome | undefined> {
  const { deps, users } = w;
  // Half the liquidations come from a fund of the book whose portfolio money was invested by hand (no
  // units, no portfolio chosen) and take at most what it holds, so that some succeed whatever the
  // other operations made of the funds; the others are as drawn.
  const byHand = (i: number) => m.invested[i]?.held === null && m.invested[i]?.chosen === null && (m.funds[i]?.portfolio ?? 0) > 0 && bookOf(i) === bookOf(op.user);
  const fits = op.kind === 'liquidate' && op.cents % 2 === 0;
  const actor = fits ? (m.funds.findIndex((_, i) => byHand(i)) >= 0 ? m.funds.findIndex((_, i) => byHand(i)) : op.user) : op.user;
  const u = users[actor] as TestUser;
  const f = m.funds[actor] as Fund;
  const cents = fits && f.portfolio > 0 ? Math.min(op.cents, f.portfolio) : op.cents;
  const source = op.kind === 'invest' ? f.available : f.portfolio;
  const iv = m.invested[actor] as Invested;
  const expected = iv.held !== null || iv.chosen !== null ? 'fund_holds_units' : source >= cents ? 'ok' : 'insufficient_funds';
  const actual = await outcome(() => movePortfolio(deps, u.fund_id, op.kind, cents, 'property'));
  if (expected === 'ok') {
    if (op.kind === 'invest') {
      f.available -= cents;
      f.portfolio += cents;
    } else {
      f.portfolio -= cents;
      f.available += cents;
      promote(m, actor);
    }
  }
  return { expected, actual };
}

/** A donor invests money the fund holds now: bought at the next valuation, nothing moves now (rules §19). */
async function stepInvestNow(m: Model, w: World, op: OpOf<'invest_now'>, _at: At): Promise<Outcome | undefined> {
  const iv = m.invested[op.user] as Invested;
  const f = m.funds[op.user] as Fund;
  const expected = iv.chosen === null ? 'portfolio_not_chosen' : op.cents > f.available - iv.heldPending ? 'insufficient_funds' : 'ok';
  const actual = await outcome(() => investNow(w.deps, (w.users[op.user] as TestUser).caller, op.cents));
  if (expected === 'ok') {
    iv.investments.push(op.cents);
    iv.heldPending += op.cents;
  }
  return { expected, actual };
}

/** Each operation's step. */
const STEP_OF: { [K in Op['kind']]: (m: Model, w: World, op: OpOf<K>, at: At) => Promise<Outcome | undefined> } = {
  contribute: stepContribute,
  receive: stepReceive,
  clear: stepReceive,
  fail: stepReceive,
  declare: stepDeclare,
  arrive: stepArrive,
  correct: stepCorrect,
  withdraw: stepWithdraw,
  donate: stepDonate,
  app_donate: stepDonate,
  cancel: stepCancel,
  event: stepEvent,
  gift: stepGift,
  accept: stepAccept,
  claim: stepAccept,
  deny: stepAccept,
  burst: stepBurst,
  members: stepMembers,
  run: stepRun,
  outcome: stepOutcome,
  allocate: stepAllocate,
  valuate: stepValuate,
  invest: stepInvest,
  invest_now: stepInvestNow,
  liquidate: stepInvest,
  match: stepMatch,
  fundraise: stepFundraise,
  end_match: stepEndMatch,
  grant: stepGrant,
};

/** Runs an operation's step. */
export function runStep(m: Model, w: World, op: Op, at: At): Promise<Outcome | undefined> {
  return (STEP_OF[op.kind] as (m: Model, w: World, op: Op, at: At) => Promise<Outcome | undefined>)(m, w, op, at);
}
