// A donor declares a contribution before sending the money (rules §7): it
// carries a reference that ties the money to it when it arrives, and what the
// operator recorded on arrival (the valuation's source, for stock and crypto).
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('contributions').addColumn('reference', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('declared_at', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('cancelled_at', 'text').execute();
  await db.schema.alterTable('contributions').addColumn('valuation_source', 'text').execute();
  await db.schema.createIndex('contributions_reference').unique().on('contributions').column('reference').execute();
}
