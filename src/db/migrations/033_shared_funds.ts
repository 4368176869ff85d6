// Shared funds (docs/rules.md §20): a fund has members with roles, invited by
// e-mail; each person chooses the fund they act on (users.current_fund_id);
// every role a member held is kept with its period (member_roles), so that
// what a member did can be checked against the role they held then; the
// movements of money name the member who made them (actor_id); a family
// member's donation waits as a request until an organizer or advisor decides
// it; a successor plan says what happens to a fund when its organizer dies,
// and a death takes effect only when a second operator approves it.
// Every fund's holder becomes its first organizer; every user acts on their own fund.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('fund_members')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('book', 'text', (c) => c.notNull())
    // Null while an invitation waits; the person who accepted it afterwards.
    .addColumn('user_id', t.ref)
    // Where the invitation went (normalised); null for a fund's first organizer.
    .addColumn('email', 'text')
    // 'organizer', 'advisor' or 'family'.
    .addColumn('role', 'text', (c) => c.notNull())
    // 'invited', 'active', 'removed' (removed, left, or the invitation withdrawn or died).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text')
    .addColumn('token_expires_at', 'text')
    // The member's user who invited them; null for the first organizer or a successor.
    .addColumn('invited_by', t.ref)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('joined_at', 'text')
    .addColumn('ended_at', 'text')
    // Who ended it: a member's user id as text, 'self', or an operator ('operator:<name>').
    .addColumn('ended_by', 'text')
    .execute();
  await db.schema.createIndex('fund_members_fund').on('fund_members').columns(['fund_id', 'status']).execute();
  await db.schema.createIndex('fund_members_user').on('fund_members').columns(['user_id', 'status']).execute();
  await db.schema.createIndex('fund_members_token').on('fund_members').columns(['token_hash']).unique().execute();
  // One membership per person and fund, one waiting invitation per address and fund, whatever races.
  await db.schema.createIndex('fund_members_one_active').on('fund_members').columns(['fund_id', 'user_id']).unique().where(sql.ref('status'), '=', sql.lit('active')).execute();
  await db.schema.createIndex('fund_members_one_invitation').on('fund_members').columns(['fund_id', 'email']).unique().where(sql.ref('status'), '=', sql.lit('invited')).execute();

  await db.schema
    .createTable('member_roles')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('member_id', t.ref, (c) => c.notNull())
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('user_id', t.ref, (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addColumn('until', 'text')
    .execute();
  await db.schema.createIndex('member_roles_fund_user').on('member_roles').columns(['fund_id', 'user_id', 'since']).execute();

  await db.schema.alterTable('users').addColumn('current_fund_id', t.ref).execute();
  for (const table of ['donations', 'gifts', 'contributions', 'exchanges', 'scheduled_donations']) {
    await db.schema.alterTable(table).addColumn('actor_id', t.ref).execute();
  }
  // A request (status 'requested'): when it lapses, and who decided it when.
  await db.schema.alterTable('donations').addColumn('request_expires_at', 'text').execute();
  await db.schema.alterTable('donations').addColumn('decided_by', t.ref).execute();
  await db.schema.alterTable('donations').addColumn('decided_at', 'text').execute();
  await db.schema.createIndex('donations_requests').on('donations').columns(['status', 'request_expires_at']).execute();

  await db.schema
    .createTable('successor_lines')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    // A person (by e-mail, becomes an organizer) or a charity (by EIN, receives its share of the balance).
    .addColumn('email', 'text')
    .addColumn('ein', 'text')
    .addColumn('share_percent', 'integer')
    .addColumn('updated_by', t.ref, (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('successor_lines_fund').on('successor_lines').columns(['fund_id']).execute();

  await db.schema
    .createTable('death_records')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('fund_id', t.ref, (c) => c.notNull())
    .addColumn('user_id', t.ref, (c) => c.notNull())
    .addColumn('document_reference', 'text', (c) => c.notNull())
    // 'recorded' (waits for a second operator), 'approved' (the plan ran), 'withdrawn'.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('recorded_by', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text')
    .addColumn('approved_at', 'text')
    // What the plan did, as JSON: organizers added, donations made.
    .addColumn('outcome', 'text')
    .execute();
  await db.schema.createIndex('death_records_one_open').on('death_records').columns(['fund_id', 'user_id']).unique().where(sql.ref('status'), '!=', sql.lit('withdrawn')).execute();

  // Every fund's holder is its first organizer, from its creation; everyone acts on their own fund.
  await sql`insert into fund_members (fund_id, book, user_id, role, status, created_at, joined_at)
    select f.id, f.book, f.user_id, 'organizer', 'active', f.created_at, f.created_at from funds f`.execute(db);
  await sql`insert into member_roles (member_id, fund_id, user_id, role, since)
    select m.id, m.fund_id, m.user_id, m.role, m.joined_at from fund_members m`.execute(db);
  await sql`update users set current_fund_id = (select min(f.id) from funds f where f.user_id = users.id)`.execute(db);
  // What members did before there were members: the fund's holder did it.
  for (const table of ['donations', 'gifts', 'contributions', 'scheduled_donations']) {
    await sql`update ${sql.table(table)} set actor_id = user_id`.execute(db);
  }
  await sql`update exchanges set actor_id = (select f.user_id from funds f where f.id = exchanges.fund_id)`.execute(db);
}
