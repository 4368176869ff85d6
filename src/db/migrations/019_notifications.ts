// Telling people (rules §12, 15): webhook endpoints and their deliveries,
// the mail outbox, and password resets. Events are relayed once into
// deliveries and mail: `relayed_at` marks an event done; the ones already
// there when this runs are marked, so that history is not sent.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('events').addColumn('relayed_at', 'text').execute();
  await sql`update events set relayed_at = created_at`.execute(db);
  await sql`create index events_unrelayed on events (id) where relayed_at is null`.execute(db);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    // A JSON array of event types; [] is every type.
    .addColumn('event_types', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('webhook_endpoints_user').on('webhook_endpoints').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('endpoint_id', t.ref, (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', t.ref, (c) => c.references('events.id'))
    // The Standard Webhooks message id: the same on every attempt, so receivers can drop duplicates.
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await sql`create unique index webhook_deliveries_once on webhook_deliveries (endpoint_id, event_id) where event_id is not null`.execute(db);
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_at) where status = 'pending'`.execute(db);
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('delivery_id', t.ref, (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('endpoint_id', t.ref, (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['endpoint_id', 'id']).execute();

  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('event_id', t.ref, (c) => c.references('events.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await sql`create unique index mail_outbox_once on mail_outbox (event_id, kind, recipient) where event_id is not null`.execute(db);
  await sql`create index mail_outbox_due on mail_outbox (next_at) where status = 'pending'`.execute(db);

  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
