// Every SQL statement about successor plans and recorded deaths (rules §20).
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { dialectOf } from '../../db/dialect.ts';

export interface StoredLine {
  email: string | null;
  ein: string | null;
  share_percent: number | null;
}

export async function successorLines(db: Db | Trx, fundId: number): Promise<Array<StoredLine & { updated_at: string }>> {
  return db.selectFrom('successor_lines').select(['email', 'ein', 'share_percent', 'updated_at']).where('fund_id', '=', fundId).orderBy('id').execute();
}

export async function replaceSuccessorLines(trx: Trx, fundId: number, lines: readonly StoredLine[], by: number, at: string): Promise<void> {
  await trx.deleteFrom('successor_lines').where('fund_id', '=', fundId).execute();
  if (lines.length > 0)
    await trx
      .insertInto('successor_lines')
      .values(lines.map((l) => ({ ...l, fund_id: fundId, updated_by: by, updated_at: at })))
      .execute();
}

export interface DeathRecord {
  id: number;
  fund_id: number;
  user_id: number;
  document_reference: string;
  status: 'recorded' | 'approved' | 'withdrawn';
  recorded_by: string;
  recorded_at: string;
  approved_by: string | null;
  approved_at: string | null;
  outcome: string | null;
}

const DEATH = ['id', 'fund_id', 'user_id', 'document_reference', 'status', 'recorded_by', 'recorded_at', 'approved_by', 'approved_at', 'outcome'] as const;

/** Records a death unless one of this person in this fund is recorded already (undefined). */
export async function insertDeath(trx: Trx, d: Omit<DeathRecord, 'id' | 'status' | 'approved_by' | 'approved_at' | 'outcome'>): Promise<number | undefined> {
  const row = await trx
    .insertInto('death_records')
    .values({ ...d, status: 'recorded' })
    .onConflict((oc) => oc.columns(['fund_id', 'user_id']).where('status', '!=', sql.lit('withdrawn')).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function lockDeath(trx: Trx, id: number, forUpdate: boolean): Promise<DeathRecord | undefined> {
  const query = trx.selectFrom('death_records').select(DEATH).where('id', '=', id);
  return (await (forUpdate ? dialectOf(trx).lockRows(query) : query).executeTakeFirst()) as DeathRecord | undefined;
}

export async function approveDeath(trx: Trx, id: number, by: string, at: string, outcome: string): Promise<boolean> {
  const result = await trx
    .updateTable('death_records')
    .set({ status: 'approved', approved_by: by, approved_at: at, outcome })
    .where('id', '=', id)
    .where('status', '=', 'recorded')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function listDeaths(db: Db, status?: DeathRecord['status']): Promise<DeathRecord[]> {
  let query = db.selectFrom('death_records').select(DEATH).orderBy('id', 'desc').limit(200);
  if (status !== undefined) query = query.where('status', '=', status);
  return (await query.execute()) as DeathRecord[];
}
