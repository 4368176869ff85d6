// The sandbox's reads: who owns a sandbox object, and what its clock has to move.
import type { Db } from '../../db/database.ts';

export type SandboxObject = { object: 'donation'; id: number } | { object: 'contribution'; id: number } | { object: 'gift'; code: string };

/** The user who owns a sandbox (test book) object, or undefined: a live object is never found. */
export async function ownerOfTestObject(db: Db, ref: SandboxObject): Promise<number | undefined> {
  const row =
    ref.object === 'gift'
      ? await db.selectFrom('gifts').select('user_id').where('code', '=', ref.code.toLowerCase()).where('book', '=', 'test').executeTakeFirst()
      : await db
          .selectFrom(ref.object === 'donation' ? 'donations' : 'contributions')
          .select('user_id')
          .where('id', '=', ref.id)
          .where('book', '=', 'test')
          .executeTakeFirst();
  return row?.user_id;
}

/** Up to `limit` sandbox contributions pending since `before` or earlier. */
export async function pendingTestContributions(db: Db, before: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('contributions')
    .select('id')
    .where('book', '=', 'test')
    .where('status', '=', 'pending')
    .where('received_at', '<=', before)
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Up to `limit` sandbox donations in `status` unchanged since `before` or earlier. */
export async function idleTestDonations(db: Db, status: string, before: string, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('donations').select('id').where('book', '=', 'test').where('status', '=', status).where('updated_at', '<=', before).limit(limit).execute();
  return rows.map((r) => r.id);
}
