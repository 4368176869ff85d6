// Two people on money out, and runs that can be taken back (docs/rules.md §17): a run records the
// second operator who approved it before submission, or who withdrew it and why; bank details an
// operator types wait as `pending` for another operator's approval (`approved_by`).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_runs').addColumn('approved_at', 'text').execute();
  await db.schema.alterTable('payment_runs').addColumn('approved_by', 'text').execute();
  await db.schema.alterTable('payment_runs').addColumn('withdrawn_at', 'text').execute();
  await db.schema.alterTable('payment_runs').addColumn('withdrawn_by', 'text').execute();
  await db.schema.alterTable('payment_runs').addColumn('withdraw_reason', 'text').execute();
  await db.schema.alterTable('payee_accounts').addColumn('approved_by', 'text').execute();
}
