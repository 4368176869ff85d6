// The initial schema. One migration text for both engines: the few column
// types that differ come from `t` (see ../types.ts).
import { sql, type Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  const s = db.schema;

  await s
    .createTable('users')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('city', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('avatar_url', 'text')
    .addColumn('cover_image_url', 'text')
    .addColumn('visible', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('onboarding_status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('funds')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('funds_user').on('funds').column('user_id').execute();

  await s
    .createTable('causes')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('ntee_groups', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('fund_causes')
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    .addColumn('cause_id', 'integer', (c) => c.notNull().references('causes.id'))
    .addPrimaryKeyConstraint('fund_causes_pk', ['fund_id', 'cause_id'])
    .execute();

  await s
    .createTable('follows')
    .addColumn('follower_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('followee_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followee_id'])
    .execute();

  await s
    .createTable('api_keys')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await s.createIndex('api_keys_user').on('api_keys').column('user_id').execute();

  await s
    .createTable('non_profits')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('ein', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('website', 'text')
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('zip', 'text', (c) => c.notNull())
    .addColumn('latitude', t.real)
    .addColumn('longitude', t.real)
    .addColumn('ntee_code', 'text')
    .addColumn('cause_id', 'integer', (c) => c.notNull().references('causes.id'))
    .addColumn('eligible', 'integer', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('income_amt', t.money, (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('non_profits_name').on('non_profits').column('name_lower').execute();
  await s.createIndex('non_profits_cause').on('non_profits').column('cause_id').execute();

  await s
    .createTable('donations')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull().references('non_profits.id'))
    .addColumn('amount_cents', t.money, (c) => c.notNull().check(sqlPositive('amount_cents')))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('private_memo', 'text')
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('scheduled_donation_id', t.ref)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('mailed_at', 'text')
    .addColumn('cancelled_at', 'text')
    .execute();
  // Serves the own list (newest first) and its count without a sort step.
  await s.createIndex('donations_user_created').on('donations').columns(['user_id', 'created_at desc', 'id desc']).execute();
  // Promotion of waiting donations scans one fund's waiting ones, oldest first.
  await s.createIndex('donations_fund_status').on('donations').columns(['fund_id', 'status', 'id']).execute();

  await s
    .createTable('gifts')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('amount_cents', t.money, (c) => c.notNull().check(sqlPositive('amount_cents')))
    .addColumn('message', 'text')
    .addColumn('ein', 'text')
    .addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('claimed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('gifts_user_created').on('gifts').columns(['user_id', 'created_at desc', 'id desc']).execute();

  await s
    .createTable('contributions')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('fund_id', t.ref, (c) => c.notNull().references('funds.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('units', 'text', (c) => c.notNull())
    .addColumn('valuation', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text')
    .addColumn('completed_at', 'text')
    .execute();
  await s.createIndex('contributions_user_created').on('contributions').columns(['user_id', 'created_at desc', 'id desc']).execute();

  await s
    .createTable('ledger_accounts')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.references('funds.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    // A cached sum of the account's postings, written in the same database
    // transaction as the postings; `almoner check` recomputes it. The check
    // constraint is the last line of defence against overdraft.
    .addColumn('balance_cents', t.money, (c) => c.notNull().defaultTo(0))
    .addCheckConstraint('ledger_accounts_fund_not_negative', sql`fund_id is null or balance_cents >= 0`)
    .execute();
  await s.createIndex('ledger_accounts_fund_kind').on('ledger_accounts').columns(['fund_id', 'kind']).unique().execute();

  await s
    .createTable('journal_entries')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('memo', 'text', (c) => c.notNull())
    .addColumn('donation_id', t.ref, (c) => c.references('donations.id'))
    .addColumn('gift_id', t.ref, (c) => c.references('gifts.id'))
    .addColumn('contribution_id', t.ref, (c) => c.references('contributions.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await s
    .createTable('postings')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('entry_id', t.ref, (c) => c.notNull().references('journal_entries.id'))
    .addColumn('account_id', t.ref, (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .execute();
  await s.createIndex('postings_entry').on('postings').column('entry_id').execute();
  await s.createIndex('postings_account').on('postings').column('account_id').execute();

  await s
    .createTable('idempotency_keys')
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
    .execute();

  await s
    .createTable('events')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('user_id', t.ref, (c) => c.notNull().references('users.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', t.ref, (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await s.createIndex('events_user').on('events').columns(['user_id', 'id']).execute();
}

function sqlPositive(column: string) {
  return sql.raw(`${column} > 0`);
}
