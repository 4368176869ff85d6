// Every SQL statement about matches as their matchers and fundraisers see them (rules §22); what
// donations do with them is donations.matches.store.ts.
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { MatchesTable } from '../../db/schema.ts';
import type { Book } from '../../shared/book.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';

export type Match = Selectable<MatchesTable>;

export async function insertMatch(trx: Trx, row: Insertable<MatchesTable>): Promise<number> {
  const { id } = await trx.insertInto('matches').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

/** A match of `book`, or undefined. */
export async function findMatch(db: Db | Trx, book: Book, id: number): Promise<Match | undefined> {
  return db.selectFrom('matches').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** A page of a user's matches, newest first, with their count. */
export async function ownMatches(db: Db, userId: number, page: PageRequest): Promise<{ rows: Match[]; count: number }> {
  const mine = db.selectFrom('matches').where('user_id', '=', userId);
  const [counted, rows] = await Promise.all([
    mine.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
    mine.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return { rows, count: Number(counted.n) };
}

/** Every match of a fundraiser, oldest first. */
export async function matchesOfFundraiser(db: Db | Trx, fundraiserId: number): Promise<Match[]> {
  return db.selectFrom('matches').selectAll().where('fundraiser_id', '=', fundraiserId).orderBy('id').execute();
}

/** The matches of each of these fundraisers, oldest first: one statement for a page of them. */
export async function matchesOfFundraisers(db: Db | Trx, fundraiserIds: readonly number[]): Promise<Map<number, Match[]>> {
  if (fundraiserIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('matches')
    .selectAll()
    .where('fundraiser_id', 'in', [...fundraiserIds])
    .orderBy('id')
    .execute();
  return Map.groupBy(rows, (m) => Number(m.fundraiser_id));
}

/**
 * What `almoner check` compares for each match (rules §22): the net of its entries on held money
 * (exact, as text), what its donations for matched ones sum to, and each of its donations that
 * matches no donation of its fundraiser or is not of its fund and fundraiser.
 */
export async function matchBooks(db: Db) {
  const nets = await sql<{ id: number; net: string }>`select m.id, cast(coalesce(sum(p.amount_cents), 0) as text) as net from matches m
    left join journal_entries j on j.match_id = m.id
    left join postings p on p.entry_id = j.id and p.account_id in (select id from ledger_accounts where kind = 'reserved')
    group by m.id`.execute(db);
  const given = await sql<{ match_id: number; cents: string }>`select match_id, cast(sum(amount_cents) as text) as cents from donations
    where match_id is not null and matched_donation_id is not null group by match_id`.execute(db);
  const strays = await sql<{ id: number; match_id: number }>`select d.id, d.match_id from donations d join matches m on m.id = d.match_id
    left join donations x on x.id = d.matched_donation_id
    where d.fund_id <> m.fund_id or d.fundraiser_id is null or d.fundraiser_id <> m.fundraiser_id
      or (d.matched_donation_id is not null and (x.id is null or x.fundraiser_id is null or x.fundraiser_id <> m.fundraiser_id))
      or (d.matched_donation_id is null and (m.ended_at is null or m.give_rest = 0))`.execute(db);
  return {
    nets: new Map(nets.rows.map((r) => [Number(r.id), BigInt(r.net)])),
    given: new Map(given.rows.map((r) => [Number(r.match_id), BigInt(r.cents)])),
    strays: strays.rows.map((r) => ({ donation_id: Number(r.id), match_id: Number(r.match_id) })),
  };
}

/** Every match, as the check reads them. */
export async function everyMatch(db: Db): Promise<Match[]> {
  return db.selectFrom('matches').selectAll().orderBy('id').execute();
}
