// SQL of charities' claims (rules §18).
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { CharityClaimsTable } from '../../db/schema.payments.ts';

export type ClaimRow = Selectable<CharityClaimsTable>;

export async function insertClaim(trx: Trx, claim: Omit<ClaimRow, 'id'>): Promise<number> {
  const made = await trx.insertInto('charity_claims').values(claim).returning('id').executeTakeFirstOrThrow();
  return Number(made.id);
}

/** The person's claims of the organisation that are not refused (one at most, by the service's rule). */
export async function liveClaimOf(db: Db | Trx, userId: number, nonProfitId: number): Promise<ClaimRow | undefined> {
  return await db
    .selectFrom('charity_claims')
    .selectAll()
    .where('user_id', '=', userId)
    .where('non_profit_id', '=', nonProfitId)
    .where('status', '!=', 'rejected')
    .executeTakeFirst();
}

/** Replaces an unconfirmed claim's link (asking again: the older link stops working). */
export async function renewLink(
  trx: Trx,
  id: number,
  change: { email: string; domain: string; website_on_file: number; token_hash: string; token_expires_at: string; created_at: string },
): Promise<void> {
  await trx.updateTable('charity_claims').set(change).where('id', '=', id).where('status', '=', 'unconfirmed').execute();
}

export async function claimByToken(db: Db | Trx, tokenHash: string): Promise<ClaimRow | undefined> {
  return await db.selectFrom('charity_claims').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findClaim(db: Db | Trx, id: number): Promise<ClaimRow | undefined> {
  return await db.selectFrom('charity_claims').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Moves a claim from one status to the next; false when it was not in `from` (another got there first). */
export async function moveClaim(trx: Trx, id: number, from: ClaimRow['status'], change: Partial<Omit<ClaimRow, 'id'>>): Promise<boolean> {
  const result = await trx.updateTable('charity_claims').set(change).where('id', '=', id).where('status', '=', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Claims in a status with their organisation, oldest first. */
export async function claimsIn(db: Db, status: ClaimRow['status'], limit: number) {
  return await db
    .selectFrom('charity_claims as c')
    .innerJoin('non_profits as n', 'n.id', 'c.non_profit_id')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select([
      'c.id',
      'c.status',
      'c.email',
      'c.domain',
      'c.website_on_file',
      'c.created_at',
      'c.confirmed_at',
      'n.ein',
      'n.name as non_profit',
      'n.website',
      'u.name as person',
      'c.user_id',
    ])
    .where('c.status', '=', status)
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/** The addresses of the organisation's approved claimants, but for one person's. */
export async function claimantAddresses(db: Db | Trx, nonProfitId: number, exceptUserId: number | null): Promise<string[]> {
  let query = db.selectFrom('charity_claims').select('email').where('non_profit_id', '=', nonProfitId).where('status', '=', 'approved');
  if (exceptUserId !== null) query = query.where('user_id', '!=', exceptUserId);
  return (await query.orderBy('id').execute()).map((r) => r.email);
}

/** The organisations a person acts for (approved claims) and their claims waiting. */
export async function claimsOfUser(db: Db, userId: number) {
  return await db
    .selectFrom('charity_claims as c')
    .innerJoin('non_profits as n', 'n.id', 'c.non_profit_id')
    .select(['c.id', 'c.status', 'c.email', 'n.ein', 'n.name'])
    .where('c.user_id', '=', userId)
    .where('c.status', '!=', 'rejected')
    .orderBy('n.name')
    .execute();
}

/** The EIN and name of an organisation a claim names. */
export async function organisationOf(db: Db | Trx, nonProfitId: number): Promise<{ ein: string; name: string }> {
  return await db.selectFrom('non_profits').select(['ein', 'name']).where('id', '=', nonProfitId).executeTakeFirstOrThrow();
}

/** The approved claimants' addresses of these organisations. */
export async function claimantsOf(db: Db | Trx, nonProfitIds: readonly number[]): Promise<Array<{ non_profit_id: number; email: string }>> {
  const rows: Array<{ non_profit_id: number; email: string }> = [];
  for (let i = 0; i < nonProfitIds.length; i += 500) {
    const part = await db
      .selectFrom('charity_claims')
      .select(['non_profit_id', 'email'])
      .where('non_profit_id', 'in', nonProfitIds.slice(i, i + 500))
      .where('status', '=', 'approved')
      .orderBy('id')
      .execute();
    rows.push(...part.map((r) => ({ non_profit_id: Number(r.non_profit_id), email: r.email })));
  }
  return rows;
}

/** How many of a person's claims wait for their link to be followed. */
export async function unconfirmedCount(db: Db | Trx, userId: number): Promise<number> {
  const row = await db
    .selectFrom('charity_claims')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('user_id', '=', userId)
    .where('status', '=', 'unconfirmed')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** When each claim link mailed to `email` since `since` was queued, oldest first (any account's). */
export async function claimMailsTo(trx: Trx, email: string, since: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('mail_outbox')
    .select('created_at')
    .where('kind', '=', 'charity_claim')
    .where('recipient', '=', email)
    .where('created_at', '>', since)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.created_at);
}
