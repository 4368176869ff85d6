// Use cases for donations. Each owns its database transaction; every money
// movement is a journal entry inside it.
import type { Deps } from '../../deps.ts';
import { outcomeUnknown, type Db } from '../../db/database.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { toPage, type PageRequest } from '../../shared/page.ts';
import { entryStatements, guardedEntryStatements, lockFundAccounts, outsideAccountId, postEntry, readFundAccounts, reserveEntryIds, type FundAccounts } from '../ledger/index.ts';
import type { Trx } from '../../db/database.ts';
import { eventStatements, recordEvent } from '../events/index.ts';
import { recordAudit } from '../audit/index.ts';
import { cardOfNonProfit, findRecipients, type NonProfit, normalizeEin } from '../nonprofits/index.ts';
import { visibleUser } from '../users/index.ts';
import type { Caller } from '../../shared/caller.ts';
import { isBook, type Book } from '../../shared/book.ts';
import { idempotencyClaims, keyTakenOver, recordClaimOutcome, type IdempotencyClaim } from '../../shared/outcome.ts';
import { reserveIds, reserveIdsOfEach } from '../../db/ids.ts';
import { isExpectationFailed, runIfOneRow, runStatements } from '../../db/bulk.ts';
import { DONATION_MIN_CENTS, DONATION_TRANSITIONS, initialStatus, isCancellable, shownToOthers, type DonationEvent, type DonationStatus, type Visibility } from './donations.ts';
import * as store from './donations.store.ts';
import { cardsFor, ownListForm, ownUserScopedForm, userScopedForm } from './donations.view.ts';

export interface NewDonation {
  amount_cents: number;
  ein: string;
  note?: string;
  private_memo?: string;
  visibility?: Visibility;
}

/**
 * Creates a donation from the caller's fund: `scheduled` with a hold when the
 * fund's available money covers it, else `waiting_for_funds`.
 * Throws: unprocessable (validation_failed for a malformed EIN, non_profit_ineligible),
 * not_found (non_profit_not_found), conflict (idempotency_key_in_use).
 */
export async function createDonation(deps: Deps, caller: Caller, input: NewDonation) {
  assertSafeInteger(input.amount_cents, 'donation amount');
  assert(input.amount_cents >= DONATION_MIN_CENTS, 'the route enforces the minimum');
  assert(isBook(caller.book), 'a caller acts in a book');
  const ein = normalizeEin(input.ein);
  if (ein === null) {
    throw new AppError('unprocessable', 'validation_failed', 'ein must be 9 digits, as 123456789 or 12-3456789', {
      errors: [{ field: 'ein', code: 'validation_failed', message: 'must be 9 digits' }],
    });
  }
  const note = input.note ?? null;
  const visibility = input.visibility ?? 'public';
  const made = await batchesOf(deps).submit({
    ein,
    donation: {
      book: caller.book,
      user_id: caller.user_id,
      fund_id: caller.fund_id,
      amount_cents: input.amount_cents,
      note,
      private_memo: input.private_memo ?? null,
      visibility,
      scheduled_donation_id: null,
    },
    claim: idempotencyClaims.getStore(),
  });
  // The answer from what was written: reading it back cost four more statements.
  const card = cardOfNonProfit(deps.config.publicUrl, made.nonProfit);
  return ownUserScopedForm(new Map([[made.nonProfit.id, card]]), {
    id: made.id, user_id: caller.user_id, status: made.status, note, created_at: made.created_at, mailed_at: null,
    non_profit_id: made.nonProfit.id, amount_cents: input.amount_cents, visibility,
  });
}

type HeldDonation = {
  book: Book; user_id: number; fund_id: number; non_profit_id: number; amount_cents: number; note: string | null; private_memo: string | null;
  visibility: string; scheduled_donation_id: number | null; scheduled_for?: string;
};

/**
 * Inserts donations of one fund, in order: each `scheduled` with a hold when
 * what its fund has available (after the holds before it) covers it, else
 * `waiting_for_funds`; with their journal entries and events, a few
 * statements for the lot. `accounts` are the fund's, locked in `trx`.
 */
async function insertHeld(deps: Deps, trx: Trx, accounts: FundAccounts, donations: ReadonlyArray<HeldDonation & { id: number }>): Promise<Array<{ id: number; status: DonationStatus; created_at: string }>> {
  const at = deps.clock.now().toISOString();
  const { rows, held } = decide(accounts.balances.available_cents, donations, at);
  const entryIds = await reserveEntryIds(trx, deps.engine, held.length);
  // One statement on PostgreSQL (db/bulk.ts): the fund's lock is held through fewer round trips.
  await runStatements(trx, deps.engine, [
    ...store.donationStatements(rows),
    ...entryStatements(holdEntries(accounts.ids, held, entryIds), at),
    ...createdEvents(rows),
  ]);
  return rows;
}

type DecidedDonation = HeldDonation & { id: number; status: DonationStatus; created_at: string };

/** Each donation `scheduled` while `available` (less the holds before it) covers it, else `waiting_for_funds`. */
function decide(available: number, donations: ReadonlyArray<HeldDonation & { id: number }>, at: string): { rows: DecidedDonation[]; held: DecidedDonation[] } {
  let left = available;
  const rows = donations.map((d) => {
    const status = initialStatus(left, d.amount_cents);
    if (status === 'scheduled') left -= d.amount_cents;
    return { ...d, status, created_at: at };
  });
  return { rows, held: rows.filter((d) => d.status === 'scheduled') };
}

function createdEvents(rows: readonly DecidedDonation[]) {
  return eventStatements(rows.map((d) => ({
    user_id: d.user_id, type: 'donation.created' as const, object_type: 'donation', object_id: d.id, data: { status: d.status }, at: d.created_at,
  })));
}

/** A hold for each scheduled donation: available to reserved, with the entry ids reserved for them. */
function holdEntries(ids: FundAccounts['ids'], held: readonly DecidedDonation[], entryIds: readonly number[]) {
  return held.map((d, i) => ({
    id: entryIds[i] as number,
    cause: { book: d.book, memo: 'donation scheduled: hold', donation_id: d.id },
    movements: [{ from_account_id: ids.available, to_account_id: ids.reserved, amount_cents: d.amount_cents }],
  }));
}

/**
 * Inserts a donation `scheduled` with a hold when its fund's available money
 * covers it, else `waiting_for_funds`, with its event. Locks the fund's
 * accounts in `trx`. Returns the id.
 */
export async function insertWithHold(deps: Deps, trx: Trx, d: HeldDonation): Promise<number> {
  const accounts = await lockFundAccounts(trx, deps.engine, d.fund_id);
  const [id] = await reserveIds(trx, deps.engine, 'donations', 1);
  assert(id !== undefined, 'an id was reserved');
  await insertHeld(deps, trx, accounts, [{ ...d, id }]);
  return id;
}

// Group commit across requests. A fund's balance check and hold run under a
// lock on its accounts, held until the commit is durable; so one fund's
// donations can only be created one transaction at a time, each paying a
// full durable commit (on PostgreSQL, also every round trip). Requests for
// the same fund that arrive while one of its transactions runs wait, and the
// next transaction creates all of them at once: one lock, one commit, a few
// statements. Each request still gets exactly its own donation or error.
// On PostgreSQL a batch first tries without the lock: one statement guarded
// by a compare-and-set on the balance (#createGuarded, ADR 9).

interface Submitted {
  /** The recipient's EIN, looked up in the shared transaction (findRecipient's rules). */
  ein: string;
  donation: Omit<HeldDonation, 'non_profit_id'>;
  claim: IdempotencyClaim | undefined;
}

interface Made {
  id: number;
  status: DonationStatus;
  created_at: string;
  nonProfit: NonProfit;
}

interface Waiting extends Submitted {
  resolve: (made: Made) => void;
  reject: (error: unknown) => void;
}

interface KnownFund {
  ids: FundAccounts['ids'];
  available_cents: number;
}

/** Each request's non-profit or error (findRecipients), the errors as outcomes already, and which requests go on. */
function sortOut(batch: readonly Waiting[], recipients: ReadonlyMap<string, NonProfit | AppError>) {
  const found = batch.map((w) => recipients.get(w.ein) as NonProfit | AppError);
  const outcomes: Array<Made | AppError | undefined> = found.map((np) => (np instanceof AppError ? np : undefined));
  const valid = [...outcomes.keys()].filter((i) => outcomes[i] === undefined);
  return { found, outcomes, valid };
}

/**
 * Every request's outcome: the error it already has, else the donation
 * written for it (`rows[j]` was made for request `madeAt[j]`, to `found`'s non-profit).
 */
function settled(
  outcomes: Array<Made | AppError | undefined>, found: ReadonlyArray<NonProfit | AppError>,
  madeAt: readonly number[], rows: ReadonlyArray<{ id: number; status: DonationStatus; created_at: string }>,
): Array<Made | AppError> {
  rows.forEach((row, j) => {
    const i = madeAt[j] as number;
    outcomes[i] = { id: row.id, status: row.status, created_at: row.created_at, nonProfit: found[i] as NonProfit };
  });
  return outcomes.map((o) => {
    assert(o !== undefined, 'every request has an outcome');
    return o;
  });
}

function knownFund(accounts: FundAccounts): KnownFund {
  return { ids: accounts.ids, available_cents: accounts.balances.available_cents };
}

/** How long a fund whose balance another writer moved skips the guarded write. */
const CONTENDED_MS = 1000;

/** The most funds whose balance a node remembers. */
const KNOWN_FUNDS_MAX = 10_000;

/** The most donations one transaction creates. */
const BATCH_MAX = 200;

class FundBatches {
  readonly #deps: Deps;
  /** Per fund: the requests waiting for its next transaction; present while one runs. */
  readonly #queues = new Map<number, Waiting[]>();
  /**
   * PostgreSQL: per fund, its accounts and available balance as this node last
   * wrote them. Only a guess (another node, or any other use case, may have
   * moved the balance since): a guarded write checks it.
   */
  readonly #known = new Map<number, KnownFund>();
  /**
   * PostgreSQL: funds whose guarded write lately found the balance moved
   * (another node writes them too), until when (monotonic ms) their batches
   * go straight to the locked transaction instead of failing a guess each time.
   */
  readonly #contended = new Map<number, number>();
  /**
   * Batches run and the donation requests they carried; guarded writes that
   * found the balance moved; batches that ran as a locked transaction.
   */
  readonly stats = { transactions: 0, requests: 0, moved: 0, locked: 0 };

  constructor(deps: Deps) {
    this.#deps = deps;
  }

  submit(item: Submitted): Promise<Made> {
    return new Promise<Made>((resolve, reject) => {
      const fundId = item.donation.fund_id;
      const queue = this.#queues.get(fundId);
      if (queue !== undefined) {
        queue.push({ ...item, resolve, reject });
        return;
      }
      this.#queues.set(fundId, [{ ...item, resolve, reject }]);
      void this.#drain(fundId);
    });
  }

  async #drain(fundId: number): Promise<void> {
    const queue = this.#queues.get(fundId);
    assert(queue !== undefined, 'a fund being drained has a queue');
    // Requests already read from the network join the first transaction too.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const batch = queue.splice(0, BATCH_MAX);
      if (batch.length === 0) {
        this.#queues.delete(fundId);
        return;
      }
      await this.#run(batch);
    }
  }

  /**
   * One write for the batch (guarded, else a locked transaction). If the
   * database refuses it, each request is tried alone, so one cannot fail the
   * others; if the connection was lost, each fails.
   */
  async #run(batch: Waiting[]): Promise<void> {
    let outcomes: Array<Made | AppError>;
    this.stats.transactions += 1;
    this.stats.requests += batch.length;
    try {
      outcomes = await this.#createGuarded(batch) ?? await this.#createLocked(batch);
    } catch (error) {
      // Tried again one by one only when the database refused it, so nothing was written;
      // a lost connection may have committed it, and each request fails (503) instead.
      if (batch.length === 1 || outcomeUnknown(this.#deps.engine, error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      for (const one of batch) await this.#run([one]);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      assert(outcome !== undefined, 'an outcome for every request');
      if (outcome instanceof AppError) w.reject(outcome);
      else w.resolve(outcome);
    });
  }

  /**
   * PostgreSQL, a batch without Idempotency-Keys: one statement and no lock
   * held across round trips. The recipients, ids and (unless this node
   * remembers it) the balance are read first; then the writes go in one
   * statement that commits only if the fund's available balance is still the
   * one decided on (db/bulk.ts runIfOneRow). Undefined when it did not write
   * (the balance had moved, the statement failed, or the fund is contended):
   * the locked transaction then decides.
   */
  async #createGuarded(batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    if (this.#deps.engine !== 'postgres' || batch.some((w) => w.claim !== undefined)) return undefined;
    const fundId = batch[0]?.donation.fund_id;
    assert(fundId !== undefined, 'a batch is never empty');
    const until = this.#contended.get(fundId);
    if (until !== undefined) {
      if (performance.now() < until) return undefined;
      this.#contended.delete(fundId);
    }
    // One connection for the batch: the pool is shared with every request's reads.
    return this.#deps.db.connection().execute((conn) => this.#writeGuarded(conn, fundId, batch));
  }

  async #writeGuarded(conn: Db, fundId: number, batch: readonly Waiting[]): Promise<Array<Made | AppError> | undefined> {
    const recipients = await findRecipients(conn, batch.map((w) => w.ein));
    const [ids = [], entryIds = []] = await reserveIdsOfEach(conn, ['donations', 'journal_entries'], batch.length);
    const fund = this.#known.get(fundId) ?? knownFund(await readFundAccounts(conn, fundId));
    const { found, outcomes, valid: madeAt } = sortOut(batch, recipients);
    const made = madeAt.map((i) => ({ ...(batch[i] as Waiting).donation, non_profit_id: (found[i] as NonProfit).id, id: ids[i] as number }));
    if (made.length === 0) return settled(outcomes, found, [], []);
    const at = this.#deps.clock.now().toISOString();
    const { rows, held } = decide(fund.available_cents, made, at);
    const { guard, statements } = guardedEntryStatements(holdEntries(fund.ids, held, entryIds), at, { account_id: fund.ids.available, expected_cents: fund.available_cents });
    try {
      const available = await runIfOneRow(conn, guard, [...store.donationStatements(rows), ...statements, ...createdEvents(rows)], 'the fund\'s available balance is as read');
      assertSafeInteger(available, 'available balance');
      if (this.#known.size >= KNOWN_FUNDS_MAX) this.#known.clear();
      this.#known.set(fundId, { ids: fund.ids, available_cents: available });
    } catch (error) {
      this.#known.delete(fundId);
      if (isExpectationFailed(error)) {
        this.stats.moved += 1;
        if (this.#contended.size >= KNOWN_FUNDS_MAX) this.#contended.clear();
        this.#contended.set(fundId, performance.now() + CONTENDED_MS);
      }
      // The locked path would write it a second time if this one committed.
      if (outcomeUnknown('postgres', error)) throw error;
      return undefined;
    }
    return settled(outcomes, found, madeAt, rows);
  }

  #createLocked(batch: readonly Waiting[]): Promise<Array<Made | AppError>> {
    this.stats.locked += 1;
    return this.#deps.db.transaction().execute((trx) => this.#create(trx, batch));
  }

  async #create(trx: Trx, batch: readonly Waiting[]): Promise<Array<Made | AppError>> {
    const first = batch[0];
    assert(first !== undefined, 'a batch is never empty');
    const accounts = await lockFundAccounts(trx, this.#deps.engine, first.donation.fund_id);
    const { found, outcomes, valid } = sortOut(batch, await findRecipients(trx, batch.map((w) => w.ein)));
    const ids = await reserveIds(trx, this.#deps.engine, 'donations', valid.length);
    const made: Array<HeldDonation & { id: number }> = [];
    const madeAt: number[] = [];
    for (const [k, i] of valid.entries()) {
      const w = batch[i] as Waiting;
      const id = ids[k] as number;
      // Each request's Idempotency-Key outcome, in the same transaction as its donation (shared/outcome.ts).
      // (A refused one leaves its reserved id unused.)
      if (w.claim !== undefined && !await recordClaimOutcome(trx, w.claim, `donation:${id}`)) {
        outcomes[i] = keyTakenOver();
        continue;
      }
      made.push({ ...w.donation, non_profit_id: (found[i] as NonProfit).id, id });
      madeAt.push(i);
    }
    return settled(outcomes, found, madeAt, await insertHeld(this.#deps, trx, accounts, made));
  }
}

const batches = new WeakMap<Deps, FundBatches>();

/** How well requests shared transactions on this node (tests, diagnostics). */
export function donationBatchStats(deps: Deps): FundBatches['stats'] {
  return { ...batchesOf(deps).stats };
}

function batchesOf(deps: Deps): FundBatches {
  let b = batches.get(deps);
  if (b === undefined) {
    b = new FundBatches(deps);
    batches.set(deps, b);
  }
  return b;
}

/**
 * The owner cancels (spec 4.2, DECISIONS 7): scheduled or waiting_for_funds
 * become not_completed, a hold goes back to available, the record stays.
 * Throws: not_found (donation_not_found, also for others' donations), conflict (donation_not_cancellable).
 */
export async function cancelDonation(deps: Deps, caller: Caller, donationId: number): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const { donation, accounts } = await lockDonationAndFund(deps, trx, caller.book, donationId);
    if (donation === undefined || donation.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
    if (!isCancellable(donation.status)) {
      throw conflict('donation_not_cancellable', donation.cancelled_at !== null ? 'this donation was already cancelled' : `a donation that is ${donation.status} can no longer be cancelled`);
    }
    const at = deps.clock.now().toISOString();
    const moved = await store.transition(trx, donation.id, donation.status, 'not_completed', at, { cancelled_at: at });
    assert(moved, 'the locked donation is still in the state read');
    if (donation.status === 'scheduled') {
      await postEntry(trx, { book: accounts.book, memo: 'donation cancelled: hold released', donation_id: donation.id }, [
        { from_account_id: accounts.ids.reserved, to_account_id: accounts.ids.available, amount_cents: donation.amount_cents },
      ], at);
      await promoteWaiting(deps, trx, donation.fund_id, at);
    }
    await recordEvent(trx, { user_id: caller.user_id, type: 'donation.updated', object_type: 'donation', object_id: donation.id, data: { status: 'not_completed', previous_status: donation.status }, at });
  });
}

/**
 * Locks in one order everywhere, the fund's accounts first and then the
 * donation row, so that a cancel and a promotion of the same fund cannot
 * deadlock on PostgreSQL. The donation is read again under the locks.
 * Only a donation of `book` is found.
 */
async function lockDonationAndFund(deps: Deps, trx: Trx, book: Book, donationId: number) {
  const unlocked = await store.lockDonation(trx, false, book, donationId);
  if (unlocked === undefined) return { donation: undefined, accounts: undefined as never };
  const accounts = await lockFundAccounts(trx, deps.engine, unlocked.fund_id);
  const donation = await store.lockDonation(trx, deps.engine === 'postgres', book, donationId);
  assert(donation !== undefined && donation.fund_id === unlocked.fund_id, 'a donation never leaves its fund');
  return { donation, accounts };
}

/**
 * Available money grew: schedule waiting donations, oldest first, each one
 * the fund can now hold. A waiting donation too large for what is left does
 * not block smaller, younger ones. Needs the fund's accounts locked in `trx`.
 */
export async function promoteWaiting(deps: Deps, trx: Trx, fundId: number, at: string): Promise<number> {
  const waiting = await store.waitingForFund(trx, fundId);
  if (waiting.length === 0) return 0;
  const accounts = await lockFundAccounts(trx, deps.engine, fundId);
  let available = accounts.balances.available_cents;
  let promoted = 0;
  for (const donation of waiting) {
    if (donation.amount_cents > available) continue;
    const moved = await store.transition(trx, donation.id, 'waiting_for_funds', 'scheduled', at);
    assert(moved, 'a waiting donation read under the fund lock is still waiting');
    await postEntry(trx, { book: accounts.book, memo: 'donation scheduled: hold', donation_id: donation.id }, [
      { from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: donation.amount_cents },
    ], at);
    await recordEvent(trx, { user_id: donation.user_id, type: 'donation.updated', object_type: 'donation', object_id: donation.id, data: { status: 'scheduled', previous_status: 'waiting_for_funds' }, at });
    available -= donation.amount_cents;
    promoted += 1;
  }
  return promoted;
}

/** Form 2.1 of one of the caller's donations. Throws donation_not_found. */
/** A donation as its create answered it (form 2.3 for its owner), for a replayed request. Throws donation_not_found. */
export async function getCreatedDonation(deps: Deps, caller: Caller, donationId: number) {
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined || record.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
  return ownUserScopedForm(await cardsFor(deps, [record]), record);
}

export async function getOwnDonation(deps: Deps, caller: Caller, donationId: number) {
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined || record.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
  return ownListForm(deps, await cardsFor(deps, [record]), record);
}

export async function listOwnDonations(deps: Deps, caller: Caller, page: PageRequest) {
  const { rows, count } = await store.listByUser(deps.db, caller.user_id, false, page);
  const cards = await cardsFor(deps, rows);
  return toPage(rows.map((r) => ownListForm(deps, cards, r)), count, page);
}

/** A user's donations: all of them for the owner, public ones (reduced) for others. Throws user_not_found. */
export async function listUserDonations(deps: Deps, caller: Caller, userId: number, page: PageRequest) {
  const own = userId === caller.user_id;
  if (!own) await visibleUser(deps, caller, userId);
  const { rows, count } = await store.listByUser(deps.db, userId, !own, page);
  const cards = await cardsFor(deps, rows);
  return toPage(rows.map((r) => (own ? ownUserScopedForm(cards, r) : userScopedForm(cards, r))), count, page);
}

/** A user's public donations, in the form others see (the web profile page decides who may look). */
export async function listPublicDonations(deps: Deps, userId: number, page: PageRequest) {
  const { rows, count } = await store.listByUser(deps.db, userId, true, page);
  const cards = await cardsFor(deps, rows);
  return toPage(rows.map((r) => userScopedForm(cards, r)), count, page);
}

/** One donation of a user, as listUserDonations shows it. Throws user_not_found, donation_not_found. */
export async function getUserDonation(deps: Deps, caller: Caller, userId: number, donationId: number) {
  const own = userId === caller.user_id;
  if (!own) await visibleUser(deps, caller, userId);
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined || record.user_id !== userId || (!own && !shownToOthers(record))) {
    throw notFound('donation_not_found', `no donation ${donationId}`);
  }
  const cards = await cardsFor(deps, [record]);
  return own ? ownUserScopedForm(cards, record) : userScopedForm(cards, record);
}

/** POST /v1/users/:user_id/donations: only under one's own id. Throws user_not_found, forbidden. */
export async function createDonationForUser(deps: Deps, caller: Caller, userId: number, input: NewDonation) {
  if (userId !== caller.user_id) {
    await visibleUser(deps, caller, userId);
    throw new AppError('forbidden', 'forbidden', 'donations can only be created from your own fund');
  }
  return createDonation(deps, caller, input);
}

/** Who acts on a donation and why: operators are audited; a reason goes with a rejection. */
export interface EventOptions {
  actor: string;
  reason?: string;
}

const TIMESTAMP_OF: Record<DonationEvent, 'approved_at' | 'rejected_at' | 'completed_at' | 'mailed_at' | 'voided_at'> = {
  approve: 'approved_at',
  reject: 'rejected_at',
  pay: 'completed_at',
  mail_check: 'mailed_at',
  cash_check: 'completed_at',
  void_check: 'voided_at',
};

/**
 * An operator's event on a donation: every transition of DECISIONS 7 and no
 * other, with its postings, its timestamp, its event and its audit entry, in
 * one database transaction.
 * Only a donation of `book` is found: operators act on live ones unless they ask for the sandbox.
 * Throws: not_found (donation_not_found), conflict (invalid_transition).
 */
export async function applyDonationEvent(deps: Deps, book: Book, donationId: number, event: DonationEvent, options: EventOptions = { actor: 'system' }): Promise<DonationStatus> {
  const rule = DONATION_TRANSITIONS[event];
  return deps.db.transaction().execute(async (trx) => {
    const { donation, accounts } = await lockDonationAndFund(deps, trx, book, donationId);
    if (donation === undefined) throw notFound('donation_not_found', `no donation ${donationId}`);
    if (!(rule.from as readonly string[]).includes(donation.status)) {
      throw conflict('invalid_transition', `cannot ${event.replace('_', ' ')} a donation that is ${donation.status}`);
    }
    const at = deps.clock.now().toISOString();
    const extra: Parameters<typeof store.transition>[5] = { [TIMESTAMP_OF[event]]: at };
    if (event === 'reject') extra.rejection_reason = options.reason ?? null;
    const moved = await store.transition(trx, donation.id, donation.status, rule.to, at, extra);
    assert(moved, 'the locked donation is still in the state read');
    if (rule.move !== null) {
      const grantsPaid = await outsideAccountId(trx, 'grants_paid', accounts.book);
      const routes: Record<NonNullable<typeof rule.move>, [number, number]> = {
        reserved_to_available: [accounts.ids.reserved, accounts.ids.available],
        reserved_to_grants_paid: [accounts.ids.reserved, grantsPaid],
        grants_paid_to_available: [grantsPaid, accounts.ids.available],
      };
      const [from, to] = routes[rule.move];
      await postEntry(trx, { book: accounts.book, memo: `donation ${event.replace('_', ' ')}`, donation_id: donation.id }, [
        { from_account_id: from, to_account_id: to, amount_cents: donation.amount_cents },
      ], at);
      if (to === accounts.ids.available) await promoteWaiting(deps, trx, donation.fund_id, at);
    }
    await recordEvent(trx, { user_id: donation.user_id, type: 'donation.updated', object_type: 'donation', object_id: donation.id, data: { status: rule.to, previous_status: donation.status }, at });
    await recordAudit(trx, { book: accounts.book, actor: options.actor, action: `donation.${event}`, object_type: 'donation', object_id: donation.id, before: { status: donation.status }, after: { status: rule.to, ...(options.reason === undefined ? {} : { reason: options.reason }) }, at });
    return rule.to;
  });
}

/**
 * Applies one event to many donations, each in its own transaction: one that
 * another operator moved first is counted as skipped, never done twice.
 */
export async function applyDonationEventToMany(deps: Deps, book: Book, ids: readonly number[], event: DonationEvent, options: EventOptions): Promise<{ done: number[]; skipped: Array<{ id: number; code: string }> }> {
  const done: number[] = [];
  const skipped: Array<{ id: number; code: string }> = [];
  for (const id of ids) {
    try {
      await applyDonationEvent(deps, book, id, event, options);
      done.push(id);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'invalid_transition' || error.code === 'donation_not_found')) skipped.push({ id, code: error.code });
      else throw error;
    }
  }
  return { done, skipped };
}

/** Ids of donations of `book` in a status, oldest first (for batches such as "pay every approved donation"). */
export async function donationIdsInStatus(deps: Deps, book: Book, status: DonationStatus, limit: number): Promise<number[]> {
  const rows = await deps.db.selectFrom('donations').select('id').where('book', '=', book).where('status', '=', status).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}
