// The one place a person becomes a caller (rules §20): the fund they act on,
// its holder, and their role in it; a sandbox twin's twins follow the live
// fund's membership (members.service mirrors it).
import type { Db, Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { callerStatus, type Caller } from '../../shared/caller.ts';
import * as store from './members.store.ts';
import type { Role } from './members.ts';

/** A person as the key, token or session names them. */
export interface Person {
  user_id: number;
  /** Their own status, and (a sandbox twin) their live owner's. */
  own_status: string;
  owner_status: string | null;
}

export type Acting = Pick<Caller, 'user_id' | 'fund_id' | 'actor_id' | 'role' | 'user_status'>;

/** What `person` acts as: undefined if they act on no fund (a state the check finds, never reached). */
export async function actingOf(db: Db | Trx, person: Person): Promise<Acting | undefined> {
  const row = await store.acting(db, person.user_id);
  if (row === undefined) {
    // A user a release before shared funds made (during a rolling upgrade) has no membership yet: they act
    // on their own fund as its organizer, as they did then.
    const own = (await store.currentFundOf(db, person.user_id)) === null ? await store.ownFundOf(db, person.user_id) : undefined;
    if (own === undefined) return undefined;
    return { user_id: person.user_id, fund_id: own.id, actor_id: person.user_id, role: 'organizer', user_status: callerStatus([person.own_status, person.owner_status]) };
  }
  return {
    user_id: row.holder_id,
    fund_id: row.fund_id,
    actor_id: person.user_id,
    role: row.role,
    user_status: callerStatus([person.own_status, person.owner_status, row.holder_status, row.holder_owner_status]),
  };
}

/**
 * `caller` acting on `fundId` instead of the fund they act on now, with their role there: a
 * checkout's grant names the fund it comes from (rules §24). Undefined when they are no active
 * member of it in their book.
 */
export async function actingOnFund(db: Db | Trx, caller: Caller, fundId: number): Promise<Caller | undefined> {
  const row = await store.actingOnFund(db, caller.actor_id, fundId, caller.book);
  if (row === undefined) return undefined;
  return {
    ...caller,
    user_id: row.holder_id,
    fund_id: row.fund_id,
    role: row.role,
    user_status: callerStatus([row.own_status, row.own_owner_status, row.holder_status, row.holder_owner_status]),
  };
}

/** A person joins a fund at once (no invitation: its creator, a sandbox twin, a successor): active, their role begun. */
export async function addMember(trx: Trx, m: { fund_id: number; book: Book; user_id: number; role: Role; at: string }): Promise<number> {
  const memberId = await store.insertMember(trx, {
    fund_id: m.fund_id,
    book: m.book,
    user_id: m.user_id,
    email: null,
    role: m.role,
    status: 'active',
    token_hash: null,
    token_expires_at: null,
    invited_by: null,
    created_at: m.at,
    joined_at: m.at,
  });
  await store.startRole(trx, { member_id: memberId, fund_id: m.fund_id, user_id: m.user_id, role: m.role, since: m.at });
  return memberId;
}

/** A new fund's holder is its first organizer and acts on it (every user is made with their fund). */
export async function startFund(trx: Trx, fund: { fund_id: number; user_id: number; book: Book; at: string }): Promise<void> {
  await addMember(trx, { fund_id: fund.fund_id, book: fund.book, user_id: fund.user_id, role: 'organizer', at: fund.at });
  await store.setCurrentFund(trx, fund.user_id, fund.fund_id);
}
