// The sandbox follows the live fund's membership (rules §20): a member's twin
// is a member of the holder's twin's fund with the same role, and acts on it
// when the member acts on the live fund. Twins are made on first use
// (users.sandboxUserFor), so the mirror runs both when a live membership
// changes and when a twin is made; `ensureTwin` makes a holder's twin.
import type { Trx } from '../../db/database.ts';
import type { Member } from './members.store.ts';
import * as store from './members.store.ts';
import { addMember } from './members.acting.ts';

export type EnsureTwin = (trx: Trx, liveUserId: number) => Promise<number>;

/** Mirrors one live membership (active, with its role, or ended) to the twins, if the member has one. */
export async function mirrorMember(trx: Trx, live: Member, at: string, ensureTwin: EnsureTwin): Promise<void> {
  if (live.book !== 'live' || live.user_id === null) return;
  const twin = await store.twinOf(trx, live.user_id);
  if (twin === undefined) return;
  const holder = await store.holderOf(trx, live.fund_id);
  if (holder === undefined || holder === live.user_id) return;
  const holderTwin = await ensureTwin(trx, holder);
  const fund = await store.ownFundOf(trx, holderTwin);
  if (fund === undefined) return;
  const mirrored = await store.activeMember(trx, fund.id, twin);
  if (live.status !== 'active') {
    if (mirrored !== undefined) {
      await store.endMember(trx, mirrored.id, at, 'mirror');
      await store.endRole(trx, mirrored.id, at);
      await store.leaveCurrentFund(trx, fund.id, twin);
    }
    return;
  }
  if (mirrored !== undefined && mirrored.role === live.role) return;
  if (mirrored !== undefined) {
    await store.endRole(trx, mirrored.id, at);
    await store.changeRole(trx, mirrored.id, live.role);
    await store.startRole(trx, { member_id: mirrored.id, fund_id: fund.id, user_id: twin, role: live.role, since: at });
    return;
  }
  await addMember(trx, { fund_id: fund.id, book: fund.book, user_id: twin, role: live.role, at });
}

/** The live person's choice of fund, followed by their twin (if both twins are there). */
export async function mirrorCurrentFund(trx: Trx, liveUserId: number, ensureTwin: EnsureTwin): Promise<void> {
  const twin = await store.twinOf(trx, liveUserId);
  const current = await store.currentFundOf(trx, liveUserId);
  if (twin === undefined || current === undefined || current === null) return;
  const holder = await store.holderOf(trx, current);
  if (holder === undefined) return;
  const fund = await store.ownFundOf(trx, holder === liveUserId ? twin : await ensureTwin(trx, holder));
  if (fund !== undefined && (await store.activeMember(trx, fund.id, twin)) !== undefined) await store.setCurrentFund(trx, twin, fund.id);
}

/** A twin was just made for `liveUserId`: it follows every live membership around them, and their choice of fund. */
export async function mirrorNewTwin(trx: Trx, liveUserId: number, at: string, ensureTwin: EnsureTwin): Promise<void> {
  const own = await store.ownFundOf(trx, liveUserId);
  if (own === undefined) return;
  for (const member of await store.membershipsAround(trx, liveUserId, own.id)) await mirrorMember(trx, member, at, ensureTwin);
  await mirrorCurrentFund(trx, liveUserId, ensureTwin);
}
