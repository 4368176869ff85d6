// One reader for the lists every owner pages through the same way: a user's
// rows of a table, newest first (created_at, then id), with their count.
import type { Selectable } from 'kysely';
import type { Db } from './database.ts';
import type { Database } from './schema.ts';
import { offsetOf, type PageRequest } from '../shared/page.ts';

type OwnedTable = 'gifts' | 'contributions' | 'scheduled_donations' | 'fundraisers';

export async function newestOfUser<T extends OwnedTable>(db: Db, table: T, userId: number, page: PageRequest): Promise<{ rows: Selectable<Database[T]>[]; count: number }> {
  // Kysely cannot follow a table name that is a type parameter; the tables share these columns.
  const from = db.selectFrom(table as OwnedTable as 'gifts');
  const [counted, rows] = await Promise.all([
    from
      .where('user_id', '=', userId)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    from.selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.per_page).offset(offsetOf(page)).execute(),
  ]);
  return { rows: rows as unknown as Selectable<Database[T]>[], count: Number(counted.count) };
}
