// Receipts (rules §13): issued once when a contribution succeeds, numbered
// per platform (their id), never changed; a correction is a new receipt that
// names the one it replaces. The body is the receipt as issued (JSON), so that
// a later change of the sponsor's details or the donor's name never alters it.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('receipts')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('contribution_id', t.ref, (c) => c.notNull().references('contributions.id'))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('replaces_id', t.ref, (c) => c.references('receipts.id'))
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
  // One original receipt per contribution; corrections name the receipt they replace.
  await sql`create unique index receipts_original on receipts (contribution_id) where replaces_id is null`.execute(db);
  await db.schema.createIndex('receipts_user').on('receipts').column('user_id').execute();
}
