// SQL of organisations' bank details for ACH (rules §17): in force after the cooling-off,
// replaced by newer ones, suspended by a return, waiting for a second operator.
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { PayeeAccountsTable } from '../../db/schema.payments.ts';

export type PayeeAccountRow = Selectable<PayeeAccountsTable>;

/** The bank details in force on `day` (past their cooling-off) of each of these organisations that has some, by organisation. */
export async function usablePayeeAccounts(db: Db | Trx, nonProfitIds: readonly number[], day: string): Promise<Map<number, PayeeAccountRow>> {
  const found = new Map<number, PayeeAccountRow>();
  for (let i = 0; i < nonProfitIds.length; i += 500) {
    const rows = await db
      .selectFrom('payee_accounts')
      .selectAll()
      .where('non_profit_id', 'in', nonProfitIds.slice(i, i + 500))
      .where('status', '=', 'active')
      .where('usable_from', '<=', day)
      .execute();
    for (const r of rows) found.set(Number(r.non_profit_id), r);
  }
  return found;
}

export async function activePayeeAccount(db: Db | Trx, nonProfitId: number): Promise<PayeeAccountRow | undefined> {
  return await db.selectFrom('payee_accounts').selectAll().where('non_profit_id', '=', nonProfitId).where('status', '=', 'active').executeTakeFirst();
}

/** Stops bank details from being used (a return said the account cannot take credits); false if they were not active. */
export async function suspendPayeeAccount(trx: Trx, id: number): Promise<boolean> {
  const done = await trx.updateTable('payee_accounts').set({ status: 'suspended' }).where('id', '=', id).where('status', '=', 'active').returning('id').executeTakeFirst();
  return done !== undefined;
}

/**
 * New bank details for the organisation. Active ones replace any it had (active, suspended or
 * waiting); `pending` ones (an operator's, awaiting a second operator) replace only others waiting.
 */
export async function replacePayeeAccount(trx: Trx, row: Omit<PayeeAccountRow, 'id' | 'status' | 'approved_by'>, status: 'active' | 'pending' = 'active'): Promise<number> {
  const replaced = status === 'active' ? ['active', 'suspended', 'pending'] : ['pending'];
  await trx.updateTable('payee_accounts').set({ status: 'replaced' }).where('non_profit_id', '=', row.non_profit_id).where('status', 'in', replaced).execute();
  const made = await trx
    .insertInto('payee_accounts')
    .values({ ...row, status, approved_by: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(made.id);
}

/** Puts waiting details in force (a second operator approved them), replacing the organisation's others; false if they were not waiting. */
export async function activatePayeeAccount(trx: Trx, id: number, by: string): Promise<boolean> {
  const row = await trx
    .updateTable('payee_accounts')
    .set({ status: 'active', approved_by: by })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning('non_profit_id')
    .executeTakeFirst();
  if (row === undefined) return false;
  await trx
    .updateTable('payee_accounts')
    .set({ status: 'replaced' })
    .where('non_profit_id', '=', row.non_profit_id)
    .where('id', '!=', id)
    .where('status', 'in', ['active', 'suspended'])
    .execute();
  return true;
}

export async function payeeAccountById(db: Db | Trx, id: number): Promise<PayeeAccountRow | undefined> {
  return await db.selectFrom('payee_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Bank details by id: what a run's payments were made to. */
export async function payeeAccountsByIds(db: Db | Trx, ids: readonly number[]): Promise<PayeeAccountRow[]> {
  if (ids.length === 0) return [];
  const rows: PayeeAccountRow[] = [];
  for (let i = 0; i < ids.length; i += 500)
    rows.push(
      ...(await db
        .selectFrom('payee_accounts')
        .selectAll()
        .where('id', 'in', ids.slice(i, i + 500))
        .execute()),
    );
  return rows;
}
