// Charities' own people (docs/rules.md §18): a person with an account claims
// an organisation with an e-mail at its web domain, confirms it by a link
// (only the SHA-256 of its token is kept), and an operator approves it. An
// approved claimant sees what the organisation was paid and keeps its bank
// details. A person has one claim per organisation that is not refused.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('charity_claims')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull())
    .addColumn('user_id', t.ref, (c) => c.notNull())
    // The address at the organisation's domain the confirmation link went to.
    .addColumn('email', 'text', (c) => c.notNull())
    // The web domain the address was matched to, and whether the directory had that website (1)
    // or the claimant gave it for an organisation without one (0): the operator checks it then.
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('website_on_file', 'integer', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('token_expires_at', 'text', (c) => c.notNull())
    // 'unconfirmed' (the link not yet followed), 'pending' (an operator decides), 'approved', 'rejected'.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decision_note', 'text')
    .execute();
  await db.schema.createIndex('charity_claims_org').on('charity_claims').columns(['non_profit_id', 'status']).execute();
  // One claim per person and organisation that is not refused, whatever requests race.
  await db.schema
    .createIndex('charity_claims_live')
    .on('charity_claims')
    .columns(['user_id', 'non_profit_id'])
    .unique()
    .where(sql.ref('status'), '!=', sql.lit('rejected'))
    .execute();
  await db.schema.createIndex('charity_claims_token').on('charity_claims').columns(['token_hash']).unique().execute();
}
