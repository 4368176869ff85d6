// The platform side of the money rules' property test: a database with its users, their keys and
// apps, a shared fund's members and the portfolios (openWorld); each operation as a fast-check
// model-based command (OpCommand), checked against the model after it ran; and what the whole
// sequence must leave (finish) and the books two runs are compared by (booksOf).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Big from 'big.js';
import { makeUser, makeNonProfit, assertLedgerBalanced, type TestEnv, type TestUser } from '../harness.ts';
import type { Deps } from '../../src/deps.ts';
import type { Book } from '../../src/shared/book.ts';
import type { Caller } from '../../src/shared/caller.ts';
import { acceptInvitation, inviteMember } from '../../src/modules/members/api.ts';
import { callerOfKey } from '../../src/modules/keys/index.ts';
import { createKeyForOwner } from '../../src/modules/users/index.ts';
import { createPortfolio } from '../../src/modules/portfolio/index.ts';
import { callerOfAccessToken } from '../../src/modules/apps/index.ts';
import { runCheck } from '../../src/modules/check/index.ts';
import { createFundraiser } from '../../src/modules/fundraisers/index.ts';
import { connectApp } from '../app-tokens.ts';
import { APP_LIMIT_CENTS, bookOf, PROPERTY_PORTFOLIOS, USERS, type Books, type Fund, type Model, type Op } from './model.ts';
import { runStep } from './steps.ts';

/**
 * How a run goes: `parallelBursts` sends each burst's moves at once (a batched writer then forms
 * rounds of them), `parallelMembers` the members' operations too (default: as the bursts);
 * `bursts.record` notes, for each burst step, the order the platform decided its moves (the made
 * ones by donation id, then the refused), and `bursts.replay` sends each burst's moves one after
 * another in such an order.
 */
export interface RunOptions {
  parallelBursts: boolean;
  parallelMembers?: boolean;
  bursts?: { record?: Map<number, number[]>; replay?: ReadonlyMap<number, readonly number[]> };
  /** How a failure says to replay the run. */
  replay: string;
  /** Set to each step as it starts: where a run that failed got to. */
  reached: { step: number };
  /**
   * After `steps` operations, the rest run only until each of `kinds` (operation:outcome) was met,
   * then are passed over: a sequence that met them all early is `steps` long, one that did not
   * carries on, instead of failing for lack of luck.
   */
  coverage?: { steps: number; kinds: readonly string[] };
}

/** The platform side of a run, and what the steps so far did. */
export interface World {
  env: TestEnv;
  deps: Deps;
  /** The actors: each user's live key, then each user's sandbox key. */
  users: TestUser[];
  /** Each actor's app, acting on the actor's fund in its book. */
  appCallers: Caller[];
  /** What each actor's app has moved this month, as the model counts it. */
  appSpent: number[];
  /** The members of user 0's fund (and of its sandbox twin's). */
  members: Map<number, { family: Caller; advisor: Caller; organizer: Caller }>;
  portfolioIds: number[];
  /** Each book's fundraiser for the property's organisation, opened by its first user. */
  fundraisers: Record<Book, number>;
  lastPayDate: Record<Book, string>;
  /** Asserts a donation made now has a larger id than the one made before (steps one after another). */
  madeAfter: (id: number, label: string) => void;
  parallelBursts: boolean;
  parallelMembers: boolean;
  bursts: RunOptions['bursts'];
  replay: string;
  reached: { step: number };
  step: number;
  /** Every step's operation and outcome: a divergence between two runs names its first step. */
  outcomes: string[];
  /** How often each operation met each outcome. */
  seen: Map<string, number>;
  coverage: RunOptions['coverage'];
}

/** A new platform's users, keys, apps, members and portfolios, and the empty model beside them. */
export async function openWorld(env: TestEnv, options: RunOptions): Promise<{ model: Model; real: World }> {
  const { deps } = env;
  await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
  const people: TestUser[] = [];
  for (let i = 0; i < USERS; i++) people.push(await makeUser(deps));
  // Actors: the live keys, then a sandbox key of each user (a real key, resolved as a request's would be).
  const users: TestUser[] = [...people];
  for (const person of people) {
    const made = await createKeyForOwner(deps, person.user_id, 'property', 'test');
    const caller = (await callerOfKey(deps, made.key)) as Caller;
    assert.equal(caller.book, 'test');
    users.push({ user_id: caller.user_id, fund_id: caller.fund_id, slug: '', key: made.key, caller });
  }
  // Each actor's app: a live app of the user for a live actor, a sandbox app for a sandbox one,
  // resolved from its access token as a request's would be; it acts on the same fund as the key.
  const appCallers: Caller[] = [];
  for (const [i, u] of users.entries()) {
    const tokens = await connectApp(deps, (people[i % USERS] as TestUser).user_id, { scopes: ['read', 'donate', 'gifts'], book: bookOf(i), monthlyLimitCents: APP_LIMIT_CENTS });
    const caller = await callerOfAccessToken(deps, tokens.oidc, tokens.accessToken);
    assert.ok(caller !== undefined);
    assert.deepEqual([caller.book, caller.fund_id], [bookOf(i), u.fund_id], `actor ${i}'s app acts on its fund, in its book`);
    appCallers.push(caller);
  }
  const members = await membersOf(deps, users);
  const portfolioIds: number[] = [];
  for (const p of PROPERTY_PORTFOLIOS) portfolioIds.push((await createPortfolio(deps, { description: '', ...p }, 'property')).id);
  const today = deps.clock.now().toISOString().slice(0, 10);
  const fundraisers = {
    live: (await createFundraiser(deps, (users[0] as TestUser).caller, { ein: '261544963', title: 'Property', goal_cents: 1_000_000 })).id,
    test: (await createFundraiser(deps, (users[USERS] as TestUser).caller, { ein: '261544963', title: 'Property', goal_cents: 1_000_000 })).id,
  };
  // On one node a donation made later has a larger id (waiting donations are promoted oldest
  // first, by id): checked where the steps run one after another, so that "later" is defined.
  let lastMade = 0;
  const madeAfter = (id: number, label: string) => {
    if (options.parallelBursts) return;
    assert.ok(id > lastMade, `${label}: donation ${id} was made after donation ${lastMade}, so its id is larger`);
    lastMade = id;
  };
  const model: Model = {
    funds: users.map(() => ({ pending: 0, available: 0, reserved: 0, portfolio: 0 })),
    donations: [],
    matches: [],
    requests: [],
    payments: [],
    gifts: [],
    contributions: [],
    outside: { live: { deposits: 0, grants_paid: 0 }, test: { deposits: 0, grants_paid: 0 } },
    invested: users.map(() => ({ chosen: null, share: 0, held: null, units: new Big(0), exchange: null, investments: [], heldPending: 0 })),
    units: new Map(),
    valuations: 0,
    prices: { VTI: new Big('250'), BND: new Big('72.5'), VNQ: new Big('88.125') },
  };
  const real: World = {
    env,
    deps,
    users,
    appCallers,
    appSpent: users.map(() => 0),
    members,
    portfolioIds,
    fundraisers,
    lastPayDate: { live: today, test: today },
    madeAfter,
    parallelBursts: options.parallelBursts,
    parallelMembers: options.parallelMembers ?? options.parallelBursts,
    bursts: options.bursts,
    replay: options.replay,
    reached: options.reached,
    step: 0,
    outcomes: [],
    seen: new Map(),
    coverage: options.coverage,
  };
  return { model, real };
}

/**
 * The members of user 0's fund: a family member and an advisor, invited and accepted; each acts with a
 * live key and a sandbox key, and the sandbox twins follow the membership into the twin's fund.
 */
async function membersOf(deps: Deps, users: readonly TestUser[]): Promise<World['members']> {
  const organizer = users[0] as TestUser;
  const twin = users[USERS] as TestUser;
  const made: Record<'family' | 'advisor', { live: Caller; test: Caller }> = {} as never;
  for (const role of ['family', 'advisor'] as const) {
    const person = await makeUser(deps, { name: `Property ${role}` });
    const email = `property-${role}@example.org`;
    const now = new Date().toISOString();
    await deps.db.insertInto('accounts').values({ user_id: person.user_id, email, password_hash: 'x', created_at: now, email_confirmed_at: now }).execute();
    const { token } = await inviteMember(deps, organizer.caller, { email, role });
    await acceptInvitation(deps, person.user_id, token);
    const test = await createKeyForOwner(deps, person.user_id, 'property', 'test');
    made[role] = { live: (await callerOfKey(deps, person.key)) as Caller, test: (await callerOfKey(deps, test.key)) as Caller };
    assert.deepEqual([made[role].live.fund_id, made[role].live.role], [organizer.fund_id, role]);
    assert.deepEqual([made[role].test.fund_id, made[role].test.role], [twin.fund_id, role], 'the twin follows');
  }
  return new Map([
    [0, { family: made.family.live, advisor: made.advisor.live, organizer: organizer.caller }],
    [USERS, { family: made.family.test, advisor: made.advisor.test, organizer: twin.caller }],
  ]);
}

/** One operation as a model-based command: run on the platform and the model, then the two compared. */
export class OpCommand implements fc.AsyncCommand<Model, World> {
  readonly op: Op;
  constructor(op: Op) {
    this.op = op;
  }
  check(): boolean {
    return true;
  }
  async run(m: Model, w: World): Promise<void> {
    // Past its steps with every kind met, the run has stopped: a passed-over step changes neither.
    if (w.coverage !== undefined && w.step >= w.coverage.steps && w.coverage.kinds.every((k) => w.seen.has(k))) return;
    const step = w.step++;
    w.reached.step = step;
    const label = `step ${step} (${w.replay}): ${JSON.stringify(this.op)}`;
    const done = await runStep(m, w, this.op, { step, label });
    if (done === undefined) return;
    assert.equal(done.actual, done.expected, label);
    w.outcomes.push(`${step} ${JSON.stringify(this.op)}: ${done.actual}`);
    const key = `${this.op.kind}:${done.actual}`;
    w.seen.set(key, (w.seen.get(key) ?? 0) + 1);
    await agreeAfterStep(m, w, label);
    if (step % 1000 === 999) await donationsAgree(m, w, label);
  }
  toString(): string {
    return JSON.stringify(this.op);
  }
}

/** After every step: each book's outside accounts and every fund's four figures are the model's. */
async function agreeAfterStep(m: Model, w: World, label: string): Promise<void> {
  const { deps, users } = w;
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
}

/** Every donation's status is the model's. */
async function donationsAgree(m: Model, w: World, label: string): Promise<void> {
  const statuses = await w.deps.db.selectFrom('donations').select(['id', 'status']).execute();
  const byId = new Map(statuses.map((d) => [d.id, d.status]));
  for (const d of m.donations) assert.equal(byId.get(d.id), d.status, `${label}: donation ${d.id}`);
}

/** What the whole sequence must leave: the model's statuses, each app within its limit, `almoner check` passing, a balanced ledger. */
export async function finish(m: Model, w: World): Promise<void> {
  const { deps } = w;
  await donationsAgree(m, w, `at the end (${w.replay})`);
  // What each app moved, read from the platform: its donations, gifts and claims, within its limit and as the model counted.
  const moved = await deps.db
    .selectFrom('donations')
    .select(['app_connection_id', 'amount_cents'])
    .where('app_connection_id', 'is not', null)
    .unionAll(deps.db.selectFrom('gifts').select(['app_connection_id', 'amount_cents']).where('app_connection_id', 'is not', null))
    .execute();
  const byConnection = new Map<number, number>();
  for (const r of moved) byConnection.set(Number(r.app_connection_id), (byConnection.get(Number(r.app_connection_id)) ?? 0) + Number(r.amount_cents));
  for (const [i, caller] of w.appCallers.entries()) {
    const total = byConnection.get(caller.app?.connection_id ?? 0) ?? 0;
    assert.ok(total <= APP_LIMIT_CENTS, `actor ${i}'s app moved ${total} cents, past its limit`);
    assert.equal(total, w.appSpent[i], `actor ${i}'s app moved what the model counted`);
  }
  assert.deepEqual(
    (await runCheck(deps)).flatMap((c) => c.failures),
    [],
    'almoner check holds',
  );
  await assertLedgerBalanced(deps);
}

/** The books of a run, each part in creation order or sorted, never by id (ids may be taken ahead). */
export async function booksOf(w: World): Promise<Books> {
  const { db } = w.deps;
  const actorOf = new Map(w.users.map((u, i) => [u.fund_id, i]));
  const accounts = await db.selectFrom('ledger_accounts').select(['fund_id', 'kind', 'balance_cents']).execute();
  const funds = w.users.map((u) => Object.fromEntries(accounts.filter((a) => a.fund_id === u.fund_id).map((a) => [a.kind, Number(a.balance_cents)])));
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
  return { outcomes: w.outcomes, funds, donations, gifts, contributions, entries };
}
