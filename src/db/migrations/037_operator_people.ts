// An operator token belongs to a named operator, a person (docs/rules.md §20, "a second operator"):
// two tokens of one operator are one person when a rule asks for two, and the audit log names the
// person. Tokens made before belonged to the name they were given.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admin_tokens').addColumn('operator', 'text').execute();
  await sql`update admin_tokens set operator = name where operator is null`.execute(db);
}
