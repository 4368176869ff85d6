// Each word of the search index carries its organisation's size (BMF income),
// and the index orders a word's organisations biggest first: "the biggest
// users of this word" is then a read of the index alone, for search's
// candidates and for the import's lists of common words (directory_top),
// instead of a lookup of every user's row to sort them.
import { sql, type Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .alterTable('non_profit_words')
    .addColumn('size', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update non_profit_words set size = (select n.income_amt from non_profits n where n.id = non_profit_words.non_profit_id)`.execute(db);
  await db.schema.dropIndex('non_profit_words_word').ifExists().execute();
  await db.schema.createIndex('non_profit_words_word_size').ifNotExists().on('non_profit_words').columns(['word', 'size desc', 'non_profit_id']).execute();
}
