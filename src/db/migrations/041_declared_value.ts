// What a donor declared, kept beside what arrived (docs/rules.md §13): recording the arrival
// replaced the declared amount, so a receipt could not say "declared $5,000, received $4,500".
// Null for a contribution an operator recorded, or declared before this migration.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema.alterTable('contributions').addColumn('declared_cents', columnTypes(engine).money).execute();
}
