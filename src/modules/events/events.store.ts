// The transactional outbox (DECISIONS 12): an event row is written in the
// same database transaction as the state change it reports.
import type { Db, Trx } from '../../db/database.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { Database, EventsTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { insertRows, type Statement } from '../../db/bulk.ts';

const insertEventQuery = prepared<Database, never, Omit<EventsTable, 'id'>>((db, p) =>
  db.insertInto('events').values({
    user_id: p('user_id'),
    type: p('type'),
    object_type: p('object_type'),
    object_id: p('object_id'),
    data: p('data'),
    created_at: p('created_at'),
  }),
);

export type EventType = 'donation.created' | 'donation.updated' | 'gift.created' | 'gift.updated' | 'contribution.created' | 'contribution.updated';

export async function recordEvent(trx: Trx, event: { user_id: number; type: EventType; object_type: string; object_id: number; data: unknown; at: string }): Promise<void> {
  await insertEventQuery(trx, {
    user_id: event.user_id,
    type: event.type,
    object_type: event.object_type,
    object_id: event.object_id,
    data: JSON.stringify(event.data),
    created_at: event.at,
  });
}

/** The statement that records many events (a batch of donations). */
export function eventStatements(events: ReadonlyArray<{ user_id: number; type: EventType; object_type: string; object_id: number; data: unknown; at: string }>): Statement[] {
  return insertRows(
    'events',
    ['user_id', 'type', 'object_type', 'object_id', 'data', 'created_at'],
    events.map((e) => [e.user_id, e.type, e.object_type, e.object_id, JSON.stringify(e.data), e.at]),
  );
}

/** A page of a user's events, newest first, with how many there are. */
export async function listEvents(db: Db, userId: number, page: PageRequest) {
  const [counted, rows] = await Promise.all([
    db
      .selectFrom('events')
      .where('user_id', '=', userId)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('events')
      .select(['id', 'type', 'object_type', 'object_id', 'data', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(page.per_page)
      .offset(offsetOf(page))
      .execute(),
  ]);
  return { count: Number(counted.n), rows: rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> })) };
}
