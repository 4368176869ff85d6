// Idempotency keys carry the token of the attempt that holds them and, once
// the use case has committed, the resource it made: written in the use
// case's own transaction, so a crash between the commit and the stored
// response cannot lead a retry to do the work twice.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('claim_token', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('resource', 'text').execute();
}
