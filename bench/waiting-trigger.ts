// What names each new journal entry as waiting for its place in the log, switched off for the
// chains-off arm of `--only chains` and put back, as it was defined, for the arm with chains
// (bench/chains-off.ts): on SQLite the journal's trigger that names it in `ledger_waiting`
// (migrations 060 and 061), on PostgreSQL the default of its `txid` column (migration 063). The
// definition is read from the database before it is dropped and kept in a table of the bench's
// own, so the bench never holds a copy of a migration's SQL that could drift from it.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../src/db/database.ts';

/** The statement that puts it back as it is now; undefined when it is not there. */
async function definition(db: Kysely<any>, engine: Engine): Promise<string | undefined> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ definition: string }>`select sql as definition from sqlite_master where type = 'trigger' and name = 'journal_entries_wait'`.execute(db);
    return rows[0]?.definition;
  }
  const { rows } = await sql<{ expr: string }>`select pg_get_expr(d.adbin, d.adrelid) as expr from pg_attrdef d
    join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum where d.adrelid = 'journal_entries'::regclass and a.attname = 'txid'`.execute(db);
  return rows[0] === undefined ? undefined : `alter table journal_entries alter column txid set default ${rows[0].expr}`;
}

/** New entries named as waiting (`on`) or not; the definition kept while they are not. */
export async function setWaitingTrigger(db: Kysely<any>, engine: Engine, on: boolean): Promise<void> {
  await sql`create table if not exists bench_waiting_trigger (definition text not null)`.execute(db);
  const current = await definition(db, engine);
  if (!on) {
    if (current === undefined) return;
    await sql`delete from bench_waiting_trigger`.execute(db);
    await sql`insert into bench_waiting_trigger (definition) values (${current})`.execute(db);
    await sql.raw(engine === 'sqlite' ? 'drop trigger journal_entries_wait' : 'alter table journal_entries alter column txid drop default').execute(db);
    return;
  }
  if (current !== undefined) return;
  const saved = (await sql<{ definition: string }>`select definition from bench_waiting_trigger`.execute(db)).rows[0]?.definition;
  if (saved === undefined) throw new Error('what names new journal entries as waiting is missing, and the bench kept no definition of it');
  await sql.raw(saved).execute(db);
  if ((await definition(db, engine)) !== saved) throw new Error('what names new journal entries as waiting was not put back as it was');
}
