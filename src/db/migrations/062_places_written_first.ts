// On SQLite every writer now gives an entry its place before it writes the entry (ledger.tail.ts;
// a single entry too, whose id it takes first), so no entry it writes ever waits, and the sequencer
// takes what it places from the waiting itself (setPlaces). The trigger that took an entry from the
// waiting as its place was inserted (migration 060) then only probed the waiting for every place
// the writer inserted: about a microsecond an entry on the donations' path, for nothing
// (docs/performance-history.md, 2026-12-01, morning). Any entry both placed and waiting (none
// is expected) is taken from the waiting here, so the sequencer never meets one.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'sqlite') await sql`drop trigger if exists ledger_places_taken`.execute(db);
  await sql`delete from ledger_waiting where exists (select 1 from ledger_places p where p.entry_id = ledger_waiting.entry_id)`.execute(db);
}
