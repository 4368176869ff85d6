// The sponsor's due diligence (docs/rules.md §16): the lists an organisation is
// checked against, each import a dated snapshot (the IRS auto-revocation list,
// Publication 78, the OFAC SDN list), the operator's review of close name
// matches, and on each organisation what the last screening found
// (`diligence`), read with it wherever a donation is made or paid.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('diligence_lists')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    // 'revocations', 'pub78' or 'sdn'.
    .addColumn('kind', 'text', (c) => c.notNull())
    // The day the list was published or downloaded (YYYY-MM-DD): what the charity page names.
    .addColumn('as_of', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('revocations')
    .addColumn('list_id', t.ref, (c) => c.notNull())
    .addColumn('ein', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('revoked_on', 'text', (c) => c.notNull())
    .addColumn('reinstated_on', 'text')
    .execute();
  await db.schema.createIndex('revocations_list_ein').on('revocations').columns(['list_id', 'ein']).execute();
  await db.schema
    .createTable('pub78')
    .addColumn('list_id', t.ref, (c) => c.notNull())
    .addColumn('ein', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // The deductibility status codes, comma-separated as published (PC, POF, PF, SONFI...).
    .addColumn('codes', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pub78_list_ein').on('pub78').columns(['list_id', 'ein']).execute();
  await db.schema
    .createTable('sanctions')
    .addColumn('list_id', t.ref, (c) => c.notNull())
    .addColumn('entry', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // The name as the matching rule compares it (diligence.ts nameKey).
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('program', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sanctions_list_key').on('sanctions').columns(['list_id', 'name_key']).execute();
  await db.schema
    .createTable('sanction_reviews')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('non_profit_id', t.ref, (c) => c.notNull())
    .addColumn('ein', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    // The listed name it resembles, and how the rule judged it.
    .addColumn('listed_name', 'text', (c) => c.notNull())
    .addColumn('listed_key', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    // 'pending', 'cleared' (not the listed party) or 'confirmed' (it is: refused from then on).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('note', 'text')
    .addUniqueConstraint('sanction_reviews_pair', ['non_profit_id', 'listed_key'])
    .execute();
  await db.schema.createIndex('sanction_reviews_status').on('sanction_reviews').columns(['status', 'id']).execute();
  // What the last screening found: 'clear', or why the organisation may not receive a grant, or
  // 'review' (a close match an operator has not decided). Not null: every row is screened as clear
  // until a list says otherwise.
  await db.schema
    .alterTable('non_profits')
    .addColumn('diligence', 'text', (c) => c.notNull().defaultTo('clear'))
    .execute();
}
