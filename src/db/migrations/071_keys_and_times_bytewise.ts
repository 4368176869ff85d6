// PostgreSQL compares text in an index through the database's collation: with a linguistic one
// (ICU, or a libc locale such as en_US.UTF-8, the usual choice of a managed server) every
// comparison goes through the collation library, ten to a hundred times a plain byte comparison.
// Two indexes make such comparisons on every write of the hot path: an Idempotency-Key's record
// (its primary key leads with the key) and a user's donations newest first (the creation time
// follows the user). Both texts are made by machines and sort the same byte by byte: an ISO 8601
// UTC time of one fixed form (ADR 1), and a key of visible ASCII whose only use is equality. So
// both columns compare bytes ("C"), whatever the database's default (ADR 36): measured on a
// database of ICU's en-US, PostgreSQL's CPU a keyed donation went from 236 to 152 us and an
// unkeyed one from 151 to 139 (docs/performance-history.md, 2026-12-07, afternoon). Equality is
// unchanged (a deterministic collation already breaks ties byte by byte), and so is every order
// these columns give. SQLite compares bytes (BINARY) already.
//
// Changing a column's collation rewrites no row, but rebuilds the indexes that hold the column
// under an exclusive lock of the table: on a million donations a few seconds during which
// donations wait, once, at the upgrade.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`alter table idempotency_keys alter column key type text collate "C"`.execute(db);
  await sql`alter table donations alter column created_at type text collate "C"`.execute(db);
}
