// Every SQL statement about a fund's members, the roles they held, the fund
// each person acts on (rules §20).
import type { Db, Trx } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { dialectOf } from '../../db/dialect.ts';
import type { Book } from '../../shared/book.ts';
import type { Role } from './members.ts';

/** The fund a person acts on, their role in it, and its holder (whose status stops it too). */
export interface Acting {
  fund_id: number;
  holder_id: number;
  role: Role;
  holder_status: string;
  holder_owner_status: string | null;
}

const actingQuery = prepared<Database, Acting, { user_id: number }>((db, p) =>
  db
    .selectFrom('users as u')
    .innerJoin('fund_members as m', (j) => j.onRef('m.user_id', '=', 'u.id').onRef('m.fund_id', '=', 'u.current_fund_id').on('m.status', '=', 'active'))
    .innerJoin('funds as f', 'f.id', 'm.fund_id')
    .innerJoin('users as h', 'h.id', 'f.user_id')
    .leftJoin('users as ho', 'ho.id', 'h.sandbox_of')
    .select(['f.id as fund_id', 'f.user_id as holder_id', 'm.role', 'h.status as holder_status', 'ho.status as holder_owner_status'])
    .$narrowType<{ role: Role }>()
    .where('u.id', '=', p('user_id')),
);

/** What `userId` acts on: their current fund, if they are still its member. */
export async function acting(db: Db | Trx, userId: number): Promise<Acting | undefined> {
  return (await actingQuery(db, { user_id: userId }))[0];
}

/**
 * What `userId` would act as on `fundId`, whatever fund they act on now (a checkout's grant names
 * its fund, rules §24): their active membership in that fund of `book`, its holder's statuses and
 * their own.
 */
export async function actingOnFund(
  db: Db | Trx,
  userId: number,
  fundId: number,
  book: Book,
): Promise<(Acting & { own_status: string; own_owner_status: string | null }) | undefined> {
  return (await db
    .selectFrom('fund_members as m')
    .innerJoin('funds as f', 'f.id', 'm.fund_id')
    .innerJoin('users as h', 'h.id', 'f.user_id')
    .leftJoin('users as ho', 'ho.id', 'h.sandbox_of')
    .innerJoin('users as p', 'p.id', 'm.user_id')
    .leftJoin('users as po', 'po.id', 'p.sandbox_of')
    .select([
      'f.id as fund_id',
      'f.user_id as holder_id',
      'm.role',
      'h.status as holder_status',
      'ho.status as holder_owner_status',
      'p.status as own_status',
      'po.status as own_owner_status',
    ])
    .where('m.user_id', '=', userId)
    .where('m.fund_id', '=', fundId)
    .where('m.book', '=', book)
    .where('m.status', '=', 'active')
    .executeTakeFirst()) as (Acting & { own_status: string; own_owner_status: string | null }) | undefined;
}

export async function setCurrentFund(db: Db | Trx, userId: number, fundId: number): Promise<void> {
  await db.updateTable('users').set({ current_fund_id: fundId }).where('id', '=', userId).execute();
}

/** `userId`, if acting on `fundId`, goes back to their own fund (their membership ended). */
export async function leaveCurrentFund(trx: Trx, fundId: number, userId: number): Promise<void> {
  const own = await ownFundOf(trx, userId);
  if (own !== undefined) await trx.updateTable('users').set({ current_fund_id: own.id }).where('id', '=', userId).where('current_fund_id', '=', fundId).execute();
}

export interface Member {
  id: number;
  fund_id: number;
  book: Book;
  user_id: number | null;
  email: string | null;
  role: Role;
  status: 'invited' | 'active' | 'removed';
  invited_by: number | null;
  token_expires_at: string | null;
  created_at: string;
  joined_at: string | null;
  ended_at: string | null;
}

const MEMBER = ['id', 'fund_id', 'book', 'user_id', 'email', 'role', 'status', 'invited_by', 'token_expires_at', 'created_at', 'joined_at', 'ended_at'] as const;

export type NewMember = Omit<Member, 'id' | 'ended_at'> & { token_hash: string | null };

export async function insertMember(trx: Trx, member: NewMember): Promise<number> {
  const row = await trx.insertInto('fund_members').values(member).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** A member's role begins (their joining, or a change of role). */
export async function startRole(trx: Trx, m: { member_id: number; fund_id: number; user_id: number; role: Role; since: string }): Promise<void> {
  await trx.insertInto('member_roles').values(m).execute();
}

/** A member's role ends (a change of role, or the membership's end). */
export async function endRole(trx: Trx, memberId: number, until: string): Promise<void> {
  await trx.updateTable('member_roles').set({ until }).where('member_id', '=', memberId).where('until', 'is', null).execute();
}

/** A member row locked for its change (PostgreSQL; SQLite's write transaction is one at a time). */
export async function lockMember(trx: Trx, memberId: number, forUpdate: boolean): Promise<Member | undefined> {
  const query = trx.selectFrom('fund_members').select(MEMBER).where('id', '=', memberId);
  return (await (forUpdate ? dialectOf(trx).lockRows(query) : query).executeTakeFirst()) as Member | undefined;
}

/** The active membership of a person in a fund. */
export async function activeMember(db: Db | Trx, fundId: number, userId: number): Promise<Member | undefined> {
  return (await db.selectFrom('fund_members').select(MEMBER).where('fund_id', '=', fundId).where('user_id', '=', userId).where('status', '=', 'active').executeTakeFirst()) as
    Member | undefined;
}

/** The waiting invitation of an address to a fund. */
export async function waitingInvitation(db: Db | Trx, fundId: number, email: string): Promise<Member | undefined> {
  return (await db.selectFrom('fund_members').select(MEMBER).where('fund_id', '=', fundId).where('email', '=', email).where('status', '=', 'invited').executeTakeFirst()) as
    Member | undefined;
}

export async function invitationByToken(db: Db | Trx, tokenHash: string): Promise<Member | undefined> {
  return (await db.selectFrom('fund_members').select(MEMBER).where('token_hash', '=', tokenHash).where('status', '=', 'invited').executeTakeFirst()) as Member | undefined;
}

/** The members and waiting invitations of a fund, with each member's name and slug, oldest first. */
export async function membersOfFund(db: Db | Trx, fundId: number) {
  return db
    .selectFrom('fund_members as m')
    .leftJoin('users as u', 'u.id', 'm.user_id')
    .select([...MEMBER.map((c) => `m.${c}` as const), 'u.name', 'u.slug', 'u.avatar_url'])
    .where('m.fund_id', '=', fundId)
    .where('m.status', 'in', ['invited', 'active'])
    .orderBy('m.id')
    .execute() as Promise<Array<Member & { name: string | null; slug: string | null; avatar_url: string | null }>>;
}

/** The funds a person is an active member of, with their holders' names, their own first. */
export async function fundsOfPerson(db: Db | Trx, userId: number) {
  return (
    db
      .selectFrom('fund_members as m')
      .innerJoin('funds as f', 'f.id', 'm.fund_id')
      .innerJoin('users as h', 'h.id', 'f.user_id')
      .select(['f.id as fund_id', 'f.name as fund_name', 'f.user_id as holder_id', 'h.name as holder_name', 'm.role', 'm.id as member_id'])
      .where('m.user_id', '=', userId)
      .where('m.status', '=', 'active')
      // Their own fund's membership was made with them: it comes first.
      .orderBy('m.id')
      .execute() as Promise<Array<{ fund_id: number; fund_name: string; holder_id: number; holder_name: string; role: Role; member_id: number }>>
  );
}

/** How many members and waiting invitations a fund has, and how many active organizers. */
export async function memberCounts(db: Db | Trx, fundId: number): Promise<{ total: number; organizers: number }> {
  const rows = await db.selectFrom('fund_members').select(['role', 'status']).where('fund_id', '=', fundId).where('status', 'in', ['invited', 'active']).execute();
  return { total: rows.length, organizers: rows.filter((r) => r.status === 'active' && r.role === 'organizer').length };
}

export async function activate(trx: Trx, memberId: number, userId: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('fund_members')
    .set({ user_id: userId, status: 'active', joined_at: at, token_hash: null })
    .where('id', '=', memberId)
    .where('status', '=', 'invited')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function changeRole(trx: Trx, memberId: number, role: Role): Promise<void> {
  await trx.updateTable('fund_members').set({ role }).where('id', '=', memberId).execute();
}

/** Ends a membership or withdraws an invitation, unless it ended already (false). */
export async function endMember(trx: Trx, memberId: number, at: string, by: string): Promise<boolean> {
  const result = await trx
    .updateTable('fund_members')
    .set({ status: 'removed', ended_at: at, ended_by: by, token_hash: null })
    .where('id', '=', memberId)
    .where('status', 'in', ['invited', 'active'])
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The role periods of a fund's members, for the check: who held what when. */
export async function rolePeriods(db: Db) {
  return db.selectFrom('member_roles').select(['fund_id', 'user_id', 'role', 'since', 'until']).orderBy('fund_id').orderBy('user_id').orderBy('since').execute();
}

/** Users whose current fund is not one they are an active member of (the check: there are none but the forgotten and the dead). */
export async function actingOutsideMembership(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('users as u')
    .leftJoin('fund_members as m', (j) => j.onRef('m.user_id', '=', 'u.id').onRef('m.fund_id', '=', 'u.current_fund_id').on('m.status', '=', 'active'))
    .select('u.id')
    .where('m.id', 'is', null)
    .where('u.status', '!=', 'deleted')
    // Made by a release before shared funds: they act on their own fund (members.actingOf).
    .where('u.current_fund_id', 'is not', null)
    // The dead act on nothing: their membership ended with the plan's run.
    .where((eb) => eb.not(eb.exists(eb.selectFrom('death_records as r').select('r.id').whereRef('r.user_id', '=', 'u.id').where('r.status', '=', 'approved'))))
    .execute();
  return rows.map((r) => r.id);
}

/** A user's sandbox twin, if they have one; and the own fund of a user. */
export async function twinOf(db: Db | Trx, userId: number): Promise<number | undefined> {
  return (await db.selectFrom('users').select('id').where('sandbox_of', '=', userId).executeTakeFirst())?.id;
}

export async function ownFundOf(db: Db | Trx, userId: number): Promise<{ id: number; book: Book } | undefined> {
  return db.selectFrom('funds').select(['id', 'book']).where('user_id', '=', userId).orderBy('id').limit(1).executeTakeFirst();
}

/** The live memberships that involve a user: theirs in others' funds, and others' in theirs. */
export async function membershipsAround(db: Db | Trx, userId: number, fundId: number): Promise<Member[]> {
  return (await db
    .selectFrom('fund_members')
    .select(MEMBER)
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb.and([eb('user_id', '=', userId), eb('fund_id', '!=', fundId)]), eb.and([eb('fund_id', '=', fundId), eb('user_id', '!=', userId)])]))
    .orderBy('id')
    .execute()) as Member[];
}

/** The holder of a fund. */
export async function holderOf(db: Db | Trx, fundId: number): Promise<number | undefined> {
  return (await db.selectFrom('funds').select('user_id').where('id', '=', fundId).executeTakeFirst())?.user_id;
}

/** The current fund a person chose. */
export async function currentFundOf(db: Db | Trx, userId: number): Promise<number | null | undefined> {
  return (await db.selectFrom('users').select('current_fund_id').where('id', '=', userId).executeTakeFirst())?.current_fund_id;
}

/** The sign-in addresses of a fund's active members of these roles (who is told of a request). */
export async function memberEmails(db: Db | Trx, fundId: number, roles: readonly Role[]): Promise<Array<{ user_id: number; email: string; name: string }>> {
  return db
    .selectFrom('fund_members as m')
    .innerJoin('accounts as a', 'a.user_id', 'm.user_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['a.user_id', 'a.email', 'u.name'])
    .where('m.fund_id', '=', fundId)
    .where('m.status', '=', 'active')
    .where('m.role', 'in', roles)
    .orderBy('a.user_id')
    .execute();
}

/** The account (and its user's status) that signs in with an address, if any. */
export async function accountByEmail(db: Db | Trx, email: string): Promise<{ user_id: number; status: string } | undefined> {
  return db.selectFrom('accounts as a').innerJoin('users as u', 'u.id', 'a.user_id').select(['a.user_id', 'u.status']).where('a.email', '=', email).executeTakeFirst();
}

/** The account that proved it signs in with `email` (an unconfirmed one is no one's yet: rules §15). */
export async function confirmedAccountByEmail(db: Db | Trx, email: string): Promise<{ user_id: number; status: string } | undefined> {
  return db
    .selectFrom('accounts as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.user_id', 'u.status'])
    .where('a.email', '=', email)
    .where('a.email_confirmed_at', 'is not', null)
    .executeTakeFirst();
}

export async function emailOfUser(db: Db | Trx, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('email').where('user_id', '=', userId).executeTakeFirst())?.email;
}

/** A fund's name and a member's name, as an invitation names them. */
export async function fundNames(db: Db | Trx, fundId: number, inviterId: number): Promise<{ fund: string; inviter: string }> {
  const fund = await db.selectFrom('funds').select('name').where('id', '=', fundId).executeTakeFirst();
  const inviter = await db.selectFrom('users').select('name').where('id', '=', inviterId).executeTakeFirst();
  return { fund: fund?.name ?? 'a fund', inviter: inviter?.name ?? 'A member' };
}

// What `almoner check` reads of who moved money (members.check.ts), a page at a time by id.

/** A movement a member made: its object, fund, member and time. */
export interface Movement {
  id: number;
  fund_id: number;
  actor_id: number | null;
  at: string;
}

/**
 * Donations that held money at a member's word: their maker's, or for an approved request its
 * decider's, at that time. Donations of a recurring schedule and of a gift's claim are the
 * schedule's and the gift's (checked with those).
 */
export async function donationMovements(db: Db, afterId: number, limit: number): Promise<Movement[]> {
  const rows = await db
    .selectFrom('donations as d')
    .select(['d.id', 'd.fund_id', 'd.user_id', 'd.actor_id', 'd.decided_by', 'd.decided_at', 'd.created_at'])
    .where('d.id', '>', afterId)
    .where('d.scheduled_donation_id', 'is', null)
    .where((eb) => eb.exists(eb.selectFrom('journal_entries as j').select('j.id').whereRef('j.donation_id', '=', 'd.id')))
    .where((eb) => eb.not(eb.exists(eb.selectFrom('gifts as g').select('g.id').whereRef('g.donation_id', '=', 'd.id'))))
    .orderBy('d.id')
    .limit(limit)
    .execute();
  // A release before shared funds (migration 033) wrote no member: the fund's holder, the only one who could act, did it.
  return rows.map((r) => ({ id: r.id, fund_id: r.fund_id, actor_id: r.decided_by ?? r.actor_id ?? r.user_id, at: r.decided_at ?? r.created_at }));
}

/** Gifts (each held money when sent), recurring schedules, exchanges and declared contributions. */
export async function otherMovements(db: Db, kind: 'gifts' | 'scheduled_donations' | 'exchanges' | 'contributions', afterId: number, limit: number): Promise<Movement[]> {
  return db
    .selectFrom(kind)
    .select(['id', 'fund_id', 'actor_id', 'created_at as at'])
    .where('id', '>', afterId)
    .where('actor_id', 'is not', null)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Funds without an active organizer whose holder's death was not approved (the check: none). */
export async function fundsWithoutOrganizer(db: Db): Promise<number[]> {
  const rows = await db
    .selectFrom('funds as f')
    .select('f.id')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('fund_members as m').select('m.id').whereRef('m.fund_id', '=', 'f.id').where('m.status', '=', 'active').where('m.role', '=', 'organizer'))),
    )
    .where((eb) => eb.not(eb.exists(eb.selectFrom('death_records as r').select('r.id').whereRef('r.fund_id', '=', 'f.id').where('r.status', '=', 'approved'))))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('users as u')
            .select('u.id')
            .whereRef('u.id', '=', 'f.user_id')
            .where((w) => w.or([w('u.status', '=', 'deleted'), w('u.current_fund_id', 'is', null)])),
        ),
      ),
    )
    .orderBy('f.id')
    .execute();
  return rows.map((r) => r.id);
}

/** A fund's latest donations, gifts, contributions and exchanges with the member who made each (the fund's activity), newest first. */
export async function recentActivity(db: Db, fundId: number, limit: number) {
  const [donations, gifts, contributions, exchanges] = await Promise.all([
    db
      .selectFrom('donations as d')
      .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
      .leftJoin('users as a', 'a.id', 'd.actor_id')
      .leftJoin('users as b', 'b.id', 'd.decided_by')
      .select(['d.id', 'd.created_at as at', 'd.amount_cents', 'd.status', 'n.name as what', 'a.name as by', 'b.name as decided_by'])
      .where('d.fund_id', '=', fundId)
      .orderBy('d.id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('gifts as g')
      .leftJoin('users as a', 'a.id', 'g.actor_id')
      .select(['g.id', 'g.created_at as at', 'g.amount_cents', 'g.status', 'g.name as what', 'a.name as by'])
      .where('g.fund_id', '=', fundId)
      .orderBy('g.id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('contributions as c')
      .leftJoin('users as a', 'a.id', 'c.actor_id')
      .select(['c.id', 'c.created_at as at', 'c.amount_cents', 'c.status', 'c.type as what', 'a.name as by'])
      .where('c.fund_id', '=', fundId)
      .orderBy('c.id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('exchanges as x')
      .leftJoin('users as a', 'a.id', 'x.actor_id')
      .select(['x.id', 'x.created_at as at', 'x.status', 'a.name as by'])
      .where('x.fund_id', '=', fundId)
      .orderBy('x.id', 'desc')
      .limit(limit)
      .execute(),
  ]);
  return [
    ...donations.map((r) => ({ kind: 'donation' as const, ...r })),
    ...gifts.map((r) => ({ kind: 'gift' as const, ...r, decided_by: null })),
    ...contributions.map((r) => ({ kind: 'contribution' as const, ...r, decided_by: null })),
    ...exchanges.map((r) => ({ kind: 'exchange' as const, ...r, amount_cents: 0, what: 'a change of portfolio', decided_by: null })),
  ]
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.id - a.id))
    .slice(0, limit);
}
