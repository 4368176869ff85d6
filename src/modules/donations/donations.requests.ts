// A family member's donation is a request (rules §20): `requested`, no money
// held, until an organizer or advisor of the fund approves it (then as any
// donation: scheduled with a hold, or waiting for funds) or declines it with
// a reason (rejected). It lapses after REQUEST_TTL_DAYS; the requester may
// withdraw it, and it is withdrawn when their membership ends. Both sides
// are mailed; each step is a donation event.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, conflict, notFound } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { lockFundAccounts, postEntry } from '../ledger/index.ts';
import { recordEvent } from '../events/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { membersStore, REQUEST_TTL_DAYS } from '../members/index.ts';
import type { IdempotencyClaim } from '../idempotency/index.ts';
import type { HeldDonation } from './donations.held.ts';
import type { Made } from './donations.writer.ts';
import { initialStatus } from './donations.ts';
import * as store from './donations.store.ts';
import * as requestsStore from './donations.requests.store.ts';
import { authorize } from '../../shared/policy.ts';
import { centsToDollars } from '../../shared/money.ts';

/** When a request made at `now` lapses. */
export function requestExpiry(now: Date): string {
  return new Date(now.getTime() + REQUEST_TTL_DAYS * 86_400_000).toISOString();
}

/**
 * A family member's donation: written `requested` (no hold) through the one writer every donation
 * takes (ADR 19: its ids, its recipients' rules, its Idempotency-Key outcome), then the fund's
 * deciders are mailed. Throws what a donation's create throws for its recipient.
 */
export async function insertRequest(
  deps: Deps,
  caller: Caller,
  ein: string,
  row: Omit<HeldDonation, 'non_profit_id'>,
  claim: IdempotencyClaim | undefined,
  view?: (made: Made) => unknown,
) {
  const made = await deps.runtime.donations.submit({ ein, donation: { ...row, request_expires_at: requestExpiry(deps.clock.now()) }, claim, view });
  // Told after the request is written: were the mail lost to a crash between, the request still waits on the fund's page.
  await deps.db
    .transaction()
    .execute((trx) => mailRequest(deps, trx, caller, { id: made.id, amount_cents: row.amount_cents, non_profit_name: made.nonProfit.name }, made.created_at));
  return made;
}

/** Mails the fund's organizers and advisors that a member asks to give (the live book only). */
export async function mailRequest(deps: Deps, trx: Trx, caller: Caller, r: { id: number; amount_cents: number; non_profit_name: string }, at: string): Promise<void> {
  if (caller.book !== 'live') return;
  const names = await membersStore.fundNames(trx, caller.fund_id, caller.actor_id);
  const deciders = await membersStore.memberEmails(trx, caller.fund_id, ['organizer', 'advisor']);
  const message = messages.donationRequested({
    requester: names.inviter,
    fund: names.fund,
    nonProfit: r.non_profit_name,
    amount: centsToDollars(r.amount_cents),
    url: `${deps.config.publicUrl}/dashboard#requests`,
    days: REQUEST_TTL_DAYS,
  });
  await queueMail(
    trx,
    deciders.map((d) => ({ ...message, kind: 'donation_requested', recipient: d.email, event_id: null })),
    at,
  );
}

/**
 * An organizer or advisor decides a request of their fund: approved, it is held (or waits for
 * funds) as any new donation; declined, it is rejected with the reason. One decision wins when two
 * race. The requester never decides their own (four eyes). Throws donation_not_found, conflict
 * (donation_not_requested, request_expired), forbidden (role_forbidden, own_request).
 */
export async function decideRequest(deps: Deps, caller: Caller, donationId: number, decision: { approve: true } | { approve: false; reason: string }) {
  authorize(caller, 'decide_request');
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const unlocked = await store.lockDonation(trx, caller.book, donationId, false);
    if (unlocked === undefined || unlocked.fund_id !== caller.fund_id) throw notFound('donation_not_found', `no donation ${donationId}`);
    // The fund's accounts first, then the donation: the order every use case locks in.
    const accounts = await lockFundAccounts(trx, unlocked.fund_id);
    await store.lockDonation(trx, caller.book, donationId);
    const request = await requestsStore.requestRow(trx, donationId);
    assert(request !== undefined, 'a locked donation is there');
    if (request.status !== 'requested') throw conflict('donation_not_requested', `this donation is ${request.status}, not a request waiting for a decision`);
    if ((request.request_expires_at ?? '') <= at) throw conflict('request_expired', 'this request lapsed: ask for it again');
    // Four eyes (rules §20): never the requester, even promoted since to a role that decides.
    if (request.actor_id === caller.actor_id)
      throw new AppError('forbidden', 'own_request', 'a request is decided by someone other than who asked for it: ask another organizer or advisor');
    let status: string;
    if (decision.approve) {
      status = initialStatus(accounts.balances.available_cents, request.amount_cents);
      const moved = await store.transition(trx, donationId, 'requested', status, at, { decided_at: at, decided_by: caller.actor_id });
      assert(moved, 'the locked request is still requested');
      if (status === 'scheduled') {
        await postEntry(
          trx,
          { book: accounts.book, memo: 'donation scheduled: hold', donation_id: donationId },
          [{ from_account_id: accounts.ids.available, to_account_id: accounts.ids.reserved, amount_cents: request.amount_cents }],
          at,
        );
      }
    } else {
      status = 'rejected';
      const moved = await store.transition(trx, donationId, 'requested', 'rejected', at, {
        decided_at: at,
        decided_by: caller.actor_id,
        rejected_at: at,
        rejection_reason: decision.reason,
      });
      assert(moved, 'the locked request is still requested');
    }
    await recordEvent(trx, {
      user_id: request.user_id,
      type: 'donation.updated',
      object_type: 'donation',
      object_id: donationId,
      data: { status, previous_status: 'requested', decided_by: caller.actor_id },
      at,
    });
    const requester = request.actor_id === null ? undefined : await membersStore.emailOfUser(trx, request.actor_id);
    if (requester !== undefined && caller.book === 'live') {
      const decider = await membersStore.fundNames(trx, caller.fund_id, caller.actor_id);
      const message = messages.requestDecided({
        decider: decider.inviter,
        nonProfit: request.non_profit_name,
        amount: centsToDollars(request.amount_cents),
        approved: decision.approve,
        reason: decision.approve ? null : decision.reason,
        url: `${deps.config.publicUrl}/dashboard`,
      });
      await queueMail(trx, [{ ...message, kind: decision.approve ? 'request_approved' : 'request_declined', recipient: requester, event_id: null }], at);
    }
    return { id: donationId, status };
  });
}

/** A request that did not happen: withdrawn by its member, ended with their membership, or lapsed. No money moved. */
async function closeRequest(trx: Trx, r: { id: number; user_id: number }, at: string, why: string): Promise<void> {
  if (!(await store.transition(trx, r.id, 'requested', 'not_completed', at, { cancelled_at: at }))) return;
  await recordEvent(trx, {
    user_id: r.user_id,
    type: 'donation.updated',
    object_type: 'donation',
    object_id: r.id,
    data: { status: 'not_completed', previous_status: 'requested', why },
    at,
  });
}

/** A member's waiting requests in a fund are withdrawn (their membership ended), in `trx`. */
export async function withdrawRequestsOf(_deps: Deps, trx: Trx, fundId: number, actorId: number, at: string): Promise<void> {
  for (const r of await requestsStore.requestsOf(trx, fundId, actorId)) await closeRequest(trx, r, at, 'member_left');
}

/** Requests past their REQUEST_TTL_DAYS lapse (a job of the node): how many. */
export async function expireRequests(deps: Deps): Promise<number> {
  const at = deps.clock.now().toISOString();
  let expired = 0;
  for (;;) {
    const lapsed = await requestsStore.lapsedRequests(deps.db, at, 500);
    if (lapsed.length === 0) return expired;
    await deps.db.transaction().execute(async (trx) => {
      for (const r of lapsed) await closeRequest(trx, r, at, 'expired');
    });
    expired += lapsed.length;
    if (lapsed.length < 500) return expired;
  }
}

/** A family member's donation is a request (rules §20): it holds no money and waits for a decision. */
export const givesByRequest = (caller: Caller): boolean => caller.role === 'family';

/** A family member may cancel only their own request (the rest of the fund's donations are the deciders'). */
export function mayCancel(caller: Caller, donation: { status: string; actor_id: number | null }): void {
  if (!mayCancelAs(caller, donation)) throw new AppError('forbidden', 'role_forbidden', 'a family member cancels only their own requests');
}

/** Whether the caller's role lets them cancel the donation (rules §20): anyone who gives outright; a family member, their own requests only. */
export function mayCancelAs(caller: Caller, donation: { status: string; actor_id: number | null }): boolean {
  return !givesByRequest(caller) || (donation.status === 'requested' && donation.actor_id === caller.actor_id);
}

/** The requests of the caller's fund waiting for a decision (the web's fund page). */
export async function waitingRequests(deps: Deps, caller: Caller) {
  authorize(caller, 'read');
  return (await requestsStore.waitingRequestsOfFund(deps.db, caller.book, caller.fund_id)).map((r) => ({ ...r, amount: centsToDollars(r.amount_cents) }));
}
