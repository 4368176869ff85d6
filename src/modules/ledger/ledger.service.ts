// The ledger's one use case outside a money movement: a new database gets
// the outside accounts of both books (each movement itself is written by
// the module that causes it, through ledger.store.ts, in its transaction).
import type { Db } from '../../db/database.ts';
import { ensureOutsideAccounts } from './ledger.store.ts';

/** Makes sure each book has its outside accounts (idempotent; every start runs it). */
export function openBooks(db: Db): Promise<void> {
  return ensureOutsideAccounts(db);
}
