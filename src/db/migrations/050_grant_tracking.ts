// Giving at a charity's checkout (docs/rules.md §24): a grant made through a checkout provider
// (DAFpay) is a donation that carries the provider's tracking id, which the charity receives on
// the remittance advice and in the ACH addenda, to match the money to its checkout.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('donations').addColumn('tracking_id', 'text').execute();
}
