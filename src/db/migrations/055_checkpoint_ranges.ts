// A checkpoint keeps its compact range (the hashes of the whole subtrees its tree is made of), so
// that the next one hashes only the entries after it (docs/rules.md §26).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ledger_checkpoints').addColumn('compact_range', 'text').execute();
}
