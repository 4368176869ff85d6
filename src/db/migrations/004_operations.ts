// Running the platform: operator tokens and the audit log, donation
// timestamps of every transition, the gift recipient's side, and recurring
// (scheduled) donations.
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  const s = db.schema;

  await s
    .createTable('admin_tokens')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();

  await s
    .createTable('audit_log')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.ref, (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('audit_log_object').on('audit_log').columns(['object_type', 'object_id']).execute();

  // A portfolio move is caused by an operator's action: its entry names the audit entry.
  await s
    .alterTable('journal_entries')
    .addColumn('audit_id', t.ref, (c) => c.references('audit_log.id'))
    .execute();

  for (const column of ['approved_at', 'rejected_at', 'completed_at', 'voided_at', 'rejection_reason']) {
    await s.alterTable('donations').addColumn(column, 'text').execute();
  }

  await s
    .alterTable('gifts')
    .addColumn('recipient_user_id', t.ref, (c) => c.references('users.id'))
    .execute();
  await s
    .alterTable('gifts')
    .addColumn('donation_id', t.ref, (c) => c.references('donations.id'))
    .execute();

  await s
    .createTable('scheduled_donations')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull().references('non_profits.id'))
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .addColumn('frequency', 'text', (c) => c.notNull())
    // Occurrence n falls on start_date + n periods (a month's day clamped to its length).
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_date', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('scheduled_donations_due').on('scheduled_donations').columns(['status', 'next_date']).execute();
  await s.createIndex('scheduled_donations_user').on('scheduled_donations').columns(['user_id', 'id']).execute();
  // A recurring donation creates at most one donation per date, whoever runs the scheduler.
  await s.alterTable('donations').addColumn('scheduled_for', 'text').execute();
  await s.createIndex('donations_scheduled_once').on('donations').columns(['scheduled_donation_id', 'scheduled_for']).unique().execute();
}
