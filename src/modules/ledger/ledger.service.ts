// The ledger's one use case outside a money movement: a new database gets
// the outside accounts of both books (each movement itself is written by
// the module that causes it, through ledger.store.ts, in its transaction).
import type { Db } from '../../db/database.ts';
import { BOOKS } from '../../shared/book.ts';
import { OUTSIDE_ACCOUNT_KINDS } from './ledger.ts';
import { outsideAccount } from './ledger.store.ts';

/** Makes sure each book has its own outside accounts (sandbox and live never meet): every start runs it, any number of nodes at once. */
export async function openBooks(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const book of BOOKS) for (const kind of OUTSIDE_ACCOUNT_KINDS) await outsideAccount(trx, kind, book);
  });
}
