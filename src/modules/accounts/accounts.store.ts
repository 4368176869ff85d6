// Every SQL statement about web accounts, sessions and failed sign-ins.
import { dialectOf } from '../../db/dialect.ts';
import type { Db, Trx } from '../../db/database.ts';

/** A session's person; accounts.service adds the fund they act on. */
export interface StoredSession {
  user_id: number;
  name: string;
  slug: string;
  user_status: string;
  csrf_token: string;
  expires_at: string;
}

export async function insertAccount(
  trx: Trx,
  account: { user_id: number; email: string; password_hash: string; created_at: string; email_confirmed_at?: string },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('accounts')
    .values(account)
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('user_id')
    .executeTakeFirst();
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

export async function findSession(db: Db, idHash: string, now: string): Promise<StoredSession | undefined> {
  return db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 'u.name', 'u.slug', 'u.status as user_status', 's.csrf_token', 's.expires_at'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Db | Trx, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessionsOf(db: Db | Trx, userId: number, now: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('user_id', '=', userId).where('expires_at', '<=', now).execute();
}

/**
 * Reserves a sign-in attempt before its password is looked at: the attempt is
 * recorded as a failure (released when it succeeds), unless this email or
 * address already has `limits` failures in the window. Both are decided under
 * a lock per email and per address (PostgreSQL advisory locks, taken in one
 * order; SQLite's writers run one at a time), so requests arriving together
 * can never evaluate more passwords than the limit.
 * Returns the reservation's id, or the column that is over its limit with its oldest failure.
 */
export async function reserveAttempt(
  db: Db,
  attempt: { email: string; ip: string; at: string },
  since: string,
  limits: { email: number; ip: number },
): Promise<{ id: number } | { over: 'email' | 'ip'; oldest: string | undefined }> {
  return db.transaction().execute(async (trx) => {
    await dialectOf(trx).lockKeys(trx, [`signin:email:${attempt.email}`, `signin:ip:${attempt.ip}`]);
    await trx.deleteFrom('sign_in_failures').where('email', '=', attempt.email).where('at', '<=', since).execute();
    for (const column of ['email', 'ip'] as const) {
      if ((await countFailures(trx, column, attempt[column], since)) >= limits[column]) {
        return { over: column, oldest: await oldestFailure(trx, column, attempt[column], since) };
      }
    }
    const row = await trx.insertInto('sign_in_failures').values(attempt).returning('id').executeTakeFirstOrThrow();
    return { id: row.id };
  });
}

/** A reserved attempt that succeeded is no failure. */
export async function releaseAttempt(db: Db | Trx, id: number): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('id', '=', id).execute();
}

async function countFailures(db: Db | Trx, column: 'email' | 'ip', value: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('sign_in_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column, '=', value)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function oldestFailure(db: Db | Trx, column: 'email' | 'ip', value: string, since: string): Promise<string | undefined> {
  const row = await db.selectFrom('sign_in_failures').select('at').where(column, '=', value).where('at', '>', since).orderBy('at').limit(1).executeTakeFirst();
  return row?.at;
}

export async function clearFailures(db: Db | Trx, email: string): Promise<void> {
  await db.deleteFrom('sign_in_failures').where('email', '=', email).execute();
}

/** The status of an account's user (a suspended user cannot sign in). */
export async function statusOfUser(trx: Trx, userId: number): Promise<string> {
  return (await trx.selectFrom('users').select('status').where('id', '=', userId).executeTakeFirstOrThrow()).status;
}

export async function insertInvitation(trx: Trx, invitation: { token_hash: string; user_id: number; created_at: string; expires_at: string }): Promise<void> {
  await trx.insertInto('invitations').values(invitation).execute();
}

/** The user an unused invitation that has not expired at `now` is for, or undefined. */
export async function openInvitation(db: Db | Trx, tokenHash: string, now: string): Promise<{ user_id: number } | undefined> {
  return db.selectFrom('invitations').select('user_id').where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
}

/** Marks an invitation used; true if this call did (a compare-and-set: a link works once). */
export async function useInvitation(trx: Trx, tokenHash: string, at: string): Promise<boolean> {
  const updated = await trx.updateTable('invitations').set({ used_at: at }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** True when the user has a web account (an invitation is for users without one). */
export async function hasAccount(db: Db | Trx, userId: number): Promise<boolean> {
  return (await db.selectFrom('accounts').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/** An account by email with its user's status (a reset is only for an active user). */
export async function accountForReset(db: Db, email: string): Promise<{ user_id: number; status: string } | undefined> {
  return db.selectFrom('accounts as a').innerJoin('users as u', 'u.id', 'a.user_id').select(['a.user_id', 'u.status']).where('a.email', '=', email).executeTakeFirst();
}

export async function insertPasswordReset(trx: Trx, reset: { token_hash: string; user_id: number; created_at: string; expires_at: string }): Promise<void> {
  await trx.insertInto('password_resets').values(reset).execute();
}

/** The user of a reset link that is unused and not expired, or undefined. */
export async function openPasswordReset(db: Db | Trx, tokenHash: string, now: string): Promise<{ user_id: number } | undefined> {
  return db.selectFrom('password_resets').select('user_id').where('token_hash', '=', tokenHash).where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirst();
}

/** Uses a reset link up; true if this call did (single use, even when two arrive at once). */
export async function usePasswordReset(trx: Trx, tokenHash: string, at: string): Promise<boolean> {
  const used = await trx
    .updateTable('password_resets')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) === 1;
}

/** Ends every reset link of the user still open (a newer one was asked for, or one was used). */
export async function endOpenPasswordResets(trx: Trx, userId: number, at: string): Promise<number> {
  const ended = await trx.updateTable('password_resets').set({ used_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).executeTakeFirst();
  return Number(ended.numUpdatedRows);
}

/** A new password, and every session of the user ended; given `at` (a reset link, mailed to the address), the address is proven too. */
export async function setPasswordEndingSessions(trx: Trx, userId: number, passwordHash: string, at?: string): Promise<void> {
  await trx.updateTable('accounts').set({ password_hash: passwordHash }).where('user_id', '=', userId).execute();
  if (at !== undefined) await trx.updateTable('accounts').set({ email_confirmed_at: at }).where('user_id', '=', userId).where('email_confirmed_at', 'is', null).execute();
  await trx.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
}

/** The account's address and when it was proven (null: not yet). */
export async function addressOf(db: Db | Trx, userId: number): Promise<{ email: string; email_confirmed_at: string | null } | undefined> {
  return db.selectFrom('accounts').select(['email', 'email_confirmed_at']).where('user_id', '=', userId).executeTakeFirst();
}

export async function insertAddressConfirmation(trx: Trx, row: { token_hash: string; user_id: number; email: string; created_at: string; expires_at: string }): Promise<void> {
  await trx.insertInto('address_confirmations').values(row).execute();
}

/** Ends the user's links still open (a newer one replaces them). */
export async function endOpenAddressConfirmations(trx: Trx, userId: number, at: string): Promise<void> {
  await trx.updateTable('address_confirmations').set({ expires_at: at }).where('user_id', '=', userId).where('used_at', 'is', null).where('expires_at', '>', at).execute();
}

export async function findAddressConfirmation(db: Db | Trx, tokenHash: string) {
  return db.selectFrom('address_confirmations').select(['user_id', 'email', 'created_at', 'expires_at', 'used_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** The newest link sent to the user, if any. */
export async function lastAddressConfirmation(db: Db | Trx, userId: number) {
  return db
    .selectFrom('address_confirmations')
    .select(['email', 'created_at', 'expires_at', 'used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Uses a link once (compare-and-set on `used_at`): false when another request used it first. */
export async function useAddressConfirmation(trx: Trx, tokenHash: string, at: string): Promise<boolean> {
  const used = await trx
    .updateTable('address_confirmations')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .returning('user_id')
    .executeTakeFirst();
  return used !== undefined;
}

/** Sets the account's address and marks it proven. False when another account holds the address. */
export async function confirmAccountAddress(trx: Trx, userId: number, email: string, at: string): Promise<boolean> {
  if (await emailHeldByOther(trx, email, userId)) return false;
  await trx.updateTable('accounts').set({ email, email_confirmed_at: at }).where('user_id', '=', userId).execute();
  return true;
}

/** Whether another account signs in with `email`. */
export async function emailHeldByOther(db: Db | Trx, email: string, userId: number): Promise<boolean> {
  return (await db.selectFrom('accounts').select('user_id').where('email', '=', email).where('user_id', '!=', userId).executeTakeFirst()) !== undefined;
}

export async function passwordHashOf(db: Db | Trx, userId: number): Promise<string | undefined> {
  return (await db.selectFrom('accounts').select('password_hash').where('user_id', '=', userId).executeTakeFirst())?.password_hash;
}
