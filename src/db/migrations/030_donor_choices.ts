// What the charity learns of a donation (docs/rules.md §17): the donor's
// choice to share their name and e-mail, their name only, or nothing
// (`share`, default `name`), an optional designation (what it is for) and an
// optional dedication, carried on the remittance, shown to the owner only.
// A release before this one writes donations without them: they take the default.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('donations')
    .addColumn('share', 'text', (c) => c.notNull().defaultTo('name'))
    .execute();
  await db.schema.alterTable('donations').addColumn('designation', 'text').execute();
  await db.schema.alterTable('donations').addColumn('dedication', 'text').execute();
}
