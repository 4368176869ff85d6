// Every SQL statement about fundraisers (rules §22).
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { FundraisersTable } from '../../db/schema.ts';
import { newestOfUser } from '../../db/pages.ts';
import type { Book } from '../../shared/book.ts';
import type { PageRequest } from '../../shared/page.ts';

export type Fundraiser = Selectable<FundraisersTable>;

/** Inserts a fundraiser; returns its id. */
export async function insertFundraiser(trx: Trx, row: Insertable<FundraisersTable>): Promise<number> {
  const { id } = await trx.insertInto('fundraisers').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(id);
}

/** A fundraiser of `book` (rules §14: the other book's are not found). */
export async function findFundraiser(db: Db | Trx, book: Book, id: number): Promise<Fundraiser | undefined> {
  return db.selectFrom('fundraisers').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** A page of a user's fundraisers, newest first, with their count. */
export function ownFundraisers(db: Db, userId: number, page: PageRequest): Promise<{ rows: Fundraiser[]; count: number }> {
  return newestOfUser(db, 'fundraisers', userId, page);
}

/** The id of the user's fundraiser with this external id, if any. */
export async function fundraiserByExternalId(db: Db, userId: number, externalId: string): Promise<number | undefined> {
  const row = await db.selectFrom('fundraisers').select('id').where('user_id', '=', userId).where('external_id', '=', externalId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** Ends a fundraiser that has not been ended; whether it was (false: it was already). */
export async function endFundraiser(trx: Trx, id: number, at: string): Promise<boolean> {
  const done = await trx.updateTable('fundraisers').set({ ended_at: at, updated_at: at }).where('id', '=', id).where('ended_at', 'is', null).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/**
 * Each fundraiser with what the journal says its donations hold or paid (the net of their postings
 * on reserved and grants paid, exact as text), and each donation that names a fundraiser of
 * another book or organisation: what `almoner check` compares (rules §22).
 */
export async function fundraiserJournal(db: Db): Promise<{ journal: Map<number, bigint>; strays: Array<{ donation_id: number; fundraiser_id: number }> }> {
  const found = await sql<{ id: number; net: string }>`select f.id, cast(coalesce(sum(p.amount_cents), 0) as text) as net from fundraisers f
    left join donations d on d.fundraiser_id = f.id left join journal_entries j on j.donation_id = d.id
    left join postings p on p.entry_id = j.id and p.account_id in (select id from ledger_accounts where kind in ('reserved', 'grants_paid'))
    group by f.id`.execute(db);
  const strays = await sql<{ id: number; fundraiser_id: number }>`select d.id, d.fundraiser_id from donations d join fundraisers f on f.id = d.fundraiser_id
    where f.book <> d.book or f.non_profit_id <> d.non_profit_id`.execute(db);
  return {
    journal: new Map(found.rows.map((r) => [Number(r.id), BigInt(r.net)])),
    strays: strays.rows.map((r) => ({ donation_id: Number(r.id), fundraiser_id: Number(r.fundraiser_id) })),
  };
}

export async function setFundraiserMetadata(trx: Trx, id: number, metadata: string | null, at: string): Promise<void> {
  await trx.updateTable('fundraisers').set({ metadata, updated_at: at }).where('id', '=', id).execute();
}

/** The EIN of a fundraiser's organisation. */
export async function einOf(db: Db | Trx, nonProfitId: number): Promise<string | undefined> {
  return (await db.selectFrom('non_profits').select('ein').where('id', '=', nonProfitId).executeTakeFirst())?.ein;
}
