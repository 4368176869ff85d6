// Every SQL statement about donations' partner fields (docs/rules.md §21).
import type { Db, Trx } from '../../db/database.ts';

/** The owner's donation with this external id (rules §21), if there is one. */
export async function donationByExternalId(db: Db | Trx, userId: number, externalId: string): Promise<number | undefined> {
  const row = await db.selectFrom('donations').select('id').where('user_id', '=', userId).where('external_id', '=', externalId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

/** Replaces a donation's metadata (JSON text, or null for none). */
export async function setMetadata(db: Db | Trx, id: number, metadata: string | null, at: string): Promise<void> {
  await db.updateTable('donations').set({ metadata, updated_at: at }).where('id', '=', id).execute();
}
