// Invest now (docs/rules.md §19): a donor may invest money already in the fund, bought at the next
// valuation like a contribution's share. Such an investment comes from no contribution:
// investments.contribution_id may be null, and `actor_id` says who asked for one.
// SQLite cannot drop NOT NULL: the table is rebuilt from its own definition without it (nothing
// references investments by a foreign key).
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { assert } from '../../shared/assert.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`alter table investments alter column contribution_id drop not null`.execute(db);
  } else {
    const found = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'investments'`.execute(db);
    const ddl = found.rows[0]?.sql ?? '';
    const rebuilt = ddl.replace('"contribution_id" integer not null', '"contribution_id" integer').replace(/^CREATE TABLE "investments"/, 'CREATE TABLE "investments_new"');
    assert(rebuilt !== ddl && rebuilt.includes('"investments_new"'), 'investments as migration 032 made it');
    await sql.raw(rebuilt).execute(db);
    await sql`insert into investments_new select * from investments`.execute(db);
    await sql`drop table investments`.execute(db);
    await sql`alter table investments_new rename to investments`.execute(db);
    await sql`create index "investments_pending" on "investments" ("status", "fund_id")`.execute(db);
  }
  await db.schema.alterTable('investments').addColumn('actor_id', 'text').execute();
}
