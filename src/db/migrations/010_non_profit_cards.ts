// A second counter beside the directory's vocabulary epoch: raised by every
// change of an organisation's shown fields (name, city, website, cause...), in
// the change's transaction. Nodes keep the non-profit shown inside donations
// in memory while it is unchanged. (The vocabulary epoch is raised once per
// import, when the search statistics are rebuilt; this one with every batch.)
import type { Kysely } from 'kysely';
import { columnTypes } from '../types.ts';
import type { Engine } from '../database.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .alterTable('directory_epoch')
    .addColumn('records_epoch', t.money, (c) => c.notNull().defaultTo(0))
    .execute();
}
