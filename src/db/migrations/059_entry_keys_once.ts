// PostgreSQL: the journal's entries keep one unique index on their id, the
// primary key. `journal_entries_id_book` (id, book) was made (013_books) as the
// target of the postings' foreign key (entry_id, book); since 025 a trigger
// checks a statement's postings instead, probing the primary key, and no key
// names the pair. Every entry written, and every entry the log's sequencer
// places (an update that writes each index again, docs/rules.md §26), paid
// for it: a B-tree insert and its WAL, about 450 KB of the 3.65 MB that
// placing 5,000 entries wrote (docs/performance-history.md, 2026-11-30,
// late). An id is unique, so the pair is too: nothing is given up. Dropping
// it holds writes to the table for a moment, no longer than a catalog change;
// a node still running the code before this one never used it. SQLite keeps
// its foreign keys, whose parent key needs the index.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`drop index if exists journal_entries_id_book`.execute(db);
}
