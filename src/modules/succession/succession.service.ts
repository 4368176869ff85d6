// A fund's successor plan (rules §20): people who become organizers, or
// charities that receive the available balance in shares summing to 100%,
// when an operator records the death of the fund's holder and a second
// operator approves it. The plan's grants are donations written as any other
// (held, then paid in a payment run), in the holder's name before their
// membership ends.
import { personOf } from '../../shared/operators.ts';
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { recordAudit } from '../audit/index.ts';
import { bumpAuthEpoch } from '../keys/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { newSecret, normalizeEmail } from '../accounts/index.ts';
import { findRecipients, requireEin } from '../nonprofits/index.ts';
import { insertWithHold } from '../donations/index.ts';
import { lockFundAccounts } from '../ledger/index.ts';
import { addMember, INVITATION_TTL_DAYS, membersStore as store, ROLE_WORDS } from '../members/index.ts';
import { endMembership } from '../members/api.ts';
import * as successors from './successors.store.ts';
import { DOCUMENT_REFERENCE_MAX, planProblem, splitByShares, type SuccessorLine } from './succession.ts';
import { authorize } from '../../shared/policy.ts';

type PlanInput = ReadonlyArray<{ email: string } | { ein: string; share_percent: number }>;

function lineOf(l: { email: string | null; ein: string | null; share_percent: number | null }) {
  return l.email !== null ? { email: l.email } : { ein: l.ein ?? '', share_percent: l.share_percent ?? 0 };
}

/** The plan of the caller's fund. */
export async function getPlan(deps: Deps, caller: Caller) {
  authorize(caller, 'read');
  const lines = await successors.successorLines(deps.db, caller.fund_id);
  return { successors: lines.map(lineOf), updated_at: lines[0]?.updated_at ?? null };
}

/**
 * An organizer replaces the plan: addresses normalised, EINs of organisations a donation could go
 * to, shares whole percents summing to 100. Throws unprocessable (validation_failed, plan_invalid,
 * non_profit_ineligible), not_found (non_profit_not_found).
 */
export async function setPlan(deps: Deps, caller: Caller, input: PlanInput) {
  authorize(caller, 'successors');
  const lines: SuccessorLine[] = input.map((l, i) => {
    if ('email' in l) {
      const email = normalizeEmail(l.email);
      if (email === null) throw fieldErrors([{ field: `successors[${i}].email`, code: 'validation_failed', message: 'is not an e-mail address' }]);
      return { email };
    }
    return { ein: requireEin(l.ein), share_percent: l.share_percent };
  });
  const problem = planProblem(lines);
  if (problem !== undefined) throw new AppError('unprocessable', 'plan_invalid', problem);
  const eins = lines.flatMap((l) => (l.ein === undefined ? [] : [l.ein]));
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    for (const found of (await findRecipients(trx, eins)).values()) if (found instanceof AppError) throw found;
    const before = await successors.successorLines(trx, caller.fund_id);
    await successors.replaceSuccessorLines(
      trx,
      caller.fund_id,
      lines.map((l) => ({ email: l.email ?? null, ein: l.ein ?? null, share_percent: l.share_percent ?? null })),
      caller.actor_id,
      at,
    );
    await recordAudit(trx, {
      book: caller.book,
      actor: `user:${caller.actor_id}`,
      action: 'successor_plan.set',
      object_type: 'fund',
      object_id: caller.fund_id,
      before: before.map(lineOf),
      after: lines,
      at,
    });
  });
  return getPlan(deps, caller);
}

/**
 * An operator records the death of a fund's holder with a document's reference: nothing happens
 * until a second operator approves it. Throws user_not_found, unprocessable (validation_failed),
 * conflict (death_recorded).
 */
export async function recordDeath(deps: Deps, userId: number, documentReference: string, operator: string) {
  const reference = documentReference.trim();
  if (reference.length === 0 || reference.length > DOCUMENT_REFERENCE_MAX) {
    throw fieldErrors([{ field: 'document_reference', code: 'validation_failed', message: `is 1 to ${DOCUMENT_REFERENCE_MAX} characters` }]);
  }
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const fund = await store.ownFundOf(trx, userId);
    if (fund === undefined || fund.book !== 'live') throw notFound('user_not_found', `no user ${userId}`);
    const id = await successors.insertDeath(trx, { fund_id: fund.id, user_id: userId, document_reference: reference, recorded_by: operator, recorded_at: at });
    if (id === undefined) throw conflict('death_recorded', `the death of user ${userId} is recorded already`);
    await recordAudit(trx, {
      book: 'live',
      actor: operator,
      action: 'death.record',
      object_type: 'death_record',
      object_id: id,
      before: null,
      after: { user_id: userId, document_reference: reference },
      at,
    });
    return { id, status: 'recorded' as const, fund_id: fund.id, user_id: userId };
  });
}

export function listDeaths(deps: Deps, status?: 'recorded' | 'approved') {
  return successors.listDeaths(deps.db, status);
}

/**
 * A second operator approves a recorded death, and the fund's plan runs in the same transaction:
 * successors with an account become organizers (others are invited as organizers), the charities
 * receive the available balance as held donations in their shares, and the holder's membership
 * ends. Throws death_not_found, forbidden (same_operator), conflict (death_decided).
 */
export async function approveDeath(deps: Deps, deathId: number, operator: string) {
  const now = deps.clock.now();
  const at = now.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const death = await successors.lockDeath(trx, deathId, true);
    if (death === undefined) throw notFound('death_not_found', `no death record ${deathId}`);
    if (death.status !== 'recorded') throw conflict('death_decided', `death record ${deathId} is ${death.status}`);
    // A second person: two tokens of one operator, or the same operator by the CLI and the API, are one.
    if (personOf(death.recorded_by) === personOf(operator)) throw new AppError('forbidden', 'same_operator', 'a second operator approves what one recorded');
    const lines = await successors.successorLines(trx, death.fund_id);
    const organizers: Array<{ email: string; user_id: number | null }> = [];
    for (const line of lines) {
      if (line.email === null) continue;
      organizers.push({ email: line.email, user_id: await makeOrganizer(deps, trx, death.fund_id, death.user_id, line.email, at, now) });
    }
    const charities = lines.filter((l) => l.ein !== null);
    const grants: Array<{ ein: string; donation_id: number; amount_cents: number }> = [];
    if (charities.length > 0) {
      const accounts = await lockFundAccounts(trx, death.fund_id);
      const parts = splitByShares(
        accounts.balances.available_cents,
        charities.map((c) => c.share_percent ?? 0),
      );
      const recipients = await findRecipients(
        trx,
        charities.map((c) => c.ein ?? ''),
      );
      for (const [i, c] of charities.entries()) {
        const cents = parts[i] ?? 0;
        const nonProfit = recipients.get(c.ein ?? '');
        // An organisation no longer eligible keeps its share in the fund: the operators see it in the outcome.
        if (cents === 0 || nonProfit === undefined || nonProfit instanceof AppError) continue;
        const id = await insertWithHold(deps, trx, {
          book: accounts.book,
          user_id: death.user_id,
          fund_id: death.fund_id,
          actor_id: death.user_id,
          non_profit_id: nonProfit.id,
          amount_cents: cents,
          note: 'Successor plan',
          private_memo: null,
          visibility: 'private',
          scheduled_donation_id: null,
          app_connection_id: null,
        });
        grants.push({ ein: c.ein ?? '', donation_id: id, amount_cents: cents });
      }
    }
    const own = await store.activeMember(trx, death.fund_id, death.user_id);
    if (own !== undefined) await endMembership(deps, trx, own, operator, at);
    const outcome = JSON.stringify({ organizers, grants });
    const approved = await successors.approveDeath(trx, deathId, operator, at, outcome);
    if (!approved) throw conflict('death_decided', `death record ${deathId} was decided meanwhile`);
    await bumpAuthEpoch(trx);
    await recordAudit(trx, {
      book: 'live',
      actor: operator,
      action: 'death.approve',
      object_type: 'death_record',
      object_id: deathId,
      before: { status: 'recorded' },
      after: { organizers, grants },
      at,
    });
    return { id: deathId, status: 'approved' as const, organizers, grants };
  });
}

/** A successor becomes an organizer: a member already, an account (added), or an address (invited). Returns the user, if any. */
async function makeOrganizer(deps: Deps, trx: Parameters<typeof store.insertMember>[0], fundId: number, holderId: number, email: string, at: string, now: Date) {
  // An account whose address is not proven is no one's yet: the address is invited instead (rules §15).
  const account = await store.confirmedAccountByEmail(trx, email);
  if (account !== undefined && account.status === 'active') {
    const member = await store.activeMember(trx, fundId, account.user_id);
    if (member !== undefined) {
      if (member.role !== 'organizer') {
        await store.endRole(trx, member.id, at);
        await store.changeRole(trx, member.id, 'organizer');
        await store.startRole(trx, { member_id: member.id, fund_id: fundId, user_id: account.user_id, role: 'organizer', since: at });
      }
      return account.user_id;
    }
    await addMember(trx, { fund_id: fundId, book: 'live', user_id: account.user_id, role: 'organizer', at });
    return account.user_id;
  }
  if ((await store.waitingInvitation(trx, fundId, email)) !== undefined) return null;
  const token = newSecret();
  await store.insertMember(trx, {
    fund_id: fundId,
    book: 'live',
    user_id: null,
    email,
    role: 'organizer',
    status: 'invited',
    token_hash: hashSecret(token),
    token_expires_at: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000).toISOString(),
    invited_by: holderId,
    created_at: at,
    joined_at: null,
  });
  const names = await store.fundNames(trx, fundId, holderId);
  const message = messages.fundInvitation({
    inviter: names.inviter,
    fund: names.fund,
    role: 'organizer',
    roleWords: ROLE_WORDS.organizer,
    url: `${deps.config.publicUrl}/join/${token}`,
    days: INVITATION_TTL_DAYS,
  });
  await queueMail(trx, [{ ...message, kind: 'fund_invitation', recipient: email, event_id: null }], at);
  return null;
}
