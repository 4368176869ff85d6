// The national directory: what the IRS importer keeps per organisation, and
// the word index that serves search on both engines (see ADR 7).
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  const s = db.schema;
  await s
    .alterTable('non_profits')
    .addColumn('asset_amt', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await s
    .alterTable('non_profits')
    .addColumn('tax_period', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // Where the row came from (`eo_vt`), and the import run that last saw it there.
  await s
    .alterTable('non_profits')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await s.alterTable('non_profits').addColumn('last_seen_run', t.ref).execute();
  // Set when a later snapshot of its source no longer lists it.
  await s.alterTable('non_profits').addColumn('removed_at', 'text').execute();
  // Search no longer scans names (it looks words up), so the name index only slowed imports.
  await s.dropIndex('non_profits_name').execute();
  await s.createIndex('non_profits_source_seen').on('non_profits').columns(['source', 'last_seen_run']).execute();
  await s.createIndex('non_profits_state_size').on('non_profits').columns(['state', 'income_amt']).execute();

  // Every word of every name and city: the index search looks words up in.
  await s
    .createTable('non_profit_words')
    .addColumn('word', 'text', (c) => c.notNull())
    .addColumn('non_profit_id', t.ref, (c) => c.notNull().references('non_profits.id'))
    .addColumn('kind', 'text', (c) => c.notNull()) // n: name, c: city
    .execute();
  await s.createIndex('non_profit_words_word').on('non_profit_words').columns(['word', 'non_profit_id']).execute();
  await s.createIndex('non_profit_words_np').on('non_profit_words').column('non_profit_id').execute();

  // Distinct words with how many organisations use them: the vocabulary that
  // typo-tolerant and prefix matching expand query words against.
  await s
    .createTable('directory_vocabulary')
    .addColumn('word', 'text', (c) => c.primaryKey())
    .addColumn('df', 'integer', (c) => c.notNull())
    .execute();

  await s
    .createTable('import_runs')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('summary', 'text')
    .execute();

  // Raised whenever the directory changes, so search nodes reload their vocabulary.
  await s
    .createTable('directory_epoch')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('epoch', t.money, (c) => c.notNull())
    .execute();
  await db.insertInto('directory_epoch').values({ id: 1, epoch: 0 }).execute();
}
