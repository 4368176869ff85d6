// The journal's trigger that names each new entry among those waiting for a place in the log
// (migrations 060 and 061), dropped for the chains-off arm of `--only chains` and put back, as it
// was defined, for the arm with chains (bench/chains-off.ts). Its definition is read from the
// database before it is dropped and kept in a table of the bench's own, so the bench never holds
// a copy of a migration's SQL that could drift from it.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../src/db/database.ts';

async function definition(db: Kysely<any>, engine: Engine): Promise<string | undefined> {
  const { rows } =
    engine === 'sqlite'
      ? await sql<{ definition: string }>`select sql as definition from sqlite_master where type = 'trigger' and name = 'journal_entries_wait'`.execute(db)
      : await sql<{ definition: string }>`select pg_get_triggerdef(oid) as definition from pg_trigger
          where tgname = 'journal_entries_wait' and tgrelid = 'journal_entries'::regclass`.execute(db);
  return rows[0]?.definition;
}

/** The trigger there (`on`) or not; its definition kept while it is not. */
export async function setWaitingTrigger(db: Kysely<any>, engine: Engine, on: boolean): Promise<void> {
  await sql`create table if not exists bench_waiting_trigger (definition text not null)`.execute(db);
  const current = await definition(db, engine);
  if (!on) {
    if (current === undefined) return;
    await sql`delete from bench_waiting_trigger`.execute(db);
    await sql`insert into bench_waiting_trigger (definition) values (${current})`.execute(db);
    await sql.raw(engine === 'sqlite' ? 'drop trigger journal_entries_wait' : 'drop trigger journal_entries_wait on journal_entries').execute(db);
    return;
  }
  if (current !== undefined) return;
  const saved = (await sql<{ definition: string }>`select definition from bench_waiting_trigger`.execute(db)).rows[0]?.definition;
  if (saved === undefined) throw new Error('the journal_entries_wait trigger is missing, and the bench kept no definition of it');
  await sql.raw(saved).execute(db);
  if ((await definition(db, engine)) !== saved) throw new Error('the journal_entries_wait trigger was not put back as it was');
}
