// The statements of `almoner check` about the accounts outside every fund.
import type { Db } from '../../db/database.ts';

/**
 * Each kind of account outside every fund that a book holds more than one of (deposits, grants
 * paid, fees, a portfolio's market): a movement could post to either, and nothing but the lock
 * they are made under keeps them one (nodes that started at once before it could make twins).
 */
export async function outsideAccountTwins(db: Db): Promise<Array<{ book: string; kind: string; accounts: number }>> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select((eb) => ['book', 'kind', eb.fn.countAll<number | string>().as('accounts')])
    .where('fund_id', 'is', null)
    .groupBy(['book', 'kind'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('book')
    .orderBy('kind')
    .execute();
  return rows.map((r) => ({ book: r.book, kind: r.kind, accounts: Number(r.accounts) }));
}
