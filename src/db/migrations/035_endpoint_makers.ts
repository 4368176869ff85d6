// Who made each webhook endpoint (docs/rules.md §20): an endpoint a member made for a shared
// fund hears every event of the fund, so it ends when their membership does. Endpoints made
// before keep no maker: they were made by the fund's holder or before funds were shared.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('webhook_endpoints').addColumn('created_by', t.ref).execute();
}
