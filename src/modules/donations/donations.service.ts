// Use cases for donations. Each owns its database transaction; every money
// movement is a journal entry inside it.
import type { Deps } from '../../deps.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { lockFundAccounts, outsideAccountId, postEntry, proofOfDonation } from '../ledger/index.ts';
import type { Trx } from '../../db/database.ts';
import { recordEvent } from '../events/index.ts';
import { recordAudit } from '../audit/index.ts';
import { cardOfNonProfit, requireEin } from '../nonprofits/index.ts';
import { visibleUser } from '../users/index.ts';
import { spendingAsApp } from '../apps/index.ts';
import type { Caller } from '../../shared/caller.ts';
import { isBook, type Book } from '../../shared/book.ts';
import type { IdempotencyClaim } from '../idempotency/index.ts';
import { reserveIds } from '../../db/ids.ts';
import { covered, DONATION_MIN_CENTS, DONATION_TRANSITIONS, isCancellable, shownToOthers, type DonationEvent, type DonationStatus } from './donations.ts';
import * as store from './donations.store.ts';
import { FundBatches } from './donations.batches.ts';
import { SimpleDonationWriter, type DonationWriter, type Made, type WriterStats } from './donations.writer.ts';
import { insertHeld, type HeldDonation } from './donations.held.ts';
import { givesByRequest, insertRequest, mayCancel } from './donations.requests.ts';
import { cardsFor, ownUserScopedForm, userScopedForm } from './donations.view.ts';
import { authorize } from '../../shared/policy.ts';
import { donationIds } from './donations.partner.ts';
import { checkFundraiserOfDonation } from './donations.fundraiser.ts';
import { refuseIfMatchBound } from './donations.matches.ts';
import { donationRow, submitDonation, type NewDonation } from './donations.submit.ts';
import { partnerColumns, withExternalId } from '../../shared/partner.ts';

declare module '../../deps.ts' {
  interface Runtime {
    /** Creates donations (donations.writer.ts): the batched writer, or the simple one (DONATION_WRITER). */
    donations: DonationWriter;
  }
}

/** The writer DONATION_WRITER names, for platform.ts to build once per node. */
export function createDonationWriter(deps: Deps): DonationWriter {
  return deps.config.donationWriter === 'simple' ? new SimpleDonationWriter(deps) : new FundBatches(deps);
}

/** How well requests shared transactions on this node (tests, diagnostics). */
export function donationWriterStats(deps: Deps): WriterStats {
  return { ...deps.runtime.donations.stats };
}

export type { NewDonation } from './donations.submit.ts';

/**
 * Creates a donation from the caller's fund: `scheduled` with a hold when the
 * fund's available money covers it, else `waiting_for_funds`.
 * Throws: unprocessable (validation_failed for a malformed EIN, non_profit_ineligible),
 * not_found (non_profit_not_found), conflict (idempotency_key_in_use).
 */
export async function createDonation(deps: Deps, caller: Caller, input: NewDonation, claim?: IdempotencyClaim) {
  authorize(caller, 'donate');
  assertSafeInteger(input.amount_cents, 'donation amount');
  assert(input.amount_cents >= DONATION_MIN_CENTS, 'the route enforces the minimum');
  assert(isBook(caller.book), 'a caller acts in a book');
  const ein = requireEin(input.ein);
  const note = input.note ?? null;
  const visibility = input.visibility ?? 'public';
  // An app's donation counts against the monthly limit its donor set (ADR 16), given back if it is not made.
  // A family member's donation is a request (rules §20): no money held, so nothing an app's limit counts.
  const partner = { ...partnerColumns(input), fundraiser_id: input.fundraiser_id === undefined ? null : await checkFundraiserOfDonation(deps, caller, input.fundraiser_id, ein) };
  // The answer from what was written: reading it back cost four more statements. Given to the
  // writer too, which stores it with the Idempotency-Key's outcome (http/idempotency.ts answeringWith).
  const view = (made: Made) =>
    ownUserScopedForm(new Map([[made.nonProfit.id, cardOfNonProfit(deps.config.publicUrl, made.nonProfit)]]), {
      id: made.id,
      user_id: caller.user_id,
      status: made.status,
      note,
      created_at: made.created_at,
      mailed_at: null,
      non_profit_id: made.nonProfit.id,
      amount_cents: input.amount_cents,
      visibility,
      share: input.share ?? 'name',
      designation: input.designation ?? null,
      dedication: input.dedication ?? null,
      ...partner,
    });
  const made = await withExternalId(donationIds(deps, caller.user_id), partner.external_id, async () =>
    givesByRequest(caller)
      ? await insertRequest(deps, caller, ein, donationRow(caller, input, note, visibility, partner), claim, view)
      : await spendingAsApp(deps, caller, input.amount_cents, () => submitDonation(deps, caller, { ...input, ein }, note, visibility, partner, claim, view)),
  );
  return view(made);
}

/**
 * Inserts a donation `scheduled` with a hold when its fund's available money
 * covers it, else `waiting_for_funds`, with its event. Locks the fund's
 * accounts in `trx`. Returns the id.
 */
export async function insertWithHold(deps: Deps, trx: Trx, d: HeldDonation): Promise<number> {
  const accounts = await lockFundAccounts(trx, d.fund_id);
  const [id] = await reserveIds(trx, 'donations', 1);
  assert(id !== undefined, 'an id was reserved');
  await insertHeld(deps, trx, accounts, [{ ...d, id }]);
  return id;
}

/** Inserts one donation in the caller's transaction, which writes its hold (a gift's claim moves the gift's hold to it). */
export function insertDonation(trx: Trx, row: store.NewDonationRow): Promise<number> {
  return store.insertDonation(trx, row);
}

/**
 * The owner cancels (spec 4.2, rules §7): scheduled or waiting_for_funds
 * become not_completed, a hold goes back to available, the record stays.
 * Throws: not_found (donation_not_found, also for others' donations), conflict (donation_not_cancellable).
 */
export async function cancelDonation(deps: Deps, caller: Caller, donationId: number): Promise<void> {
  authorize(caller, 'cancel_donation');
  await deps.db.transaction().execute(async (trx) => {
    const { donation, accounts } = await lockDonationAndFund(trx, caller.book, donationId);
    if (donation === undefined || donation.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
    mayCancel(caller, donation);
    await refuseIfMatchBound(trx, donation.id);
    if (!isCancellable(donation.status)) {
      throw conflict(
        'donation_not_cancellable',
        donation.cancelled_at !== null ? 'this donation was already cancelled' : `a donation that is ${donation.status} can no longer be cancelled`,
      );
    }
    const at = deps.clock.now().toISOString();
    const moved = await store.transition(trx, donation.id, donation.status, 'not_completed', at, { cancelled_at: at });
    assert(moved, 'the locked donation is still in the state read');
    if (donation.status === 'scheduled') {
      await postEntry(
        trx,
        { book: accounts.book, memo: 'donation cancelled: hold released', donation_id: donation.id },
        [{ from_account_id: accounts.ids.reserved, to_account_id: accounts.ids.available, amount_cents: donation.amount_cents }],
        at,
      );
      await promoteWaiting(trx, donation.fund_id, at);
    }
    await recordEvent(trx, {
      user_id: caller.user_id,
      type: 'donation.updated',
      object_type: 'donation',
      object_id: donation.id,
      data: { status: 'not_completed', previous_status: donation.status },
      at,
    });
  });
}

/**
 * Locks in one order everywhere, the fund's accounts first and then the
 * donation row, so that a cancel and a promotion of the same fund cannot
 * deadlock on PostgreSQL. The donation is read again under the locks.
 * Only a donation of `book` is found.
 */
async function lockDonationAndFund(trx: Trx, book: Book, donationId: number) {
  const unlocked = await store.lockDonation(trx, book, donationId, false);
  if (unlocked === undefined) return { donation: undefined, accounts: undefined as never };
  const accounts = await lockFundAccounts(trx, unlocked.fund_id);
  const donation = await store.lockDonation(trx, book, donationId);
  assert(donation !== undefined && donation.fund_id === unlocked.fund_id, 'a donation never leaves its fund');
  return { donation, accounts };
}

/**
 * Available money grew: schedule waiting donations, oldest first, each one
 * the fund can now hold. A waiting donation too large for what is left does
 * not block smaller, younger ones. Needs the fund's accounts locked in `trx`.
 */
export async function promoteWaiting(trx: Trx, fundId: number, at: string): Promise<number> {
  const waiting = await store.waitingForFund(trx, fundId);
  if (waiting.length === 0) return 0;
  const accounts = await lockFundAccounts(trx, fundId);
  const fits = covered(
    waiting.map((d) => d.amount_cents),
    accounts.balances.available_cents,
  );
  let promoted = 0;
  for (const [i, donation] of waiting.entries()) {
    if (fits[i] !== true) continue;
    const moved = await store.transition(trx, donation.id, 'waiting_for_funds', 'scheduled', at);
    assert(moved, 'a waiting donation read under the fund lock is still waiting');
    await postEntry(
      trx,
      { book: accounts.book, memo: 'donation scheduled: hold', donation_id: donation.id },
      [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: donation.amount_cents }],
      at,
    );
    await recordEvent(trx, {
      user_id: donation.user_id,
      type: 'donation.updated',
      object_type: 'donation',
      object_id: donation.id,
      data: { status: 'scheduled', previous_status: 'waiting_for_funds' },
      at,
    });
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

/** GET /v1/donations/:id/proof: the caller's donation's entries with their inclusion proofs (rules §26). Throws donation_not_found, proof_not_ready. */
export async function proofOfOwnDonation(deps: Deps, caller: Caller, donationId: number) {
  authorize(caller, 'read');
  const record = await store.findDonation(deps.db, caller.book, donationId);
  if (record === undefined || record.user_id !== caller.user_id) throw notFound('donation_not_found', `no donation ${donationId}`);
  return proofOfDonation(deps, caller.book, donationId);
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

/** POST /v1/users/:user_id/donations: only under one's own id (rules §20: or the fund's one acts on). Throws user_not_found, forbidden. */
export async function createDonationForUser(deps: Deps, caller: Caller, userId: number, input: NewDonation, claim?: IdempotencyClaim) {
  authorize(caller, 'donate');
  // Under the fund's holder's id, or (a member acting on a fund they share) their own: both give from the fund acted on.
  if (userId !== caller.user_id && userId !== caller.actor_id) {
    await visibleUser(deps, caller, userId);
    throw new AppError('forbidden', 'forbidden', 'donations can only be created from your own fund');
  }
  return createDonation(deps, caller, input, claim);
}

/** Who acts on a donation and why: operators are audited; a reason goes with a rejection. */
export interface EventOptions {
  actor: string;
  reason?: string;
  /** The event is a payment's doing (rules §17): only then may a donation in a payment move. */
  byPayment?: true;
}

const TIMESTAMP_OF: Record<DonationEvent, 'approved_at' | 'rejected_at' | 'completed_at' | 'mailed_at' | 'voided_at'> = {
  approve: 'approved_at',
  reject: 'rejected_at',
  pay: 'completed_at',
  mail_check: 'mailed_at',
  cash_check: 'completed_at',
  void_check: 'voided_at',
  return_payment: 'voided_at',
};

/**
 * An operator's event on a donation: every transition of rules §7 and no
 * other, with its postings, its timestamp, its event and its audit entry, in
 * one database transaction.
 * Only a donation of `book` is found: operators act on live ones unless they ask for the sandbox.
 * Throws: not_found (donation_not_found), conflict (invalid_transition).
 */
export async function applyDonationEvent(deps: Deps, book: Book, donationId: number, event: DonationEvent, options: EventOptions = { actor: 'system' }): Promise<DonationStatus> {
  return deps.db.transaction().execute((trx) => applyEventIn(deps, trx, book, donationId, event, options));
}

/** applyDonationEvent inside the caller's transaction (a payment run's, rules §17). */
export async function applyEventIn(deps: Deps, trx: Trx, book: Book, donationId: number, event: DonationEvent, options: EventOptions): Promise<DonationStatus> {
  const rule = DONATION_TRANSITIONS[event];
  const { donation, accounts } = await lockDonationAndFund(trx, book, donationId);
  if (donation === undefined) throw notFound('donation_not_found', `no donation ${donationId}`);
  if (!(rule.from as readonly string[]).includes(donation.status)) {
    throw conflict('invalid_transition', `cannot ${event.replace('_', ' ')} a donation that is ${donation.status}`);
  }
  // A donation in a payment moves with its payment only (rules §17): a run or payment is never edited.
  if (options.byPayment !== true) {
    const payment = await store.paymentOf(trx, donation.id);
    if (payment !== undefined) throw conflict('donation_in_payment', `donation ${donation.id} is in payment ${payment}: record that payment's outcome instead`);
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
    await postEntry(
      trx,
      { book: accounts.book, memo: `donation ${event.replace('_', ' ')}`, donation_id: donation.id },
      [{ from_account_id: from, to_account_id: to, amount_cents: donation.amount_cents }],
      at,
    );
    if (to === accounts.ids.available) await promoteWaiting(trx, donation.fund_id, at);
  }
  await recordEvent(trx, {
    user_id: donation.user_id,
    type: 'donation.updated',
    object_type: 'donation',
    object_id: donation.id,
    // Money that came back with a reason (a payment returned or voided, rules §17): the donor is told why.
    data: { status: rule.to, previous_status: donation.status, ...(rule.move === 'grants_paid_to_available' && options.reason !== undefined ? { returned: options.reason } : {}) },
    at,
  });
  await recordAudit(trx, {
    book: accounts.book,
    actor: options.actor,
    action: `donation.${event}`,
    object_type: 'donation',
    object_id: donation.id,
    before: { status: donation.status },
    after: { status: rule.to, ...(options.reason === undefined ? {} : { reason: options.reason }) },
    at,
  });
  return rule.to;
}

/**
 * Applies one event to many donations in one transaction: all of them or, if it fails (a kill,
 * a lost database), none; one that another operator moved first is counted as skipped, never
 * done twice. Their funds are locked in ascending order (the lock order everywhere: fund
 * accounts, several in ascending id, then the donation), each fund's donations by id.
 */
export async function applyDonationEventToMany(
  deps: Deps,
  book: Book,
  ids: readonly number[],
  event: DonationEvent,
  options: EventOptions,
): Promise<{ done: number[]; skipped: Array<{ id: number; code: string }> }> {
  const funds = await store.fundsOfDonations(deps.db, book, ids);
  const ordered = [...new Set(ids)].sort((a, b) => (funds.get(a) ?? 0) - (funds.get(b) ?? 0) || a - b);
  return deps.db.transaction().execute(async (trx) => {
    const done: number[] = [];
    const skipped: Array<{ id: number; code: string }> = [];
    for (const id of ordered) {
      try {
        await applyEventIn(deps, trx, book, id, event, options);
        done.push(id);
      } catch (error) {
        if (error instanceof AppError && (error.code === 'invalid_transition' || error.code === 'donation_not_found')) skipped.push({ id, code: error.code });
        else throw error;
      }
    }
    return { done, skipped };
  });
}

/** Ids of donations of `book` in a status, oldest first (for batches such as "pay every approved donation"). */
export async function donationIdsInStatus(deps: Deps, book: Book, status: DonationStatus, limit: number): Promise<number[]> {
  return store.idsInStatus(deps.db, book, status, limit);
}
