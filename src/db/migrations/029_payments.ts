// Paying charities (docs/rules.md §17): payment runs, one payment per
// organisation and run with a line per grant, and the bank details an
// organisation is paid to by ACH (the account number sealed with the
// platform's key). A donation is in at most one payment, whatever runs race;
// a run is opened once per date and book; a check number is used once.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('payment_runs')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('pay_date', 'text', (c) => c.notNull())
    // 'open' (its files may be exported, nothing is paid yet) or 'submitted'.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('submitted_at', 'text')
    .addColumn('submitted_by', 'text')
    .addUniqueConstraint('payment_runs_date', ['book', 'pay_date'])
    .execute();
  await db.schema
    .createTable('payee_accounts')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull())
    .addColumn('routing', 'text', (c) => c.notNull())
    // The account number sealed (shared/sealed.ts), and its last four digits to show.
    .addColumn('account_sealed', 'text', (c) => c.notNull())
    .addColumn('account_last4', 'text', (c) => c.notNull())
    // 'checking' or 'savings'.
    .addColumn('account_type', 'text', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    // 'active', or 'replaced' by a later one.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    // ACH waits until then after a change (the cooling-off period); checks meanwhile.
    .addColumn('usable_from', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payee_accounts_org').on('payee_accounts').columns(['non_profit_id', 'status']).execute();
  await db.schema
    .createTable('payments')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('run_id', t.ref, (c) => c.notNull())
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('non_profit_id', t.ref, (c) => c.notNull())
    .addColumn('ein', 'text', (c) => c.notNull())
    // The organisation's name and address as paid (the check's payee and envelope).
    .addColumn('payee', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    // 'ach' or 'check'.
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .addColumn('grants', 'integer', (c) => c.notNull())
    // What screening had found of the organisation when the run was opened: 'clear', or it is not paid.
    .addColumn('screened', 'text', (c) => c.notNull())
    // 'open', 'sent', then 'cashed' (a check), 'returned' (ACH) or 'voided' (a check).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payee_account_id', t.ref)
    .addColumn('check_number', 'integer')
    .addColumn('return_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('settled_at', 'text')
    .addColumn('settled_by', 'text')
    .addUniqueConstraint('payments_run_org', ['run_id', 'non_profit_id'])
    .addUniqueConstraint('payments_check_number', ['book', 'check_number'])
    .execute();
  await db.schema.createIndex('payments_status').on('payments').columns(['status', 'method', 'sent_at']).execute();
  await db.schema
    .createTable('payment_grants')
    .addColumn('payment_id', t.ref, (c) => c.notNull())
    .addColumn('donation_id', t.ref, (c) => c.notNull())
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .addUniqueConstraint('payment_grants_donation', ['donation_id'])
    .execute();
  await db.schema.createIndex('payment_grants_payment').on('payment_grants').columns(['payment_id']).execute();
}
