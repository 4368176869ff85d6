// Claiming an organisation (docs/rules.md §18): a person with an account gives
// an address at the organisation's web domain, follows the link mailed there
// while signed in, and an operator approves or refuses the claim. Every step
// is audited (by claim id and organisation: the address stays in the claim).
import type { Deps } from '../../deps.ts';
import { conflict, fieldErrors, notFound, AppError, type FieldError } from '../../shared/errors.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { recordAudit } from '../audit/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { charityByEin, normalizeEin } from '../nonprofits/index.ts';
import { newSecret, normalizeEmail, requireConfirmedAddress } from '../accounts/index.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { CLAIM_LINK_TTL_MS, CLAIM_MAILS_PER_ADDRESS_PER_HOUR, CLAIM_RESEND_MS, emailAtDomain, UNCONFIRMED_CLAIMS_MAX, webDomain } from './charities.ts';
import * as store from './charities.store.ts';

const CLAIMS_LISTED = 500;

/** The organisation at an EIN typed in a path or form, or 404. */
async function organisation(deps: Deps, einText: string) {
  const ein = normalizeEin(einText);
  if (ein === null) throw notFound('non_profit_not_found', 'there is no non-profit at this address');
  return (await charityByEin(deps, ein)).view;
}

/** What a claim page needs to know: the organisation, and the domain an address must be at (null: the claimant names the website). */
export async function claimTarget(deps: Deps, einText: string) {
  const view = await organisation(deps, einText);
  return { view, domain: webDomain(view.website ?? '') };
}

/**
 * Starts (or, unconfirmed, restarts) a person's claim of an organisation: the address must be at
 * the organisation's web domain (its website on file, or the one the claimant gives for an
 * organisation without one, which the operator then checks); a link to confirm it is mailed there.
 * Throws address_unconfirmed, non_profit_not_found, validation_failed, claim_domain_mismatch, claim_exists.
 */
export async function startClaim(
  deps: Deps,
  userId: number,
  einText: string,
  input: { email: string; website: string; person: string },
): Promise<{ email: string; domain: string }> {
  await requireConfirmedAddress(deps.db, userId, "a charity's claim starts from an account whose own address is proven");
  const { view, domain: onFile } = await claimTarget(deps, einText);
  const email = normalizeEmail(input.email);
  const domain = onFile ?? webDomain(input.website);
  const problems: FieldError[] = [];
  if (email === null) problems.push({ field: 'email', code: 'validation_failed', message: 'must be an email address' });
  if (domain === null) problems.push({ field: 'website', code: 'validation_failed', message: "must be the organisation's web address, like example.org" });
  if (problems.length > 0) throw fieldErrors(problems);
  if (!emailAtDomain(email as string, domain as string))
    throw fieldErrors([{ field: 'email', code: 'claim_domain_mismatch', message: `must be an address at ${domain}, the organisation's web domain` }]);
  const token = newSecret();
  const now = deps.clock.now();
  const at = now.toISOString();
  const link = {
    email: email as string,
    domain: domain as string,
    website_on_file: onFile === null ? 0 : 1,
    token_hash: hashSecret(token),
    token_expires_at: new Date(now.getTime() + CLAIM_LINK_TTL_MS).toISOString(),
    created_at: at,
  };
  await deps.db.transaction().execute(async (trx) => {
    const live = await store.liveClaimOf(trx, userId, view.id);
    if (live !== undefined && live.status !== 'unconfirmed')
      throw conflict('claim_exists', live.status === 'approved' ? `you act for ${view.name} already` : `your claim for ${view.name} waits for an operator`);
    if (live !== undefined && now.getTime() - Date.parse(live.created_at) < CLAIM_RESEND_MS) {
      const after = new Date(Date.parse(live.created_at) + CLAIM_RESEND_MS).toISOString();
      throw conflict('claim_link_recent', `a link went to ${live.email} a moment ago: follow it, or ask again after ${after.slice(11, 16)} UTC`);
    }
    if (live === undefined && (await store.unconfirmedCount(trx, userId)) >= UNCONFIRMED_CLAIMS_MAX)
      throw conflict('claim_limit', `you have ${UNCONFIRMED_CLAIMS_MAX} claims waiting for their links: follow those first`);
    // Per recipient address too, whichever accounts ask: the oldest of the hour's links says when another may go.
    const sent = await store.claimMailsTo(trx, link.email, new Date(now.getTime() - 3_600_000).toISOString());
    if (sent.length >= CLAIM_MAILS_PER_ADDRESS_PER_HOUR) {
      const retry = Math.max(1, Math.ceil((Date.parse(sent[0] as string) + 3_600_000 - now.getTime()) / 1000));
      throw new AppError('rate_limited', 'claim_mail_limit', `${link.email} received ${sent.length} claim links in the last hour: ask again in ${Math.ceil(retry / 60)} minutes`, {
        headers: { 'retry-after': String(retry) },
      });
    }
    let id: number;
    if (live === undefined) {
      try {
        id = await store.insertClaim(trx, {
          ...link,
          non_profit_id: view.id,
          user_id: userId,
          status: 'unconfirmed',
          confirmed_at: null,
          decided_at: null,
          decided_by: null,
          decision_note: null,
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('claim_exists', `you asked to act for ${view.name} at the same moment already`);
        throw error;
      }
    } else {
      id = Number(live.id);
      await store.renewLink(trx, id, link);
    }
    await recordAudit(trx, {
      book: 'live',
      actor: `user:${userId}`,
      action: 'charity_claim.started',
      object_type: 'charity_claim',
      object_id: id,
      before: null,
      after: { ein: view.ein, domain: link.domain, website_on_file: onFile !== null },
      at,
    });
    const url = `${deps.config.publicUrl}/charities/claims/confirm/${token}`;
    await queueMail(
      trx,
      [{ ...messages.claimConfirmation({ nonProfit: view.name, person: input.person, url }), kind: 'charity_claim', recipient: link.email, event_id: null }],
      at,
    );
  });
  return { email: link.email, domain: link.domain };
}

/** The claim a confirmation link names, if it is the person's, unconfirmed and not expired. */
async function claimOfLink(deps: Deps, userId: number, token: string) {
  const claim = await store.claimByToken(deps.db, hashSecret(token));
  if (claim === undefined || Number(claim.user_id) !== userId || claim.status !== 'unconfirmed' || claim.token_expires_at <= deps.clock.now().toISOString())
    throw notFound('claim_link_invalid', 'this link is unknown, used, expired, or for another account: sign in with the account that asked, or claim again');
  return claim;
}

/** The organisation a confirmation link is for (the page that asks to confirm it). Throws claim_link_invalid. */
export async function claimLinkTarget(deps: Deps, userId: number, token: string) {
  const claim = await claimOfLink(deps, userId, token);
  const np = await store.organisationOf(deps.db, Number(claim.non_profit_id));
  return { name: np.name, ein: np.ein, email: claim.email };
}

/** Follows a confirmation link: the claim waits for an operator. Throws claim_link_invalid. */
export async function confirmClaim(deps: Deps, userId: number, token: string): Promise<{ ein: string }> {
  const claim = await claimOfLink(deps, userId, token);
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if (!(await store.moveClaim(trx, Number(claim.id), 'unconfirmed', { status: 'pending', confirmed_at: at }))) throw notFound('claim_link_invalid', 'this link was used already');
    await recordAudit(trx, {
      book: 'live',
      actor: `user:${userId}`,
      action: 'charity_claim.confirmed',
      object_type: 'charity_claim',
      object_id: Number(claim.id),
      before: { status: 'unconfirmed' },
      after: { status: 'pending' },
      at,
    });
  });
  return { ein: (await store.organisationOf(deps.db, Number(claim.non_profit_id))).ein };
}

/** Claims in a status (default: confirmed, waiting for an operator), oldest first. */
export async function listClaims(deps: Deps, status: store.ClaimRow['status'] = 'pending') {
  return (await store.claimsIn(deps.db, status, CLAIMS_LISTED)).map((c) => ({
    id: Number(c.id),
    status: c.status,
    ein: c.ein,
    non_profit: c.non_profit,
    person: { user_id: Number(c.user_id), name: c.person },
    email: c.email,
    domain: c.domain,
    website_on_file: c.website_on_file === 1,
    created_at: c.created_at,
    confirmed_at: c.confirmed_at,
  }));
}

/**
 * An operator approves or refuses a confirmed claim, once (audited; the claimant is told).
 * Throws claim_not_found, claim_not_confirmed, claim_decided.
 */
export async function decideClaim(deps: Deps, id: number, decision: 'approved' | 'rejected', note: string, actor: string) {
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const claim = await store.findClaim(trx, id);
    if (claim === undefined) throw notFound('claim_not_found', `no claim ${id}`);
    if (claim.status === 'unconfirmed') throw conflict('claim_not_confirmed', `claim ${id} waits for its link to be followed: its address is not shown to be the claimant's yet`);
    if (!(await store.moveClaim(trx, id, 'pending', { status: decision, decided_at: at, decided_by: actor, decision_note: note })))
      throw conflict('claim_decided', `claim ${id} was decided already (${claim.status})`);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: `charity_claim.${decision}`,
      object_type: 'charity_claim',
      object_id: id,
      before: { status: 'pending' },
      after: { status: decision, note },
      at,
    });
    const np = await store.organisationOf(trx, Number(claim.non_profit_id));
    const url = `${deps.config.publicUrl}/charities/${np.ein}/manage`;
    await queueMail(
      trx,
      [{ ...messages.claimDecided({ nonProfit: np.name, approved: decision === 'approved', url }), kind: 'charity_claim', recipient: claim.email, event_id: null }],
      at,
    );
  });
  return (await listClaims(deps, decision)).find((c) => c.id === id);
}

/**
 * The organisation a person acts for (an approved claim of theirs), or 403 claim_required.
 * Throws non_profit_not_found.
 */
export async function requireClaimant(deps: Deps, userId: number, einText: string) {
  const view = await organisation(deps, einText);
  const claim = await store.liveClaimOf(deps.db, userId, view.id);
  if (claim?.status !== 'approved') throw new AppError('forbidden', 'claim_required', `you do not act for ${view.name}: claim it first, and an operator approves the claim`);
  return view;
}

/** The organisations a person acts for, or has claimed and waits for. */
export async function claimsOfUser(deps: Deps, userId: number) {
  return (await store.claimsOfUser(deps.db, userId)).map((c) => ({ id: Number(c.id), status: c.status, ein: c.ein, name: c.name, email: c.email }));
}

export { claimantAddresses, claimantsOf } from './charities.store.ts';
