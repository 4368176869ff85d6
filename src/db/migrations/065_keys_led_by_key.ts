// The records of Idempotency-Keys kept in an index led by the key: primary key (key, user_id)
// instead of (user_id, key). The pair stays unique, and every statement that names a record names
// both. Keys that are made in time order (UUIDs of version 7, which the client sends: ADR 34) then
// land together at the index's end: the records of a round share one or two of its pages, where
// led by the user each record wrote a page of its own (one for each donor of the round), and each
// donor's part of the index grew by pages left half full. Random keys cost what they did. A user's
// records are now found by a scan, which is bounded by the records' retention (privacy's erasure
// is the only statement that asks for them).
//
// PostgreSQL swaps the constraint in place. SQLite cannot change a table's primary key, so the
// table is made again under its name, its rows copied, as SQLite's documentation describes.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`alter table idempotency_keys drop constraint idempotency_keys_pk,
      add constraint idempotency_keys_pk primary key (key, user_id)`.execute(db);
    return;
  }
  await sql`create table idempotency_keys_by_key (
      user_id integer not null references users (id), key text not null, request_hash text not null,
      state text not null, response_status integer, response_body text, locked_until text not null,
      created_at text not null, claim_token text, resource text,
      constraint idempotency_keys_pk primary key (key, user_id))`.execute(db);
  await sql`insert into idempotency_keys_by_key (user_id, key, request_hash, state, response_status, response_body, locked_until, created_at, claim_token, resource)
      select user_id, key, request_hash, state, response_status, response_body, locked_until, created_at, claim_token, resource from idempotency_keys`.execute(db);
  await sql`drop table idempotency_keys`.execute(db);
  await sql`alter table idempotency_keys_by_key rename to idempotency_keys`.execute(db);
}
