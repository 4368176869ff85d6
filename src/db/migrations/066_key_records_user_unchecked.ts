// PostgreSQL: an Idempotency-Key record's user no longer checked by a foreign key, as migration
// 023 did for a donation's, an event's and a count's user. The key's check ran a lookup of the
// user and locked the user's row (FOR KEY SHARE), a WAL record, for every record a keyed round
// wrote: measured apart, 5 us and 47 bytes of WAL a record, a fifth of its insert
// (docs/performance-history.md, 2026-12-06, later). A record is written only for the
// authenticated caller of its request, and no user row is ever deleted; `almoner check` proves
// the reference instead (check.store.ts REFERENCES). SQLite keeps its key.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`alter table idempotency_keys drop constraint if exists idempotency_keys_user_id_fkey`.execute(db);
}
