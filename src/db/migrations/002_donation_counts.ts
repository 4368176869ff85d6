// Per-user donation counts, kept in the same transaction as every donation
// insert: counting a user's 100k donations on every list request cost 4 ms
// on SQLite, against 0.03 ms for the page itself.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('donation_counts')
    .addColumn('user_id', t.ref, (c) => c.primaryKey().references('users.id'))
    .addColumn('total', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('public_total', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`insert into donation_counts (user_id, total, public_total)
    select u.id,
      (select count(*) from donations d where d.user_id = u.id),
      (select count(*) from donations d where d.user_id = u.id and d.visibility = 'public')
    from users u`.execute(db);
}
