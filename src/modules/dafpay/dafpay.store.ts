// Every SQL statement of giving at a checkout (rules §24): who is giving, and a grant as its
// provider may read it.
import type { Db } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';

/** The person a checkout's token acts for: their id, name and sign-in address. */
export async function donorById(db: Db, userId: number) {
  return db.selectFrom('users as u').leftJoin('accounts as a', 'a.user_id', 'u.id').select(['u.id', 'u.name', 'a.email']).where('u.id', '=', userId).executeTakeFirst();
}

export interface GrantRow {
  id: number;
  fund_id: number;
  amount_cents: number;
  status: string;
  tracking_id: string | null;
  share: string;
  designation: string | null;
  created_at: string;
  completed_at: string | null;
  voided_at: string | null;
  ein: string;
  non_profit_name: string;
  client_id: string | null;
}

/**
 * A donation of `book` from a fund `personId` is an active member of, with the organisation it
 * goes to and the app whose token made it (client_id, null when a person's key or session did).
 */
export async function grantOfMember(db: Db, book: Book, personId: number, donationId: number): Promise<GrantRow | undefined> {
  return (await db
    .selectFrom('donations as d')
    .innerJoin('fund_members as m', (j) => j.onRef('m.fund_id', '=', 'd.fund_id').on('m.user_id', '=', personId).on('m.status', '=', 'active'))
    .innerJoin('non_profits as n', 'n.id', 'd.non_profit_id')
    .leftJoin('app_connections as c', 'c.id', 'd.app_connection_id')
    .leftJoin('apps as a', 'a.id', 'c.app_id')
    .select([
      'd.id',
      'd.fund_id',
      'd.amount_cents',
      'd.status',
      'd.tracking_id',
      'd.share',
      'd.designation',
      'd.created_at',
      'd.completed_at',
      'd.voided_at',
      'n.ein',
      'n.name as non_profit_name',
      'a.client_id',
    ])
    .where('d.id', '=', donationId)
    .where('d.book', '=', book)
    .executeTakeFirst()) as GrantRow | undefined;
}
