// The statements of `almoner check` about what apps made (rules §25).
import type { Db } from '../../db/database.ts';

/**
 * Donations whose app (rules §25) is not the app of the connection whose token made them: an app
 * would hear of what another made, or not of its own. (A gift's claim is the giver's donation, made
 * with the recipient's token: no app's.) Ids and apps, at most 1,000.
 */
export async function donationsOfAnotherApp(db: Db): Promise<Array<{ id: number; app_id: number | null; connection_app_id: number }>> {
  const found = await donationsOfAnotherAppQuery(db).execute();
  return found.map((r) => ({ id: Number(r.id), app_id: r.app_id === null ? null : Number(r.app_id), connection_app_id: Number(r.connection_app_id) }));
}

/** donationsOfAnotherApp's read: whether a donation is a gift's claim is found by the gifts' index of donations (migration 058). */
export function donationsOfAnotherAppQuery(db: Db) {
  return (
    db
      .selectFrom('donations as d')
      .innerJoin('app_connections as c', 'c.id', 'd.app_connection_id')
      .select(['d.id', 'd.app_id', 'c.app_id as connection_app_id'])
      .where((eb) => eb.or([eb('d.app_id', 'is', null), eb('d.app_id', '!=', eb.ref('c.app_id'))]))
      // A gift's claim on a recipient's token is the giver's donation: the recipient's app is not told of it.
      .where((eb) => eb.not(eb.exists(eb.selectFrom('gifts as g').select('g.id').whereRef('g.donation_id', '=', 'd.id'))))
      .orderBy('d.id')
      .limit(1000)
  );
}
