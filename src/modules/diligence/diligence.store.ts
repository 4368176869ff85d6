// SQL of the due diligence lists, the screening of the directory, and the reviews.
import type { Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { bulkInsert } from '../../db/bulk.ts';
import type { DiligenceListsTable, SanctionReviewsTable } from '../../db/schema.diligence.ts';
import type { ListKind, Pub78Entry, Revocation, SanctionEntry } from './diligence.ts';

export type ListRow = Selectable<DiligenceListsTable>;
export type ReviewRow = Selectable<SanctionReviewsTable>;

/** Records a snapshot of a list with its entries, and drops the entries of the older snapshots of that kind (their record stays). */
export async function insertList(
  trx: Trx,
  list: { kind: ListKind; as_of: string; imported_at: string; source: string; sha256: string },
  entries: readonly Revocation[] | readonly Pub78Entry[] | readonly SanctionEntry[],
): Promise<number> {
  const made = await trx
    .insertInto('diligence_lists')
    .values({ ...list, entries: entries.length })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(made.id);
  const table = list.kind === 'revocations' ? 'revocations' : list.kind === 'pub78' ? 'pub78' : 'sanctions';
  await trx.deleteFrom(table).where('list_id', '<>', id).execute();
  if (list.kind === 'revocations') {
    const rows = (entries as readonly Revocation[]).map((e) => [id, e.ein, e.name, e.revoked_on, e.reinstated_on]);
    await bulkInsert(trx, 'revocations', ['list_id', 'ein', 'name', 'revoked_on', 'reinstated_on'], rows);
  } else if (list.kind === 'pub78') {
    const rows = (entries as readonly Pub78Entry[]).map((e) => [id, e.ein, e.name, e.codes]);
    await bulkInsert(trx, 'pub78', ['list_id', 'ein', 'name', 'codes'], rows);
  } else {
    const rows = (entries as readonly SanctionEntry[]).map((e) => [id, e.entry, e.name, e.name_key, e.kind, e.program]);
    await bulkInsert(trx, 'sanctions', ['list_id', 'entry', 'name', 'name_key', 'kind', 'program'], rows);
  }
  return id;
}

/** The newest snapshot of each kind of list. */
export async function currentLists(db: Db | Trx): Promise<ListRow[]> {
  const rows = await db.selectFrom('diligence_lists').selectAll().orderBy('id', 'desc').execute();
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.kind) && seen.add(r.kind) !== undefined);
}

/** The EINs the current revocation list holds as revoked: never reinstated, or reinstated no later than revoked. */
export async function revokedEins(db: Db | Trx): Promise<Set<string>> {
  const rows = await db.selectFrom('revocations').select(['ein', 'revoked_on', 'reinstated_on']).execute();
  const revoked = new Set<string>();
  for (const r of rows) if (r.reinstated_on === null || r.reinstated_on <= r.revoked_on) revoked.add(r.ein);
  return revoked;
}

export async function pub78Codes(db: Db | Trx): Promise<Map<string, string>> {
  const rows = await db.selectFrom('pub78').select(['ein', 'codes']).execute();
  return new Map(rows.map((r) => [r.ein, r.codes]));
}

export async function sanctionEntries(db: Db | Trx): Promise<Array<{ name: string; name_key: string }>> {
  return await db.selectFrom('sanctions').select(['name', 'name_key']).execute();
}

/** The directory a page at a time, by id: what screening reads of each organisation. */
export async function screeningPage(db: Db | Trx, afterId: number, limit: number) {
  return await db.selectFrom('non_profits').select(['id', 'ein', 'name', 'foundation', 'diligence']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

export async function setDiligence(trx: Trx, ids: readonly number[], diligence: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await trx
      .updateTable('non_profits')
      .set({ diligence })
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

export async function allReviews(db: Db | Trx): Promise<Array<Pick<ReviewRow, 'non_profit_id' | 'listed_key' | 'status'>>> {
  return await db.selectFrom('sanction_reviews').select(['non_profit_id', 'listed_key', 'status']).execute();
}

export async function insertReviews(trx: Trx, rows: ReadonlyArray<Omit<ReviewRow, 'id' | 'decided_at' | 'decided_by' | 'note'>>): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await trx
      .insertInto('sanction_reviews')
      .values(rows.slice(i, i + 500).map((r) => ({ ...r, decided_at: null, decided_by: null, note: null })))
      .onConflict((oc) => oc.columns(['non_profit_id', 'listed_key']).doNothing())
      .execute();
  }
}

export async function reviewsInStatus(db: Db | Trx, status: string, limit: number): Promise<ReviewRow[]> {
  return await db.selectFrom('sanction_reviews').selectAll().where('status', '=', status).orderBy('id').limit(limit).execute();
}

export async function lockReview(trx: Trx, id: number): Promise<ReviewRow | undefined> {
  return await trx.selectFrom('sanction_reviews').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Decides a pending review; false when it was decided already (by another operator first). */
export async function decideReview(trx: Trx, id: number, decision: { status: string; decided_at: string; decided_by: string; note: string }): Promise<boolean> {
  const result = await trx.updateTable('sanction_reviews').set(decision).where('id', '=', id).where('status', '=', 'pending').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
