// Shared funds (rules §20): inviting members by e-mail, accepting with one's
// own account, changing roles, removing and leaving, and choosing the fund one
// acts on. Every change is audited with the member who made it, raises the
// auth epoch (keys cached on any node act on the new membership at once) and
// is followed by the sandbox twins.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError, conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { bumpAuthEpoch } from '../keys/index.ts';
import { recordAudit } from '../audit/index.ts';
import { messages, queueMail } from '../mail/index.ts';
import { newSecret, normalizeEmail, requireConfirmedAddress } from '../accounts/index.ts';
import { sandboxUserFor } from '../users/index.ts';
import { withdrawRequestsOf } from '../donations/index.ts';
import { endEndpointsOfMember } from '../webhooks/index.ts';
import { INVITATION_TTL_DAYS, ROLE_WORDS, type Role } from './members.ts';
import * as store from './members.store.ts';
import type { Member } from './members.store.ts';
import { mirrorCurrentFund, mirrorMember, type EnsureTwin } from './members.twins.ts';
import { authorize } from '../../shared/policy.ts';

const ensureTwin =
  (deps: Deps): EnsureTwin =>
  (trx, live) =>
    sandboxUserFor(deps, live, trx);

/** A member as the API shows it: the person (once they accepted), the address an invitation went to (to the fund's members only). */
export function memberView(m: Member & { name: string | null; slug: string | null }) {
  return {
    id: m.id,
    role: m.role,
    status: m.status,
    user: m.user_id === null ? null : { id: m.user_id, name: m.name ?? '', slug: m.slug ?? '' },
    email: m.status === 'invited' ? m.email : null,
    invited_at: m.created_at,
    joined_at: m.joined_at,
  };
}

/** The members and waiting invitations of the caller's fund. */
export async function listMembers(deps: Deps, caller: Caller) {
  authorize(caller, 'read');
  return (await store.membersOfFund(deps.db, caller.fund_id)).map(memberView);
}

/** Audits a change of membership with the member who made it, and lets every node's cached keys see it. */
async function changed(trx: Trx, caller: Caller, action: string, member: Member, before: unknown, after: unknown, at: string) {
  await bumpAuthEpoch(trx);
  await recordAudit(trx, { book: caller.book, actor: `user:${caller.actor_id}`, action, object_type: 'fund_member', object_id: member.id, before, after, at });
}

/**
 * An organizer invites an address into the fund with a role: a link mailed there (only its
 * SHA-256 kept), working for INVITATION_TTL_DAYS. Throws unprocessable (validation_failed,
 * member_self, member_unavailable), conflict (member_exists, invitation_exists, member_limit).
 */
export async function inviteMember(deps: Deps, caller: Caller, input: { email: string; role: Role }) {
  authorize(caller, 'members');
  const email = normalizeEmail(input.email);
  if (email === null) throw fieldErrors([{ field: 'email', code: 'validation_failed', message: 'is not an e-mail address' }]);
  const token = newSecret();
  const now = deps.clock.now();
  const at = now.toISOString();
  const id = await deps.db.transaction().execute(async (trx) => {
    if ((await store.emailOfUser(trx, caller.actor_id)) === email) throw new AppError('unprocessable', 'member_self', 'you cannot invite yourself');
    const account = await store.accountByEmail(trx, email);
    if (account !== undefined && account.status !== 'active') throw new AppError('unprocessable', 'member_unavailable', 'the account of this address cannot join a fund');
    if (account !== undefined && (await store.activeMember(trx, caller.fund_id, account.user_id)) !== undefined) {
      throw conflict('member_exists', 'this person is a member of the fund already');
    }
    if ((await store.waitingInvitation(trx, caller.fund_id, email)) !== undefined) throw conflict('invitation_exists', 'an invitation to this address is waiting already');
    const max = deps.config.membersPerFund;
    if ((await store.memberCounts(trx, caller.fund_id)).total >= max) throw conflict('member_limit', `a fund has at most ${max} members and invitations`);
    const member: Omit<Member, 'id' | 'ended_at'> = {
      fund_id: caller.fund_id,
      book: caller.book,
      user_id: null,
      email,
      role: input.role,
      status: 'invited',
      invited_by: caller.actor_id,
      token_expires_at: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000).toISOString(),
      created_at: at,
      joined_at: null,
    };
    const memberId = await store.insertMember(trx, { ...member, token_hash: hashSecret(token) });
    await changed(trx, caller, 'fund_member.invite', { ...member, id: memberId, ended_at: null }, null, { email, role: input.role }, at);
    const fund = await store.fundNames(trx, caller.fund_id, caller.actor_id);
    // The sandbox's invitations are real links too, but go nowhere: a test key's work mails no one.
    if (caller.book === 'live') {
      const message = messages.fundInvitation({
        inviter: fund.inviter,
        fund: fund.fund,
        role: input.role,
        roleWords: ROLE_WORDS[input.role],
        url: `${deps.config.publicUrl}/join/${token}`,
        days: INVITATION_TTL_DAYS,
      });
      await queueMail(trx, [{ ...message, kind: 'fund_invitation', recipient: email, event_id: null }], at);
    }
    return memberId;
  });
  const created = (await store.membersOfFund(deps.db, caller.fund_id)).find((m) => m.id === id);
  if (created === undefined) throw notFound('member_not_found', `no member ${id}`);
  return { member: memberView(created), token };
}

/** What an invitation's link shows before it is accepted. Throws invitation_not_found (unknown, used, withdrawn or expired). */
export async function invitationByLink(deps: Deps, token: string) {
  const invitation = await store.invitationByToken(deps.db, hashSecret(token));
  if (invitation === undefined || (invitation.token_expires_at ?? '') <= deps.clock.now().toISOString()) {
    throw notFound('invitation_not_found', 'this invitation is no longer open: ask for a new one');
  }
  const names = await store.fundNames(deps.db, invitation.fund_id, invitation.invited_by ?? 0);
  return { ...invitation, fund_name: names.fund, inviter: names.inviter };
}

/**
 * A person accepts an invitation with their own account, whose address it went to: they become
 * a member with its role and act on the fund from now. Throws invitation_not_found,
 * forbidden (invitation_other_address, address_unconfirmed), conflict (member_exists).
 */
export async function acceptInvitation(deps: Deps, personId: number, token: string): Promise<{ fund_id: number; role: Role }> {
  const invitation = await invitationByLink(deps, token);
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const email = await store.emailOfUser(trx, personId);
    if (email !== invitation.email) throw new AppError('forbidden', 'invitation_other_address', `this invitation went to another address: sign in as ${invitation.email}`);
    await requireConfirmedAddress(trx, personId, 'an invitation goes to the account that proved its address');
    if ((await store.activeMember(trx, invitation.fund_id, personId)) !== undefined) throw conflict('member_exists', 'you are a member of this fund already');
    if (!(await store.activate(trx, invitation.id, personId, at))) throw notFound('invitation_not_found', 'this invitation is no longer open');
    await store.startRole(trx, { member_id: invitation.id, fund_id: invitation.fund_id, user_id: personId, role: invitation.role, since: at });
    await store.setCurrentFund(trx, personId, invitation.fund_id);
    const member = { ...invitation, user_id: personId, status: 'active' as const, joined_at: at };
    await mirrorMember(trx, member, at, ensureTwin(deps));
    await mirrorCurrentFund(trx, personId, ensureTwin(deps));
    await bumpAuthEpoch(trx);
    await recordAudit(trx, {
      book: invitation.book,
      actor: `user:${personId}`,
      action: 'fund_member.accept',
      object_type: 'fund_member',
      object_id: invitation.id,
      before: null,
      after: { role: invitation.role },
      at,
    });
    return { fund_id: invitation.fund_id, role: invitation.role };
  });
}

/** A member of the caller's fund, locked. Throws member_not_found. */
async function memberOfFund(trx: Trx, caller: Caller, memberId: number): Promise<Member> {
  const member = await store.lockMember(trx, memberId, true);
  if (member === undefined || member.fund_id !== caller.fund_id || member.status === 'removed') throw notFound('member_not_found', `no member ${memberId}`);
  return member;
}

/** Whether ending or demoting `member` would leave the fund without an organizer. */
async function lastOrganizer(trx: Trx, member: Member): Promise<boolean> {
  return member.status === 'active' && member.role === 'organizer' && (await store.memberCounts(trx, member.fund_id)).organizers <= 1;
}

/** An organizer changes a member's (or a waiting invitation's) role. Throws member_not_found, conflict (last_organizer). */
export async function changeMemberRole(deps: Deps, caller: Caller, memberId: number, role: Role) {
  authorize(caller, 'members');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const member = await memberOfFund(trx, caller, memberId);
    if (member.role === role) return;
    if (await lastOrganizer(trx, member)) throw conflict('last_organizer', 'a fund keeps at least one organizer: make someone else an organizer first');
    await store.changeRole(trx, member.id, role);
    if (member.status === 'active' && member.user_id !== null) {
      await store.endRole(trx, member.id, at);
      await store.startRole(trx, { member_id: member.id, fund_id: member.fund_id, user_id: member.user_id, role, since: at });
      // A member who is family from now asks for what they give: their own waiting requests stay requests.
      await mirrorMember(trx, { ...member, role }, at, ensureTwin(deps));
    }
    await changed(trx, caller, 'fund_member.role', member, { role: member.role }, { role }, at);
  });
  const after = (await store.membersOfFund(deps.db, caller.fund_id)).find((m) => m.id === memberId);
  if (after === undefined) throw notFound('member_not_found', `no member ${memberId}`);
  return memberView(after);
}

/**
 * An organizer removes a member or withdraws an invitation; any member leaves (their own id). The
 * member's waiting requests are withdrawn, and they act on their own fund again.
 * Throws member_not_found, forbidden (role_forbidden), conflict (last_organizer).
 */
export async function removeMember(deps: Deps, caller: Caller, memberId: number): Promise<void> {
  authorize(caller, 'leave');
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const member = await memberOfFund(trx, caller, memberId);
    const self = member.user_id === caller.actor_id;
    if (!self && caller.role !== 'organizer') throw new AppError('forbidden', 'role_forbidden', 'only an organizer removes other members; you may leave');
    if (await lastOrganizer(trx, member)) throw conflict('last_organizer', 'a fund keeps at least one organizer: make someone else an organizer first');
    await endMembership(deps, trx, member, self ? 'self' : `user:${caller.actor_id}`, at);
    await changed(trx, caller, self ? 'fund_member.leave' : 'fund_member.remove', member, { role: member.role, status: member.status }, { status: 'removed' }, at);
  });
}

/** Ends a membership in `trx`: its role, their acting on the fund, their waiting requests, and the twins'. */
export async function endMembership(deps: Deps, trx: Trx, member: Member, by: string, at: string): Promise<void> {
  if (!(await store.endMember(trx, member.id, at, by))) return;
  if (member.user_id === null) return;
  await store.endRole(trx, member.id, at);
  await store.leaveCurrentFund(trx, member.fund_id, member.user_id);
  await withdrawRequestsOf(deps, trx, member.fund_id, member.user_id, at);
  // What they made for the fund stops with them: the webhook endpoints that hear its events, in both books.
  // (Their keys and app connections are theirs: they act on the fund they choose, and now never this one.)
  const holder = await store.holderOf(trx, member.fund_id);
  if (holder !== undefined) {
    const twins = async (id: number) => [id, ...[await store.twinOf(trx, id)].filter((t) => t !== undefined)];
    await endEndpointsOfMember(trx, await twins(holder), await twins(member.user_id), at);
  }
  await mirrorMember(trx, { ...member, status: 'removed' }, at, ensureTwin(deps));
  await mirrorCurrentFund(trx, member.user_id, ensureTwin(deps));
}

/** The funds a person may act on, the current one marked. */
export async function fundsOf(deps: Deps, caller: Caller) {
  const funds = await store.fundsOfPerson(deps.db, caller.actor_id);
  return funds.map((f) => ({ id: f.fund_id, name: f.fund_name, holder: { id: f.holder_id, name: f.holder_name }, role: f.role, current: f.fund_id === caller.fund_id }));
}

/** A person chooses the fund they act on: one they are a member of, in their book. Throws fund_not_found. */
export async function chooseFund(deps: Deps, caller: Caller, fundId: number): Promise<void> {
  authorize(caller, 'own_account');
  await deps.db.transaction().execute(async (trx) => {
    const member = await store.activeMember(trx, fundId, caller.actor_id);
    if (member === undefined || member.book !== caller.book) throw notFound('fund_not_found', `you are not a member of fund ${fundId}`);
    await store.setCurrentFund(trx, caller.actor_id, fundId);
    if (caller.book === 'live') await mirrorCurrentFund(trx, caller.actor_id, ensureTwin(deps));
    await bumpAuthEpoch(trx);
  });
}

/** The caller's fund's latest movements with the member who made each (the fund page). */
export async function fundActivity(deps: Deps, caller: Caller) {
  authorize(caller, 'read');
  return store.recentActivity(deps.db, caller.fund_id, 20);
}
