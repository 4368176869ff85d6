// What the bank did that the books say it should not have (docs/rules.md §17): a check paid after
// it was voided. The donors' money is back in their funds; the bank's payment is an exception the
// sponsor carries until an operator resolves it (recovered from the bank, or charged to the
// sponsor's own account). `almoner check` reports it until then.
import type { Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema
    .createTable('payment_exceptions')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('payment_id', t.ref, (c) => c.notNull().references('payments.id'))
    // 'voided_check_paid'.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_cents', t.money, (c) => c.notNull())
    .addColumn('paid_date', 'text', (c) => c.notNull())
    .addColumn('found_at', 'text', (c) => c.notNull())
    .addColumn('found_by', 'text', (c) => c.notNull())
    // 'recovered' (the bank gave it back) or 'charged' (the sponsor's own account bore it); null while open.
    .addColumn('resolution', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('note', 'text')
    .addUniqueConstraint('payment_exceptions_once', ['payment_id', 'kind'])
    .execute();
}
