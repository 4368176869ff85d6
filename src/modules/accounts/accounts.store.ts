// Every SQL statement about web accounts, sessions and failed sign-ins.
import type { Db } from '../../db/database.ts';
import type { Trx } from '../ledger/index.ts';

export interface Session {
  user_id: number;
  fund_id: number;
  name: string;
  slug: string;
  user_status: string;
  csrf_token: string;
  expires_at: string;
}

export async function insertAccount(trx: Trx, account: { user_id: number; email: string; password_hash: string; created_at: string }): Promise<boolean> {
  const inserted = await trx.insertInto('accounts').values(account).onConflict((oc) => oc.column('email').doNothing()).returning('user_id').executeTakeFirst();
  return inserted !== undefined;
}

export async function findAccountByEmail(db: Db, email: string) {
  return db.selectFrom('accounts').select(['user_id', 'password_hash']).where('email', '=', email).executeTakeFirst();
}

export async function emailOf(db: Db, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('email').where('user_id', '=', userId).executeTakeFirst())?.email;
}

export async function insertSession(db: Db | Trx, session: { id_hash: string; user_id: number; csrf_token: string; created_at: string; expires_at: string }): Promise<void> {
  await db.insertInto('web_sessions').values(session).execute();
}

export async function findSession(db: Db, idHash: string, now: string): Promise<Session | undefined> {
  return db.selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('funds as f', 'f.user_id', 'u.id')
    .select(['s.user_id', 'f.id as fund_id', 'u.name', 'u.slug', 'u.status as user_status', 's.csrf_token', 's.expires_at'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .orderBy('f.id')
    .limit(1)
    .executeTakeFirst();
}

export async function deleteSession(db: Db | Trx, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessionsOf(db: Db | Trx, userId: number, now: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

export async function countFailures(db: Db, column: 'email' | 'ip', value: string, since: string): Promise<number> {
  const row = await db.selectFrom('sign_in_failures').select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column, '=', value).where('at', '>', since).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function oldestFailure(db: Db, column: 'email' | 'ip', value: string, since: string): Promise<string | undefined> {
  const row = await db.selectFrom('sign_in_failures').select('at').where(column, '=', value).where('at', '>', since).orderBy('at').limit(1).executeTakeFirst();
  return row?.at;
}

/** Records a failure and forgets this email's failures that have left the window. */
export async function recordFailure(db: Db, failure: { email: string; ip: string; at: string }, windowStart: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('sign_in_failures').where('email', '=', failure.email).where('at', '<=', windowStart).execute();
    await trx.insertInto('sign_in_failures').values(failure).execute();
  });
}

export async function clearFailures(db: Db | Trx, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email', '=', email).execute();
}
