// Every SQL statement about contributions.
import { dialectOf } from '../../db/dialect.ts';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { ContributionsTable } from '../../db/schema.ts';
import { newestOfUser } from '../../db/pages.ts';
import type { Book } from '../../shared/book.ts';
import { dayAfter, type PageRequest, type RowFilters } from '../../shared/page.ts';
import type { ContributionStatus } from './contributions.ts';

export type Contribution = Selectable<ContributionsTable>;

/** Inserts a contribution; returns its id. */
export async function insertContribution(trx: Trx, contribution: Insertable<ContributionsTable>): Promise<number> {
  const row = await trx.insertInto('contributions').values(contribution).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The fund of a contribution of `book`, or undefined: read before its fund is locked. */
export async function fundOfContribution(db: Db | Trx, book: Book, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('contributions').select('fund_id').where('id', '=', id).where('book', '=', book).executeTakeFirst();
  return row?.fund_id;
}

/** A contribution by id, locked for update on PostgreSQL (SQLite's write transaction already excludes others). */
export async function lockContribution(trx: Trx, id: number): Promise<Contribution> {
  return dialectOf(trx)
    .lockRows(trx.selectFrom('contributions').selectAll().where('id', '=', id))
    .executeTakeFirstOrThrow();
}

/** Moves a contribution from `from` to `to`, stamping when it was received or completed; true if it was still `from`. */
export async function moveContribution(trx: Trx, id: number, from: string, to: ContributionStatus, at: string): Promise<boolean> {
  const updated = await trx
    .updateTable('contributions')
    .set({
      status: to,
      ...(to === 'pending' ? { received_at: at } : {}),
      ...(to === 'success' || to === 'failed' ? { completed_at: at } : {}),
    })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A page of a user's contributions, newest first, and how many they have. */
export function pageOfContributions(db: Db, userId: number, page: PageRequest): Promise<{ rows: Contribution[]; count: number }> {
  return newestOfUser(db, 'contributions', userId, page);
}

/** A contribution of `book` by id, or undefined. */
export async function findContribution(db: Db | Trx, book: Book, id: number): Promise<Contribution | undefined> {
  return db.selectFrom('contributions').selectAll().where('id', '=', id).where('book', '=', book).executeTakeFirst();
}

/** Cancels a declared contribution still waiting for its money (it becomes failed, nothing moved); true if it did. */
export async function cancelDeclared(trx: Trx, id: number, at: string): Promise<boolean> {
  const updated = await trx
    .updateTable('contributions')
    .set({ status: 'failed', cancelled_at: at, completed_at: at })
    .where('id', '=', id)
    .where('status', '=', 'waiting_for_funds')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Declared contributions of a book still waiting for their money, oldest first; one reference's only when given. */
export async function awaitingMoney(db: Db, book: Book, reference: string | undefined, limit: number): Promise<Contribution[]> {
  let q = db.selectFrom('contributions').selectAll().where('book', '=', book).where('status', '=', 'waiting_for_funds').where('reference', 'is not', null);
  if (reference !== undefined) q = q.where('reference', '=', reference.toUpperCase());
  return q.orderBy('id').limit(limit).execute();
}

/** What arrived for a declared contribution: its units, valuation and amount, set while it still waits; true if it did. */
export async function recordArrival(
  trx: Trx,
  id: number,
  arrived: { units: string; valuation: string; amount_cents: number; valuation_source: string | null; declared_cents?: number | null },
): Promise<boolean> {
  const updated = await trx.updateTable('contributions').set(arrived).where('id', '=', id).where('status', '=', 'waiting_for_funds').executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A received contribution's value set again (a correction), while it is still `status`; true if it was. */
export async function reviseValue(
  trx: Trx,
  id: number,
  status: string,
  value: { units: string; valuation: string; amount_cents: number; valuation_source: string | null },
): Promise<boolean> {
  const updated = await trx.updateTable('contributions').set(value).where('id', '=', id).where('status', '=', status).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** The name a receipt gives its donor. */
export async function donorName(db: Db | Trx, userId: number): Promise<string> {
  return (await db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirstOrThrow()).name;
}

/** Writes a receipt; `body` gets its number from the id, so it is written in two steps of one transaction. Returns the id. */
export async function insertReceipt(
  trx: Trx,
  receipt: { book: Book; contribution_id: number; user_id: number; replaces_id: number | null; issued_at: string },
  body: (id: number) => unknown,
): Promise<number> {
  const row = await trx
    .insertInto('receipts')
    .values({ ...receipt, body: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('receipts')
    .set({ body: JSON.stringify(body(row.id)) })
    .where('id', '=', row.id)
    .execute();
  return row.id;
}

/**
 * Succeeded contributions without their original receipt (one an older release made succeed:
 * ADR 13), oldest first, at most `limit`; those that succeeded before receipts existed (migration
 * 017) are left as they were.
 */
export async function successesWithoutReceipt(db: Db | Trx, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('contributions as c')
    .select('c.id')
    .where('c.status', '=', 'success')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('receipts as r').select('r.id').whereRef('r.contribution_id', '=', 'c.id').where('r.replaces_id', 'is', null))))
    .where('c.completed_at', '>=', sql<string>`(select applied_at from schema_migrations where name = '017_receipts')`)
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** A contribution's receipts, oldest first (the original, then its corrections), in a book. */
export async function receiptsOf(
  db: Db | Trx,
  book: Book,
  contributionId: number,
): Promise<Array<{ id: number; user_id: number; replaces_id: number | null; issued_at: string; body: string }>> {
  return db
    .selectFrom('receipts')
    .select(['id', 'user_id', 'replaces_id', 'issued_at', 'body'])
    .where('contribution_id', '=', contributionId)
    .where('book', '=', book)
    .orderBy('id')
    .execute();
}

/**
 * A user's contributions matching `f`, newest first (as the list), up to `limit` after `before` (an
 * export reads them all, a batch at a time, along the index on user, creation time and id).
 */
export async function contributionsForExport(
  db: Db,
  userId: number,
  f: RowFilters,
  before: { created_at: string; id: number } | undefined,
  limit: number,
): Promise<Array<Contribution & { made_by: string | null }>> {
  let q = db
    .selectFrom('contributions')
    .selectAll('contributions')
    .select((eb) => eb.selectFrom('users as a').select('a.name').whereRef('a.id', '=', 'contributions.actor_id').as('made_by'))
    .where('user_id', '=', userId);
  if (before !== undefined) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(before.created_at, before.id)));
  if (f.from !== undefined) q = q.where('created_at', '>=', `${f.from}T00:00:00.000Z`);
  if (f.to !== undefined) q = q.where('created_at', '<', dayAfter(f.to));
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A user's contributions that succeeded in [from, to), oldest first, with their receipt numbers (ids). */
export async function succeededBetween(db: Db, book: Book, userId: number, from: string, to: string) {
  return db
    .selectFrom('contributions as c')
    .leftJoin('receipts as r', (j) => j.onRef('r.contribution_id', '=', 'c.id').on('r.replaces_id', 'is', null))
    .select(['c.id', 'c.completed_at', 'c.type', 'c.units', 'c.currency', 'c.amount_cents', 'r.id as receipt_id'])
    .where('c.user_id', '=', userId)
    .where('c.book', '=', book)
    .where('c.status', '=', 'success')
    .where('c.completed_at', '>=', from)
    .where('c.completed_at', '<', to)
    .orderBy('c.completed_at')
    .orderBy('c.id')
    .execute();
}

/** The owner's contribution with this external id (rules §21), if there is one. */
export async function contributionByExternalId(db: Db | Trx, userId: number, externalId: string): Promise<number | undefined> {
  const row = await db.selectFrom('contributions').select('id').where('user_id', '=', userId).where('external_id', '=', externalId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** Replaces a contribution's metadata (JSON text, or null for none). */
export async function setContributionMetadata(db: Db | Trx, id: number, metadata: string | null): Promise<void> {
  await db.updateTable('contributions').set({ metadata }).where('id', '=', id).execute();
}
