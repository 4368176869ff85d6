// The transactional outbox (rules §12): an event row is written in the
// same database transaction as the state change it reports.
import { dialectOf } from '../../db/dialect.ts';
import type { Db, Trx } from '../../db/database.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { Database, EventsTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { insertRows, runStatements, type Statement } from '../../db/bulk.ts';
import type { Book } from '../../shared/book.ts';

const insertEventQuery = prepared<Database, never, Omit<EventsTable, 'id' | 'relayed_at'>>((db, p) =>
  db.insertInto('events').values({
    user_id: p('user_id'),
    type: p('type'),
    object_type: p('object_type'),
    object_id: p('object_id'),
    data: p('data'),
    created_at: p('created_at'),
  }),
);

export type EventType =
  | 'donation.created'
  | 'donation.updated'
  | 'gift.created'
  | 'gift.updated'
  | 'contribution.created'
  | 'contribution.updated'
  | 'webhook_endpoint.disabled'
  | 'payment.created'
  | 'payment.updated'
  | 'fundraiser.created'
  | 'fundraiser.updated'
  | 'match.created'
  | 'match.updated';

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
    'user_id bigint, type text, object_type text, object_id bigint, data text, created_at text',
    events.map((e) => [e.user_id, e.type, e.object_type, e.object_id, JSON.stringify(e.data), e.at]),
  );
}

/** Records many events at once (a payment run's), a statement of up to a thousand at a time. */
export async function recordEvents(
  trx: Trx,
  events: ReadonlyArray<{ user_id: number; type: EventType; object_type: string; object_id: number; data: unknown; at: string }>,
): Promise<void> {
  for (const statement of eventStatements(events)) await runStatements(trx, [statement]);
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

export type RelayEvent = { id: number; user_id: number; book: Book; type: string; object_type: string; object_id: number; data: string; created_at: string };

/** Events as the relay reads them: each with its user's book. */
const relayRead = (db: Db) =>
  db
    .selectFrom('events as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.id', 'e.user_id', 'u.book', 'e.type', 'e.object_type', 'e.object_id', 'e.data', 'e.created_at']);

/** One of the user's events, with their book, as the relay reads it; undefined when it is not theirs. */
export async function eventOfUser(db: Db, userId: number, id: number): Promise<RelayEvent | undefined> {
  return relayRead(db).where('e.id', '=', id).where('e.user_id', '=', userId).executeTakeFirst();
}

/** Up to `limit` events not yet relayed, oldest first, with their user's book: what the relay renders next. */
export async function unrelayedEvents(db: Db, limit: number): Promise<RelayEvent[]> {
  return relayRead(db).where('e.relayed_at', 'is', null).orderBy('e.id').limit(limit).execute();
}

/**
 * Of these events, the ones still not relayed, locked in the relay's transaction: on PostgreSQL
 * the rows another relay holds are skipped, so two relays never commit one event; SQLite's single
 * writer does the same.
 */
export async function claimEvents(trx: Trx, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const q = trx
    .selectFrom('events')
    .select('id')
    .where('id', 'in', [...ids])
    .where('relayed_at', 'is', null);
  return (await dialectOf(trx).claimRows(q).execute()).map((r) => r.id);
}

export async function markRelayed(trx: Trx, ids: readonly number[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('events')
    .set({ relayed_at: at })
    .where('id', 'in', [...ids])
    .execute();
}

/** Events committed and not yet relayed (operators: a relay that falls behind). */
export async function unrelayedCount(db: Db): Promise<number> {
  return Number(
    (
      await db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('relayed_at', 'is', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
}
