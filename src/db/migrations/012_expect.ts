// PostgreSQL: almoner_expect(ok, what) fails the statement that calls it
// (SQLSTATE AL001, db/bulk.ts EXPECTATION_FAILED) unless `ok` holds. A write of
// several data-modifying WITH clauses uses it to commit only if what it
// assumed is still true (runIfOneRow); the whole statement, every clause of
// it, is then undone. SQLite needs none: its writers run one at a time.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`create or replace function almoner_expect(ok boolean, what text) returns boolean
    language plpgsql volatile as $$
    begin
      if ok is not true then
        raise exception 'expectation failed: %', what using errcode = 'AL001';
      end if;
      return true;
    end
    $$`.execute(db);
}
